set(SOURCES ForwardExpr.cpp ForwardMode.cpp ForwardStmt.cpp ForwardThrust.cpp
    ForwardThrustHvp.cpp ForwardCudaRuntime.cpp)
