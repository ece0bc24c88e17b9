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
/// Where the run itself declares a local never written with exactly the
/// call (`double len = sqrt(_t0);`), that declaration moves to the start of
/// the run instead of a new temporary (it reads nothing the run changes).
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
  if (!evaluatedOnce(S))
    return false;
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

/// True when a statement of Body[From, To) names a variable called \p Name.
bool namesVar(const std::vector<const Stmt *> &Body, unsigned From,
              unsigned To, const std::string &Name) {
  bool Found = false;
  for (unsigned I = From; I < To; ++I)
    forEachStmt(Body[I], [&](const Stmt *S) {
      if (const auto *D = dyn_cast<DeclStmt>(S))
        Found |= D->getVar()->getName() == Name;
      for (const Expr *E : ownExprs(S))
        forEachExpr(E, [&](const Expr *X) {
          if (const auto *R = dyn_cast<VarRefExpr>(X))
            Found |= R->getVar()->getName() == Name;
        });
    });
  return Found;
}

/// The index of a declaration in the run that initializes a constant local
/// with exactly the call (`double len = sqrt(_t0);`) and may move to the
/// run's start: nothing before it there names a variable of its name (which
/// the moved declaration would hide). Else -1.
int reusableDecl(const std::vector<const Stmt *> &Body, const Group &G,
                 const VarFacts &Facts) {
  for (unsigned I = G.First; I <= G.Last; ++I) {
    const auto *D = dyn_cast<DeclStmt>(Body[I]);
    if (!D || !D->getInit() || !sameExpr(D->getInit(), G.Key))
      continue;
    const Var *V = D->getVar();
    if (Facts.isPlainLocal(V) && Facts.decls(V) == 1 &&
        Facts.writes(V) == 0 &&
        V->getType()->getUnqualified() == G.Key->getType()->getUnqualified() &&
        !namesVar(Body, G.First, I, V->getName()))
      return I;
  }
  return -1;
}

/// Computes \p G's call once, in a declaration at the start of the run
/// (a new temporary, or a local that the run declares with it), and reads
/// that variable in the rest of the run.
void share(Module &M, std::vector<const Stmt *> &Body, const Group &G,
           NameScope &Names, const VarFacts &Facts) {
  IRBuilder B(M);
  const Stmt *D;
  int Reused = reusableDecl(Body, G, Facts);
  if (Reused >= 0) {
    D = Body[Reused];
    Body.erase(Body.begin() + Reused);
  } else {
    Var *T =
        M.createVar(Names.numbered("_t"), G.Key->getType()->getUnqualified(),
                    Var::Storage::Local, VarRoles::Temporary);
    DeclStmt *New = B.decl(T, G.Key);
    New->setLoc(Body[G.First]->getLoc());
    D = New;
  }
  const Expr *Ref = B.ref(llvm::cast<DeclStmt>(D)->getVar());
  unsigned Last = Reused >= 0 ? G.Last - 1 : G.Last;
  for (unsigned I = G.First; I <= Last; ++I)
    Body[I] = rewriteOwnExprs(M, Body[I], [&](const Expr *E) {
      return replaceTopDown(
          M, E, [&](const Expr *X) { return sameExpr(X, G.Key); }, Ref);
    });
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
      share(M, Body, *G, Names, Facts);
      BlockChanged = true;
    }
    if (BlockChanged)
      Block->setBody(std::move(Body));
    Changed |= BlockChanged;
  }
  return Changed;
}
