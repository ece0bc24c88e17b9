set(SOURCES ElementCount.cpp ElementMaps.cpp ElementWork.cpp IRWalk.cpp IntegerPaths.cpp IndexFacts.cpp IndexEvaluation.cpp IndexForms.cpp IndexGathers.cpp IndexVariables.cpp SweepDefs.cpp)
