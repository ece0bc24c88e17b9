set(SOURCES Activity.cpp ElementMaps.cpp ElementWork.cpp IndexFacts.cpp IndexForms.cpp IndexGathers.cpp IRWalk.cpp Ownership.cpp OwnershipAccesses.cpp Recomputation.cpp ReverseNeeds.cpp)
