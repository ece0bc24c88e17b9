set(SOURCES Activity.cpp Recomputation.cpp ReverseNeeds.cpp)
