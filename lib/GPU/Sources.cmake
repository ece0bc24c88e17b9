set(SOURCES AccumulationPolicy.cpp AtomicCombiner.cpp ExclusiveAdds.cpp GatherTiles.cpp GpuPasses.cpp LowerAccumulations.cpp Ownership.cpp OwnershipAccesses.cpp TwoPhaseSlots.cpp VertexDefs.cpp)
