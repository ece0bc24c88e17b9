//===- Simplify/DeadLocals.h - Drop locals nothing reads --------*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A gradient kernel's forward sweep replays the primal, but some of what
/// the primal computes is read by nothing in the gradient: the value stored
/// to a write-only output (which the forward sweep no longer stores), or an
/// accumulator whose only use was that store. This pass removes the scalar
/// locals of a generated function that are never read (a compound
/// assignment's read of its own target does not count), together with the
/// statements that only compute them, when those have no side effects.
///
/// \code
///   removeDeadLocals(*Gradient);   // after the reverse transformer
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_TRANSFORM_DEADLOCALS_H
#define MESHAD_TRANSFORM_DEADLOCALS_H

#include "IR/IR.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace meshad {

/// Calls of user functions whose result may be dropped when nothing reads
/// it (a composed derivative passes the generated functions without side
/// effects: AD/DeadPushforwards.h).
using DroppableCall = llvm::function_ref<bool(const ir::CallExpr *)>;

/// Removes dead scalar locals of \p F and their pure definitions (also
/// those calling a function that \p Droppable accepts), and if-statements
/// left empty whose condition has no effects. Returns how many statements
/// were removed.
unsigned removeDeadLocals(ir::Function &F, DroppableCall Droppable = nullptr);

/// Removes the pure definitions of the locals in \p Only that nothing in
/// \p Scope reads (a reverse mode forward sweep, for the loop locals that
/// the reverse sweep recomputes anyway).
unsigned removeUnreadDefinitions(const ir::BlockStmt *Scope,
                                 const llvm::SmallPtrSetImpl<const ir::Var *> &Only);

} // namespace meshad

#endif // MESHAD_TRANSFORM_DEADLOCALS_H
