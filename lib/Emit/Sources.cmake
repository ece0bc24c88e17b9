set(SOURCES CudaEmitter.cpp ExprEmitter.cpp StmtEmitter.cpp)
