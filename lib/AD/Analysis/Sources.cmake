set(SOURCES Activity.cpp InvertibleUpdates.cpp Recomputation.cpp ReverseNeeds.cpp)
