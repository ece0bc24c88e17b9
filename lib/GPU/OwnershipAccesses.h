//===- GPU/OwnershipAccesses.h - Accesses to kernel arrays ------*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The ownership analysis looks at every access to a kernel's pointer
/// parameters together with the conditions known to hold where it executes:
/// the conditions of the enclosing ifs and those of earlier early exits
/// (`if (x >= w || y >= h) return;`, `if (...) continue;`) in the enclosing
/// blocks. A condition that tests a local assigned once (reverse mode's
/// `bool _cond0; ... _cond0 = i > 0 && i < n - 1; ... if (_cond0)`) is the
/// value assigned to it, where that assignment precedes the test.
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_ANALYSIS_OWNERSHIPACCESSES_H
#define MESHAD_ANALYSIS_OWNERSHIPACCESSES_H

#include "IR/IR.h"

#include <deque>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace meshad {
namespace ownership {

/// A condition with the value it has where an access executes; a chain
/// through Parent lists all of them, innermost first.
struct Guard {
  const ir::Expr *Cond;
  bool Holds;
  const Guard *Parent;
};

/// One access to an array parameter.
struct Access {
  /// The expression as written (x[i], &E[0], E + k), for remarks.
  const ir::Expr *Spelled;
  /// The index; null for element 0 (atomicAdd(E, v)).
  const ir::Expr *Index;
  /// The conditions that hold where the access executes (may be null).
  const Guard *Guards;
  /// For the target of an Accumulate of reverse mode: the primal access
  /// whose adjoint it adds to (AssignStmt::getPrimalAccess), else null.
  const ir::Expr *Primal = nullptr;
};

/// Finds every access to the kernel's pointer parameters, and the
/// parameters that escape analysis.
class AccessCollector {
public:
  explicit AccessCollector(const ir::Function &Kernel);

  std::map<const ir::Var *, std::vector<Access>> Accesses;
  std::map<const ir::Var *, std::string> Escapes;
  /// The parameters that an Accumulate adds to.
  std::set<const ir::Var *> Accumulated;

private:
  /// Finds the locals assigned once (GuardDefs).
  void findGuardLocals();
  /// \p Cond, or the value of the once-assigned local it tests (through
  /// `!`, which flips \p Holds).
  const ir::Expr *seeThrough(const ir::Expr *Cond, bool &Holds) const;
  void visitBlock(const ir::BlockStmt *B, const Guard *G);
  void visitStmt(const ir::Stmt *S, const Guard *G);
  /// What is known after \p S when it is `if (c) return;` and the like.
  const Guard *guardAfter(const ir::Stmt *S, const Guard *G);
  const Guard *push(const ir::Expr *Cond, bool Holds, const Guard *G);
  void checkEscapes(const ir::Stmt *S);
  void visit(const ir::Expr *E);
  void record(const ir::Var *P, const ir::Expr *Spelled,
              const ir::Expr *Index);
  /// The target of an atomic: &P[k], &P[k].y, P, P + k.
  bool visitAtomicTarget(const ir::Expr *E);
  void visitCallArgs(const ir::CallExpr *C);
  /// The pointer parameter that \p E designates storage of, or null.
  const ir::Var *paramRoot(const ir::Expr *E) const;
  void escape(const ir::Expr *E, const std::string &Why);

  const ir::Function &Kernel;
  /// The one definition of each local assigned once (its declaration with
  /// a value, or an assignment at the top of the kernel), its address never
  /// taken; and the values of those whose definition has been visited.
  std::map<const ir::Var *, const ir::Stmt *> GuardDefs;
  std::map<const ir::Var *, const ir::Expr *> GuardValues;
  std::deque<Guard> GuardPool;
  /// The guards of the statement being visited.
  const Guard *Current = nullptr;
  /// The target of the Accumulate being visited and its primal access.
  const ir::Expr *AddTarget = nullptr;
  const ir::Expr *AddPrimal = nullptr;
};

} // namespace ownership
} // namespace meshad

#endif // MESHAD_ANALYSIS_OWNERSHIPACCESSES_H
