set(SOURCES Clone.cpp IR.cpp Intrinsics.cpp NameScope.cpp PassPipeline.cpp Traversal.cpp Type.cpp Verifier.cpp)
