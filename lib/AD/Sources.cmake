set(SOURCES DeadPushforwards.cpp DerivedFunctions.cpp Hvp.cpp LoopIncrements.cpp)
