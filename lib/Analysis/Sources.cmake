set(SOURCES Activity.cpp Ownership.cpp ReverseNeeds.cpp)
