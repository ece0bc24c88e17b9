set(SOURCES AlgebraicFolds.cpp ConstantTangents.cpp CopyPropagation.cpp DeadLocals.cpp MergeAdds.cpp PureCallCSE.cpp Rewrite.cpp Simplifier.cpp SimplifyUtils.cpp)
