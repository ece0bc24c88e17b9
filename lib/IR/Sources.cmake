set(SOURCES Type.cpp IR.cpp Traversal.cpp Clone.cpp NameScope.cpp Intrinsics.cpp
  Verifier.cpp)
