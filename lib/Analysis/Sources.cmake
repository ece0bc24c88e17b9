set(SOURCES Activity.cpp IndexFacts.cpp IndexForms.cpp IRWalk.cpp Ownership.cpp OwnershipAccesses.cpp Recomputation.cpp ReverseNeeds.cpp)
