set(SOURCES DeadPushforwards.cpp DerivedFunctions.cpp Hessian.cpp HessianLanes.cpp HessianSparsity.cpp Hvp.cpp LoopIncrements.cpp)
