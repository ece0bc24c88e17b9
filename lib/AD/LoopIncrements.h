//===- AD/LoopIncrements.h - Increments moved into bodies -------*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A for-loop's increment is one assignment, evaluated after every iteration
/// that does not break. When it updates a value that carries a derivative
/// (`t *= x`) or a pointer (`p++`), both modes need room for more than one
/// statement there (a tangent update, an adjoint, a save), so the increment
/// moves into the body: `for (Init; Cond; Inc) Body` becomes
/// `for (Init; Cond;) { Body'; Inc; }`, where Body' runs Inc before each
/// `continue` of this loop. Integer increments stay where they are, so that
/// counted loops keep their recomputable form.
///
/// \code
///   if (const auto *F = llvm::dyn_cast<ir::ForStmt>(S))
///     S = moveIncrementIntoBody(M, F); // same node when nothing moves
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_TRANSFORM_LOOPINCREMENTS_H
#define MESHAD_TRANSFORM_LOOPINCREMENTS_H

#include "IR/IR.h"

namespace meshad {

/// True when \p F's increment updates something other than an integer.
bool hasNonIntegerIncrement(const ir::ForStmt &F);

/// \p F with its increment moved into the body when hasNonIntegerIncrement
/// holds, else \p F itself.
const ir::ForStmt *moveIncrementIntoBody(ir::Module &M, const ir::ForStmt *F);

} // namespace meshad

#endif // MESHAD_TRANSFORM_LOOPINCREMENTS_H
