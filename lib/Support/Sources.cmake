set(SOURCES ArgSpec.cpp Diagnostics.cpp)
