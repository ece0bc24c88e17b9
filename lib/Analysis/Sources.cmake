set(SOURCES Activity.cpp ReverseNeeds.cpp)
