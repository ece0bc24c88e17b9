set(SOURCES Generator.cpp GeneratedNames.cpp Placement.cpp RequestResolver.cpp TextEdits.cpp GenerateAction.cpp)
