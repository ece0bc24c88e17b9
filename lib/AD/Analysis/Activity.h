//===- AD/Analysis/Activity.h - Which values carry derivatives --*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A variable is active when it is both
/// - varied: a value that depends on the independent variables may flow into
///   it (forward), and
/// - useful: its value may flow into the function's results, i.e. its return
///   value or memory reached through its pointer parameters (backward).
/// Both halves are flow-insensitive fixed points, sound for loops and
/// branches. Pointers that may alias (one assigned from the other) share
/// their activity, and memory written by a call or an atomicAdd with active
/// arguments becomes varied. Inactive variables get no derivative code.
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_ANALYSIS_ACTIVITY_H
#define MESHAD_ANALYSIS_ACTIVITY_H

#include "IR/IR.h"
#include "IR/Intrinsics.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <vector>

namespace meshad {

/// Computes the active variables of one function.
///
/// \code
///   ActivityAnalysis A(F, {X}); // X: the seeded parameter
///   if (A.isActive(SomeExpr)) ...
/// \endcode
class ActivityAnalysis {
public:
  /// \p NotResults: pointer parameters whose memory the caller passes
  /// without derivative memory because it never reads what the function
  /// writes there (a callee's output array that is dead in the caller):
  /// they are not results, so writing active values there needs nothing.
  ActivityAnalysis(
      const ir::Function &F,
      const llvm::SmallPtrSetImpl<const ir::Var *> &Seeds,
      const llvm::SmallPtrSetImpl<const ir::Var *> *NotResults = nullptr);

  bool isActive(const ir::Var *V) const;
  /// The forward half only: V may depend on the independent variables.
  bool isVaried(const ir::Var *V) const;
  /// True when \p E may depend on an active variable and has a
  /// differentiable type (or is a pointer into active memory).
  bool isActive(const ir::Expr *E) const;

  /// True when a value that \p F returns may depend on the independent
  /// variables (the forward half), whatever its type: a struct built from
  /// them, say.
  bool mayReturnVaried(const ir::Function &F) const;

  /// The representative of the variables that may alias \p V's memory
  /// (pointers copied from one another or from an array): the same for all.
  const ir::Var *aliasLeader(const ir::Var *V) const { return leader(V); }

  /// The variable whose storage an lvalue or pointer expression designates
  /// (x for x, x[i], x[i].y, *x, x + 3, &x[2]); null for none.
  static const ir::Var *getRootVar(const ir::Expr *E);

  /// Reports, through \p Error, each global variable that a value carrying
  /// a derivative may be stored into (`G = x * x`, `DeviceArray[0] = x[0]`,
  /// a call writing through `&G`), at its first write in \p F. Derivatives
  /// do not flow through globals: a later read would see a constant, so
  /// each such store is an error, never a silent zero.
  void reportActiveGlobals(
      const ir::Function &F,
      llvm::function_ref<void(clang::SourceLocation, const std::string &)>
          Error) const;

private:
  bool dependsOnActive(const ir::Expr *E) const;
  /// The backward half: which variables may reach a result.
  void computeUseful(
      const ir::Function &F,
      const llvm::SmallPtrSetImpl<const ir::Var *> *NotResults);
  bool usefulStmt(const ir::Stmt *S);
  /// A call (\p E, or null) that may write through a useful pointer:
  /// everything it reads may reach a result, whether or not its value does.
  bool usefulCallWrites(const ir::Expr *E);
  /// An expression statement: a call (usefulCallWrites), or a tape push or
  /// Thrust save whose value is useful where its tape is.
  bool usefulExprStmt(const ir::ExprStmt *S);
  /// Whether \p V is among the useful variables found so far.
  bool markedUseful(const ir::Var *V) const;
  bool markUseful(const ir::Var *V);
  bool markUsefulIn(const ir::Expr *E);
  bool isUseful(const ir::Var *V) const;
  const ir::Var *leader(const ir::Var *V) const;
  void unite(const ir::Var *A, const ir::Var *B);
  bool markActive(const ir::Var *V);
  bool visitBlock(const ir::BlockStmt *B);
  bool visitStmt(const ir::Stmt *S);
  bool visitStore(const ir::Var *Root, const ir::Type *TargetTy,
                  const ir::Expr *RHS);
  bool visitCall(const ir::CallExpr *C);
  /// A call or launch with these arguments may store active values through
  /// any pointer to mutable differentiable memory among them; with a visible
  /// \p Callee (a user function or kernel), only through those its
  /// parameters declare mutable (a `const double *` parameter is only read);
  /// for an intrinsic (\p Info), only through those the table says it
  /// writes (atomicAdd's address, cudaMemcpy's destination).
  bool visitArgs(const std::vector<const ir::Expr *> &Args,
                 const ir::Function *Callee = nullptr,
                 const ir::IntrinsicInfo *Info = nullptr);
  /// The pointers that the user functor \p F of a Thrust call (a bound
  /// call) captures and its operator() may write become active.
  bool visitBoundWrites(const ir::CallExpr *F);

  llvm::SmallPtrSet<const ir::Var *, 16> Active;
  /// Globals that active values may be stored into (reportActiveGlobals).
  llvm::SetVector<const ir::Var *> ActiveGlobals;
  llvm::SmallPtrSet<const ir::Var *, 16> Useful;
  bool UsefulDone = false;
  /// Union-find over pointer variables that may alias.
  mutable llvm::DenseMap<const ir::Var *, const ir::Var *> AliasParent;
};

/// The local arrays passed to the user call \p C without derivative memory
/// (inactive in \p Active: nobody reads them after the call) whose contents
/// the callee's derivative would still carry derivatives through: the callee
/// reads back what it writes there into its results. Forward and reverse
/// mode give each a zeroed local tangent or adjoint array for the call (the
/// caller's results do not depend on its contents). One flag per argument.
std::vector<bool> localArraysCarryingDerivatives(const ir::CallExpr *C,
                                                 const std::vector<bool> &Active);

} // namespace meshad

#endif // MESHAD_ANALYSIS_ACTIVITY_H
