set(SOURCES ElementMaps.cpp ElementWork.cpp IRWalk.cpp IndexFacts.cpp IndexForms.cpp IndexGathers.cpp)
