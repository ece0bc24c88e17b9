set(SOURCES DeadPushforwards.cpp DerivedFunctions.cpp Hessian.cpp HessianLanes.cpp HessianPattern.cpp HessianRepeats.cpp HessianUnroll.cpp HessianSparsity.cpp Hvp.cpp LoopIncrements.cpp)
