set(SOURCES ASTLowering.cpp LowerBranches.cpp LowerExpr.cpp LowerHeap.cpp LowerLoopReturns.cpp LowerMessages.cpp LowerReferences.cpp LowerSideEffects.cpp LowerStmt.cpp LowerSwitch.cpp LowerTypes.cpp)
