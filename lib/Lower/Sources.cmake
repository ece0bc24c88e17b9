set(SOURCES ASTLowering.cpp LowerTypes.cpp LowerStmt.cpp LowerExpr.cpp LowerBranches.cpp)
