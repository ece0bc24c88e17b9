//===- AD/DeadPushforwards.h - Pushforwards nobody reads --------*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A composed derivative (meshad::hvp) keeps the forward sweep of the
/// gradient it differentiates, pushforwards of callees included, but it
/// returns neither the function's value nor its gradient: a pushforward
/// call whose result only fed the dropped value is dead. This pass removes,
/// from a generated function,
///   - the calls of side-effect-free functions whose result nobody reads
///     (a pushforward pair with neither part read goes);
///   - the tangent of a pushforward whose `.pushforward` nobody reads: the
///     call becomes a call of the primal, and its `.value` reads the
///     primal's result.
/// A function is side-effect free when it stores only into its own scalar
/// and array locals and calls only pure math, pure intrinsics and
/// side-effect-free functions (no atomics, barriers, tapes or launches).
///
/// \code
///   removeDeadPushforwards(M, *Hvp, Derived);   // after removeDeadLocals
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_TRANSFORM_DEADPUSHFORWARDS_H
#define MESHAD_TRANSFORM_DEADPUSHFORWARDS_H

#include "IR/IR.h"
#include "AD/DerivedFunctions.h"

namespace meshad {

/// True when calling \p F has no effect besides its result.
bool hasNoSideEffects(const ir::Function &F);

/// Removes the dead pushforward calls of \p F (see the file comment).
/// Returns how many statements were removed or rewritten.
unsigned removeDeadPushforwards(ir::Module &M, ir::Function &F,
                                const DerivedFunctionSet &Derived);

} // namespace meshad

#endif // MESHAD_TRANSFORM_DEADPUSHFORWARDS_H
