set(SOURCES Activity.cpp)
