set(SOURCES Type.cpp IR.cpp)
