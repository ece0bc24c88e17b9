set(SOURCES Simplifier.cpp SimplifyUtils.cpp Rewrite.cpp ConstantTangents.cpp AlgebraicFolds.cpp PureCallCSE.cpp MergeAdds.cpp CopyPropagation.cpp)
