set(SOURCES ElementCount.cpp ElementMaps.cpp ElementWork.cpp IRWalk.cpp IndexFacts.cpp IndexForms.cpp IndexGathers.cpp)
