set(SOURCES ElementCostModel.cpp ElementStrategy.cpp GenerateAction.cpp GeneratedNames.cpp Generator.cpp HessianRequest.cpp Placement.cpp RequestResolver.cpp TextEdits.cpp)
