set(SOURCES ASTLowering.cpp LowerBranches.cpp LowerExpr.cpp LowerStmt.cpp LowerTypes.cpp)
