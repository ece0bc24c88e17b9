//===- Simplify/CopyPropagation.cpp - Inlining single-use temporaries -----===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// `double _r3 = e; ... use(_r3);` becomes `... use(e);` when
///
///   - _r3 is a generated scalar local (its name starts with '_'), declared
///     once, never written, its address never taken, read exactly once in
///     the whole function, and not passed by name to a call (a reference);
///   - e is pure (no call with effects), of _r3's type (no conversion is
///     lost), and does not read _r3;
///   - the read is in a later statement of the same block, in what that
///     statement evaluates once itself (a declaration, an assignment, an
///     expression statement, a return, an if's condition), never in a loop
///     condition or a nested statement: e is not moved into a loop nor
///     evaluated more often;
///   - nothing between the declaration and the read may change what e
///     reads: no write to a variable it reads, no store to memory when it
///     reads memory, no call with effects (barriers, atomics, user calls),
///     no nested statement.
///
//===----------------------------------------------------------------------===//

#include "IR/Traversal.h"
#include "Simplify/Passes.h"
#include "Simplify/SimplifyUtils.h"

using namespace meshad;
using namespace meshad::ir;
using namespace meshad::simplify;
using llvm::dyn_cast;

namespace {

bool readsVar(const Expr *E, const Var *V) {
  bool Found = false;
  forEachExpr(E, [&](const Expr *X) {
    if (const auto *R = dyn_cast<VarRefExpr>(X))
      Found |= R->getVar() == V;
  });
  return Found;
}

bool ownExprsRead(const Stmt *S, const Var *V) {
  for (const Expr *E : ownExprs(S))
    if (readsVar(E, V))
      return true;
  return false;
}

bool anyStmtReads(const Stmt *S, const Var *V) {
  bool Found = false;
  forEachStmt(S, [&](const Stmt *X) { Found |= ownExprsRead(X, V); });
  return Found;
}

/// True when the declaration \p D may be inlined at all.
bool isCandidate(const DeclStmt *D, const VarFacts &Facts) {
  const Var *V = D->getVar();
  const Expr *E = D->getInit();
  return E && !V->getName().empty() && V->getName()[0] == '_' &&
         Facts.isPlainLocal(V) && Facts.decls(V) == 1 &&
         Facts.writes(V) == 0 && Facts.reads(V) == 1 && isPureExpr(E) &&
         E->getType()->getUnqualified() == V->getType()->getUnqualified() &&
         !readsVar(E, V);
}

/// The index of the statement after \p I in \p Body that reads the
/// declared variable and may take its initializer, or 0.
size_t useSite(const std::vector<const Stmt *> &Body, size_t I,
               const VarFacts &Facts) {
  const auto *D = llvm::cast<DeclStmt>(Body[I]);
  ReadSet Reads = readsOf(D->getInit(), Facts);
  for (size_t J = I + 1; J < Body.size(); ++J) {
    const Stmt *S = Body[J];
    if (evaluatedOnce(S) && ownExprsRead(S, D->getVar()))
      return J;
    if (anyStmtReads(S, D->getVar()) ||
        interferes(writesOf(S, Facts), Reads))
      return 0;
  }
  return 0;
}

/// Inlines one temporary of \p Body; true when it did.
bool inlineOne(Module &M, std::vector<const Stmt *> &Body,
               const VarFacts &Facts) {
  for (size_t I = 0; I < Body.size(); ++I) {
    const auto *D = dyn_cast<DeclStmt>(Body[I]);
    if (!D || !isCandidate(D, Facts))
      continue;
    size_t J = useSite(Body, I, Facts);
    if (!J)
      continue;
    const Var *V = D->getVar();
    Body[J] = rewriteOwnExprs(M, Body[J], [&](const Expr *E) {
      return replaceTopDown(
          M, E,
          [&](const Expr *X) {
            const auto *R = dyn_cast<VarRefExpr>(X);
            return R && R->getVar() == V;
          },
          D->getInit());
    });
    Body.erase(Body.begin() + I);
    return true;
  }
  return false;
}

} // namespace

bool simplify::propagateCopies(Module &M, Function &F) {
  if (!F.getBody())
    return false;
  bool Changed = false;
  for (BlockStmt *Block : blocksOf(F)) {
    std::vector<const Stmt *> Body = Block->getBody();
    bool BlockChanged = false;
    // The facts change with each inlining: recount after each.
    while (inlineOne(M, Body, VarFacts(F))) {
      Block->setBody(Body);
      BlockChanged = true;
    }
    Changed |= BlockChanged;
  }
  return Changed;
}
