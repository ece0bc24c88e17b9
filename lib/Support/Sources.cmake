set(SOURCES Diagnostics.cpp ArgSpec.cpp)
