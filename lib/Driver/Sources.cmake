set(SOURCES Generator.cpp Placement.cpp RequestResolver.cpp TextEdits.cpp GenerateAction.cpp)
