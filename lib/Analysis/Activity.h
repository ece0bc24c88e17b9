//===- Analysis/Activity.h - Which values carry derivatives ------*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Forward ("varied") activity: a variable is active when a value that
/// depends on the independent variables may flow into it. The analysis is
/// flow-insensitive and iterates to a fixed point, which is sound for loops
/// and branches. Pointers that may alias (one assigned from the other) share
/// their activity, and memory written by a call or an atomicAdd with active
/// arguments becomes active. Inactive variables get no derivative code.
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_ANALYSIS_ACTIVITY_H
#define MESHAD_ANALYSIS_ACTIVITY_H

#include "IR/IR.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace meshad {

/// Computes the active variables of one function.
///
/// \code
///   ActivityAnalysis A(F, {X}); // X: the seeded parameter
///   if (A.isActive(SomeExpr)) ...
/// \endcode
class ActivityAnalysis {
public:
  ActivityAnalysis(const ir::Function &F,
                   const llvm::SmallPtrSetImpl<const ir::Var *> &Seeds);

  bool isActive(const ir::Var *V) const;
  /// True when \p E may depend on an active variable and has a
  /// differentiable type (or is a pointer into active memory).
  bool isActive(const ir::Expr *E) const;

  /// The variable whose storage an lvalue or pointer expression designates
  /// (x for x, x[i], x[i].y, *x, x + 3, &x[2]); null for none.
  static const ir::Var *getRootVar(const ir::Expr *E);

private:
  bool dependsOnActive(const ir::Expr *E) const;
  const ir::Var *leader(const ir::Var *V) const;
  void unite(const ir::Var *A, const ir::Var *B);
  bool markActive(const ir::Var *V);
  bool visitBlock(const ir::BlockStmt *B);
  bool visitStmt(const ir::Stmt *S);
  bool visitStore(const ir::Var *Root, const ir::Type *TargetTy,
                  const ir::Expr *RHS);
  bool visitCall(const ir::CallExpr *C);
  /// A call or launch with these arguments may store active values through
  /// any pointer to mutable differentiable memory among them.
  bool visitArgs(const std::vector<const ir::Expr *> &Args);

  llvm::SmallPtrSet<const ir::Var *, 16> Active;
  /// Union-find over pointer variables that may alias.
  mutable llvm::DenseMap<const ir::Var *, const ir::Var *> AliasParent;
};

} // namespace meshad

#endif // MESHAD_ANALYSIS_ACTIVITY_H
