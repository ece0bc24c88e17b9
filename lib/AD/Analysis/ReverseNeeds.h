//===- AD/Analysis/ReverseNeeds.h - What the reverse sweep reads --*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The reverse sweep re-reads primal values: what the partials of operators
/// and math functions read (the rule table knows: the operands of products
/// and quotients, arguments, results), indices, pointers. A variable
/// whose value is read there must be saved before the forward sweep
/// overwrites it (and restored in the reverse sweep); any other variable is
/// never saved, which keeps tapes small: `e += w[i] * x[i]` saves nothing.
///
/// Counted loops `for (int i = a; cond; i += s)` whose counter is only
/// changed by the increment, with a and s not changed in the loop, are
/// "canonical": the reverse sweep recomputes i = a + k*s instead of saving
/// it.
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_ANALYSIS_REVERSENEEDS_H
#define MESHAD_ANALYSIS_REVERSENEEDS_H

#include "AD/Analysis/Activity.h"
#include "IR/IR.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringRef.h"

#include "llvm/ADT/SmallPtrSet.h"

#include <optional>
#include <vector>

namespace meshad {

/// A counted loop whose counter the reverse sweep recomputes.
struct CanonicalLoop {
  ir::Var *Counter = nullptr;
  const ir::Expr *Init = nullptr;
  const ir::Expr *Step = nullptr; ///< Signed: negative for --i / i -= s.
  bool Decrement = false;
};

/// Which variables' values the reverse sweep reads.
class ReverseNeeds {
public:
  ReverseNeeds(const ir::BlockStmt &Body, const ActivityAnalysis &Activity);

  /// True when the reverse sweep reads V's value: a scalar's value, an
  /// array's or a pointer's pointee contents.
  /// Memory is tracked per alias class: a store through `p = v + 1`
  /// destroys what the reverse sweep reads through v.
  bool isNeeded(const ir::Var *V) const {
    return V && Needed.count(Activity.aliasLeader(V));
  }
  /// True when the reverse sweep uses the address a pointer variable holds.
  bool isPointerNeeded(const ir::Var *V) const {
    return NeededPointers.count(V);
  }
  /// Whether a store to \p LValue destroys something the reverse sweep
  /// reads (a pointer variable's address, else the stored-to value).
  bool isStoreTargetNeeded(const ir::Expr *LValue) const;

  /// The local that holds the value of \p RHS, the right-hand side of an
  /// assignment, wherever the reverse sweep reads its partials, or null.
  /// Partials that read the result (d exp = r) read it there instead of
  /// recomputing it; the reverse sweep restores the local after RHS's
  /// adjoint. Chosen for a floating local assigned only there, outside
  /// loops, its address never taken, by a rule whose partials may read r,
  /// where RHS does not read the local.
  ir::Var *getResultHolder(const ir::Expr *RHS) const {
    return Holders.lookup(RHS);
  }

  /// The canonical form of \p F, if it has one.
  static std::optional<CanonicalLoop> matchCanonical(const ir::ForStmt &F);

private:
  void visitBlock(const ir::BlockStmt *B);
  void visitStmt(const ir::Stmt *S);
  /// A declaration: a pointer's initializer is read whole, an active
  /// variable's (or a user call's) as its adjoint reads it.
  void visitDecl(const ir::DeclStmt *D);
  /// A store: the target's index and pointer, and what the partials of
  /// `x Op= y` read of x and y.
  void visitAssign(const ir::AssignStmt *A);
  void visitLoop(const ir::Stmt *S);
  /// Marks what evaluating the adjoint of \p E reads; \p Value says whether
  /// E's own value is read.
  void visitExpr(const ir::Expr *E, bool Value);
  /// The cases of visitExpr: a variable (a pointer's address, else its
  /// value), a unary operator (a dereference reads through its root), a
  /// call (by rule, else every argument and a user callee's reads), an
  /// element (its indices, its array).
  void visitVarRef(const ir::VarRefExpr *R, bool Value);
  void visitUnary(const ir::UnaryExpr *U, bool Value);
  void visitCall(const ir::CallExpr *C, bool Value);
  void visitIndex(const ir::IndexExpr *I, bool Value);
  void markAll(const ir::Expr *E);
  /// Marks what the adjoint of \p E, an application of rule \p Id to
  /// \p Ops, reads: the operands and the result its partials read
  /// (Rules/DerivativeRules.h), all operands where \p Value.
  void visitRule(const ir::Expr *E, int Id,
                 llvm::ArrayRef<const ir::Expr *> Ops, bool Value);
  void findResultHolders(const ir::BlockStmt &Body);
  /// Marks the memory that the user call \p C reads through its pointer
  /// arguments.
  void markCalleeReads(const ir::CallExpr *C);
  bool active(const ir::Expr *E) const { return Activity.isActive(E); }

  const ActivityAnalysis &Activity;
  void need(const ir::Var *V) {
    if (V)
      Needed.insert(Activity.aliasLeader(V));
  }
  llvm::SmallPtrSet<const ir::Var *, 16> Needed;
  llvm::SmallPtrSet<const ir::Var *, 8> NeededPointers;
  llvm::DenseMap<const ir::Expr *, ir::Var *> Holders;
};

/// True when \p S (or a statement nested in it) assigns \p V.
bool assignsVar(const ir::Stmt *S, const ir::Var *V);

/// True when \p S writes the memory that the pointer \p V designates:
/// assignments to its elements and atomic operations on them.
bool writesMemoryOf(const ir::Stmt *S, const ir::Var *V);

/// True for intrinsics without side effects or thread interaction (math
/// functions), false for atomics, warp functions, the CUDA runtime...
bool isPureIntrinsic(llvm::StringRef Name);
/// True when evaluating \p E (null: nothing) has no effect besides its
/// value: it calls only math functions and pure intrinsics.
bool isPureExpr(const ir::Expr *E);

/// The pointers among \p Candidates whose memory \p Body only writes:
/// every use is the target of a plain store (`y[i] = v`, `y[i].x = v`) or
/// of an atomic whose result is unused (`atomicAdd(&E[0], e)`). A gradient
/// kernel need not repeat those stores: nothing it computes reads them.
/// With \p Accumulates, `y[i] += v` and `y[i] -= v` count as stores too.
llvm::SmallPtrSet<const ir::Var *, 4>
writeOnlyMemory(const ir::Stmt *Body, llvm::ArrayRef<ir::Var *> Candidates,
                bool Accumulates = false);

} // namespace meshad

#endif // MESHAD_ANALYSIS_REVERSENEEDS_H
