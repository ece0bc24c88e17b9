set(SOURCES ASTLowering.cpp LowerBranches.cpp LowerExpr.cpp LowerLoopReturns.cpp LowerMessages.cpp LowerSideEffects.cpp LowerStmt.cpp LowerSwitch.cpp LowerThrust.cpp LowerTypes.cpp)
