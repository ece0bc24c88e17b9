//===- AD/ThrustCalls.h - Thrust calls in both modes ----------*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Helpers of forward and reverse mode for calls of Thrust primitives
/// (Rules/ThrustRecipes.def).
///
/// \code
///   const ir::Expr *N = thrustRangeCount(M, B, *Recipe, Call); // n, or b - a
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_AD_THRUSTCALLS_H
#define MESHAD_AD_THRUSTCALLS_H

#include "IR/Builder.h"
#include "IR/IR.h"

namespace meshad {

struct ThrustRecipe;

/// The recipe of a call of a Thrust primitive (an intrinsic
/// `thrust::<name>`, with a user functor or not), or null.
const ThrustRecipe *thrustCallRecipe(const ir::CallExpr *C);

/// A user functor or lambda passed to a Thrust primitive: a call of the
/// lowered operator() that binds the object or the captures
/// (Rules/ThrustRecipes.h), or null.
const ir::CallExpr *asThrustUserFunctor(const ir::Expr *E);

/// The start `a` of a counting iterator argument
/// (`thrust::make_counting_iterator(a)`), or null.
const ir::Expr *countingStart(const ir::Expr *E);

/// The number of elements of the recipe's first range in \p C: `n` for
/// `p, p + n`, `b - a` (folded when both are literals) for `p + a, p + b`,
/// else `last - first`.
const ir::Expr *thrustRangeCount(ir::Module &M, ir::IRBuilder &B,
                                 const ThrustRecipe &R, const ir::CallExpr *C);

} // namespace meshad

#endif // MESHAD_AD_THRUSTCALLS_H
