//===- Simplify/PureCallCSE.cpp - Computing math calls once ---------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A derivative evaluates a math call of the primal again in its partials
/// (`0.5 / sqrt(_t0) * d` next to `len = sqrt(_t0)`). Within one block, a
/// run of statements evaluated in order (declarations, assignments,
/// expression statements, a return or an if's condition) that evaluates a
/// pure math call twice, with nothing between the evaluations that may
/// change what the call reads, gets a temporary declared just before the
/// first evaluation and reads it instead:
///
///   - a statement that writes a variable the call reads ends the run
///     (after its own reads, which see the old value);
///   - a store through a pointer or to memory-reachable variables ends the
///     runs of calls that read memory;
///   - a call with effects (user functions, atomics, barriers, tapes, warp
///     shuffles) and any nested statement (if, loops) end every run.
///
/// Calls in a branch of ?: or right of && / || are not counted (evaluating
/// them first would add work where the branch is not taken).
///
//===----------------------------------------------------------------------===//

#include "IR/Builder.h"
#include "IR/Traversal.h"
#include "Simplify/Passes.h"
#include "Simplify/SimplifyUtils.h"

#include <optional>

using namespace meshad;
using namespace meshad::ir;
using namespace meshad::simplify;
using llvm::dyn_cast;

namespace {

/// The outermost pure math calls \p E evaluates unconditionally.
void collectCalls(const Expr *E, std::vector<const CallExpr *> &Out) {
  if (const auto *C = dyn_cast<CallExpr>(E)) {
    if (C->getCalleeKind() == CallExpr::CalleeKind::Math && isPureExpr(C)) {
      Out.push_back(C);
      return;
    }
  }
  if (const auto *Cond = dyn_cast<ConditionalExpr>(E)) {
    collectCalls(Cond->getCond(), Out);
    return;
  }
  if (const auto *B = dyn_cast<BinaryExpr>(E)) {
    if (B->getOp() == BinaryOp::LAnd || B->getOp() == BinaryOp::LOr) {
      collectCalls(B->getLHS(), Out);
      return;
    }
  }
  for (const Expr *Op : operands(E))
    collectCalls(Op, Out);
}

/// Statements evaluated once, in order, whose calls may be shared.
bool evaluatesInPlace(const Stmt *S) {
  switch (S->getKind()) {
  case Stmt::Kind::Decl:
  case Stmt::Kind::Assign:
  case Stmt::Kind::ExprStmt:
  case Stmt::Kind::Return:
  case Stmt::Kind::If:
    break;
  default:
    return false;
  }
  for (const Expr *E : ownExprs(S))
    if (!isPureExpr(E))
      return false;
  return true;
}

/// A call evaluated in statements First..Last of a run, Count times.
struct Group {
  const CallExpr *Key;
  ReadSet Reads;
  unsigned First, Last, Count;
};

/// The first call that a run of \p Body evaluates twice.
std::optional<Group> findRepeated(const std::vector<const Stmt *> &Body,
                                  const VarFacts &Facts) {
  std::vector<Group> Open;
  for (unsigned I = 0; I < Body.size(); ++I) {
    const Stmt *S = Body[I];
    std::vector<const CallExpr *> Calls;
    if (evaluatesInPlace(S))
      for (const Expr *E : ownExprs(S))
        collectCalls(E, Calls);
    for (const CallExpr *C : Calls) {
      auto It = llvm::find_if(
          Open, [&](const Group &G) { return sameExpr(G.Key, C); });
      if (It == Open.end()) {
        Open.push_back({C, readsOf(C, Facts), I, I, 1});
        continue;
      }
      It->Last = I;
      ++It->Count;
    }
    // The runs S ends: its writes happen after its own reads.
    WriteSet W = writesOf(S, Facts);
    std::vector<Group> Still;
    for (const Group &G : Open) {
      if (!interferes(W, G.Reads))
        Still.push_back(G);
      else if (G.Count > 1)
        return G;
    }
    Open = std::move(Still);
  }
  for (const Group &G : Open)
    if (G.Count > 1)
      return G;
  return std::nullopt;
}

/// Declares a temporary for \p G's call and reads it in the run.
void share(Module &M, std::vector<const Stmt *> &Body, const Group &G,
           NameScope &Names) {
  IRBuilder B(M);
  Var *T = M.createVar(Names.numbered("_t"),
                       G.Key->getType()->getUnqualified());
  const Expr *Ref = B.ref(T);
  for (unsigned I = G.First; I <= G.Last; ++I)
    Body[I] = rewriteOwnExprs(M, Body[I], [&](const Expr *E) {
      return replaceTopDown(
          M, E, [&](const Expr *X) { return sameExpr(X, G.Key); }, Ref);
    });
  DeclStmt *D = B.decl(T, G.Key);
  D->setLoc(Body[G.First]->getLoc());
  Body.insert(Body.begin() + G.First, D);
}

} // namespace

bool simplify::shareMathCalls(Module &M, Function &F, NameScope &Names) {
  if (!F.getBody())
    return false;
  VarFacts Facts(F);
  bool Changed = false;
  for (BlockStmt *Block : blocksOf(F)) {
    std::vector<const Stmt *> Body = Block->getBody();
    bool BlockChanged = false;
    while (std::optional<Group> G = findRepeated(Body, Facts)) {
      share(M, Body, *G, Names);
      BlockChanged = true;
    }
    if (BlockChanged)
      Block->setBody(std::move(Body));
    Changed |= BlockChanged;
  }
  return Changed;
}
