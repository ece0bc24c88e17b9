set(SOURCES ElementStrategy.cpp GenerateAction.cpp GeneratedNames.cpp Generator.cpp Placement.cpp RequestResolver.cpp TextEdits.cpp)
