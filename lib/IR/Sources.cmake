set(SOURCES Clone.cpp DynamicShared.cpp IR.cpp Intrinsics.cpp Markers.cpp NameScope.cpp PassPipeline.cpp Traversal.cpp Type.cpp Verifier.cpp)
