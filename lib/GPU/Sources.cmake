set(SOURCES LowerAccumulations.cpp)
