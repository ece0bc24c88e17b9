set(SOURCES DerivedFunctions.cpp ForwardMode.cpp ForwardStmt.cpp ForwardExpr.cpp)
