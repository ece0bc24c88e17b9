//===- Simplify/SimplifyUtils.h - What the simplifier's rules share -*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The facts and rewriting helpers that the simplifier's rules share:
/// syntactic equality of expressions, purity, what an expression reads and
/// a statement writes, per-variable counts over a whole function
/// (declarations, writes, reads, address taken), and rewriting the
/// expressions of statements in place (expressions are immutable: a
/// rewritten statement is a new node in the same block).
///
/// \code
///   simplify::VarFacts Facts(F);
///   if (Facts.isConstantCandidate(V)) ...
///   simplify::rewriteFunctionExprs(M, F, [&](const ir::Expr *E) {
///     return simplify::replaceTopDown(M, E, Pred, Repl);
///   });
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_SIMPLIFY_SIMPLIFYUTILS_H
#define MESHAD_SIMPLIFY_SIMPLIFYUTILS_H

#include "AD/Analysis/ReverseNeeds.h"
#include "IR/IR.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <vector>

namespace meshad {
namespace simplify {

using VarSet = llvm::SmallPtrSet<const ir::Var *, 8>;

/// Syntactic equality: same shape, types, operators, literals (bit for bit)
/// and variables.
bool sameExpr(const ir::Expr *A, const ir::Expr *B);

/// meshad::isPureExpr (AD/Analysis/ReverseNeeds.h): math functions and pure
/// intrinsics only (no user calls, atomics, shuffles, barriers, tapes).
using meshad::isPureExpr;

/// True for the statements whose own expressions run once, where they
/// stand: declarations, assignments, expression statements, returns and an
/// if's condition (not loops, whose conditions repeat).
bool evaluatedOnce(const ir::Stmt *S);

/// True for a literal (float or integer, possibly under casts) equal to \p V.
bool isLiteralValue(const ir::Expr *E, double V);

/// True for the scalar arithmetic types the folds apply to.
bool isScalarArithmetic(const ir::Type *T);

/// The variable a store to \p LHS writes (through components and elements
/// of a local array), or null when the store goes through a pointer.
const ir::Var *storedVar(const ir::Expr *LHS);

/// Per-variable facts of one function, counted over every statement.
class VarFacts {
public:
  explicit VarFacts(const ir::Function &F);

  unsigned decls(const ir::Var *V) const { return get(Decls, V); }
  unsigned writes(const ir::Var *V) const { return get(Writes, V); }
  unsigned reads(const ir::Var *V) const { return get(Reads, V); }
  /// Its address is taken, or it is passed by name to an intrinsic other
  /// than an atomic's operand (which may bind it to a reference), or it is
  /// an array.
  bool escapes(const ir::Var *V) const { return Escaping.count(V); }
  /// A scalar local only this function's own statements can change.
  bool isPlainLocal(const ir::Var *V) const;

private:
  static unsigned get(const llvm::DenseMap<const ir::Var *, unsigned> &Map,
                      const ir::Var *V) {
    auto It = Map.find(V);
    return It == Map.end() ? 0 : It->second;
  }
  void countExpr(const ir::Expr *E);

  llvm::DenseMap<const ir::Var *, unsigned> Decls, Writes, Reads;
  VarSet Escaping;
};

/// What evaluating an expression reads: variables by name, and whether it
/// reads memory (loads, and variables that memory writes may change).
struct ReadSet {
  VarSet Vars;
  bool Memory = false;
};
ReadSet readsOf(const ir::Expr *E, const VarFacts &Facts);

/// What executing a straight-line statement may change.
struct WriteSet {
  VarSet Vars;
  bool Memory = false;
  /// A call with effects (user call, atomic, barrier, tape): anything.
  bool Everything = false;
};
WriteSet writesOf(const ir::Stmt *S, const VarFacts &Facts);

/// True when \p W may change a value that \p R reads.
bool interferes(const WriteSet &W, const ReadSet &R);

/// \p E with every subexpression for which \p Match holds (outermost
/// first) replaced by \p Replacement; \p E itself when nothing matched.
const ir::Expr *
replaceTopDown(ir::Module &M, const ir::Expr *E,
               llvm::function_ref<bool(const ir::Expr *)> Match,
               const ir::Expr *Replacement);

/// \p E rebuilt bottom-up, \p Post applied to every node after its
/// operands (it returns the node or its replacement).
const ir::Expr *
rebuildBottomUp(ir::Module &M, const ir::Expr *E,
                llvm::function_ref<const ir::Expr *(const ir::Expr *)> Post);

using ExprRewrite = llvm::function_ref<const ir::Expr *(const ir::Expr *)>;

/// \p S with \p Rewrite applied to the expressions it evaluates itself (and
/// to those of a for's init and increment); \p S when nothing changed.
const ir::Stmt *rewriteOwnExprs(ir::Module &M, const ir::Stmt *S,
                                ExprRewrite Rewrite);

/// Every block of \p F's body, outermost first.
std::vector<ir::BlockStmt *> blocksOf(const ir::Function &F);

/// Applies \p Rewrite to every expression of \p F. Returns true on a change.
bool rewriteFunctionExprs(ir::Module &M, ir::Function &F,
                          ExprRewrite Rewrite);

} // namespace simplify
} // namespace meshad

#endif // MESHAD_SIMPLIFY_SIMPLIFYUTILS_H
