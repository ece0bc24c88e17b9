//===- Simplify/Passes.h - The simplifier's rules -----------------*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The rules the simplifier runs on a generated function, one per file.
/// Each rewrites the function in place and returns true when it changed
/// something; the Simplifier repeats them until none does. Each is sound on
/// its own (see each file's comment for the conditions it checks), so they
/// can be run, and tested, one by one.
///
/// \code
///   ir::IRBuilder B(M);
///   simplify::propagateConstants(M, F);   // _d_dx = 0. never written: 0
///   simplify::foldAlgebra(M, F);          // 0 * dx + dy * 1 -> dy
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_SIMPLIFY_PASSES_H
#define MESHAD_SIMPLIFY_PASSES_H

#include "IR/IR.h"
#include "IR/NameScope.h"

namespace meshad {
namespace simplify {

/// Replaces the reads of floating locals declared with a literal 0 or 1 and
/// never written again (tangent seeds, structurally zero tangents) by the
/// literal (ConstantTangents.cpp). The declarations are left to
/// removeDeadLocals.
bool propagateConstants(ir::Module &M, ir::Function &F);

/// Folds x*0, x*1, 1*x, x*-1, x/1, x+0, 0+x, x-0, 0-x, -(-x), x + (-y),
/// x - (-y), and a*b + b*a, e + e (pure, syntactically equal) into 2*...
/// (AlgebraicFolds.cpp).
bool foldAlgebra(ir::Module &M, ir::Function &F);

/// Computes a math call that a straight-line run of statements evaluates
/// more than once (with nothing in between that may change its operands)
/// once, in a temporary named from \p Names (PureCallCSE.cpp).
bool shareMathCalls(ir::Module &M, ir::Function &F, ir::NameScope &Names);

/// Merges consecutive `v += a; v += b;` on a plain local into
/// `v += a + b;`, and consecutive Accumulates to the same target into one
/// (MergeAdds.cpp).
bool mergeAdds(ir::Module &M, ir::Function &F);

/// Inlines a generated temporary (`_r3`) read once, later in the same
/// block, where nothing in between may change what its value reads
/// (CopyPropagation.cpp).
bool propagateCopies(ir::Module &M, ir::Function &F);

} // namespace simplify
} // namespace meshad

#endif // MESHAD_SIMPLIFY_PASSES_H
