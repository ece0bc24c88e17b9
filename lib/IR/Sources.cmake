set(SOURCES Clone.cpp IR.cpp Intrinsics.cpp Markers.cpp NameScope.cpp PassPipeline.cpp Traversal.cpp Type.cpp Verifier.cpp)
