set(SOURCES DerivedFunctions.cpp ForwardMode.cpp ForwardStmt.cpp ForwardExpr.cpp JumpNormalizer.cpp AccumulationPolicy.cpp ReverseMode.cpp ReverseStmt.cpp ReverseLoops.cpp ReverseExpr.cpp)
