set(SOURCES RequestPlanner.cpp)
