set(SOURCES DeadPushforwards.cpp DerivedFunctions.cpp Hessian.cpp HessianLanes.cpp HessianPattern.cpp HessianSparsity.cpp Hvp.cpp LoopIncrements.cpp)
