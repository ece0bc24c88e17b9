set(SOURCES LowerAccumulations.cpp GpuPasses.cpp AccumulationPolicy.cpp AtomicCombiner.cpp GatherTiles.cpp ExclusiveAdds.cpp)
