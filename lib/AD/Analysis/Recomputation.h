//===- AD/Analysis/Recomputation.h - Recompute instead of tape --*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Which loop locals the reverse sweep can recompute from values that do
/// not change while the loop runs backwards, instead of saving them on a
/// per-thread tape (which costs local memory and has a fixed capacity).
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_ANALYSIS_RECOMPUTATION_H
#define MESHAD_ANALYSIS_RECOMPUTATION_H

#include "IR/IR.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <vector>

namespace meshad {

/// Finds the locals of a counted loop's body that the reverse sweep can
/// recompute instead of saving them on a tape: `double dx = px - p[3*k];`
/// declared at the top level of the body, never assigned again, from values
/// that do not change while the loop runs backwards (the loop counters in
/// \p Counters, parameters never assigned, locals assigned once outside
/// every loop, memory the function never writes, and earlier such locals),
/// with pure calls only.
///
/// \code
///   Recomputation R(*Body);            // once per function
///   for (const ir::DeclStmt *D : R.find(*LoopBody, Counters)) ...
/// \endcode
class Recomputation {
public:
  explicit Recomputation(const ir::Stmt &FunctionBody);

  /// True when \p V is a local assigned by one statement, outside every
  /// loop, whose address is never taken: after that statement it keeps its
  /// value.
  bool isDefinedOnceOutsideLoops(const ir::Var *V) const {
    return Defs.lookup(V) == 1 && !DefinedInLoop.count(V) &&
           !AddressTaken.count(V);
  }

  /// True when \p V is a local assigned only by its declaration, whose
  /// address is never taken.
  bool isAssignedOnce(const ir::Var *V) const {
    return Defs.lookup(V) == 1 && !AddressTaken.count(V) && !V->isParam();
  }

  /// True when \p E reads only values that do not change while the loop
  /// runs backwards: \p Known, parameters never assigned, locals assigned
  /// once outside every loop, memory the function never writes (pure calls).
  bool isStable(const ir::Expr *E,
                const llvm::SmallPtrSetImpl<const ir::Var *> &Known) const;

  /// The recomputable declarations of \p LoopBody, in order.
  std::vector<const ir::DeclStmt *>
  find(const ir::BlockStmt &LoopBody,
       const llvm::SmallPtrSetImpl<const ir::Var *> &Counters) const;

private:
  void countDefs(const ir::Stmt *S, unsigned LoopDepth);

  const ir::Stmt &FunctionBody;
  llvm::DenseMap<const ir::Var *, unsigned> Defs;
  llvm::SmallPtrSet<const ir::Var *, 8> DefinedInLoop;
  llvm::SmallPtrSet<const ir::Var *, 8> AddressTaken;
};

} // namespace meshad

#endif // MESHAD_ANALYSIS_RECOMPUTATION_H
