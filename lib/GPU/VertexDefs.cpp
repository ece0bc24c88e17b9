//===- GPU/VertexDefs.cpp - Index loads held by locals --------------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "GPU/VertexDefs.h"
#include "Analysis/IRWalk.h"
#include "IR/Traversal.h"

#include "llvm/ADT/STLExtras.h"

#include <set>

using namespace meshad;
using namespace meshad::ir;
using llvm::dyn_cast;
using llvm::dyn_cast_or_null;

/// The local a statement assigns (declaration or assignment of a variable).
static const Var *assignedVar(const Stmt *S) {
  if (const auto *D = dyn_cast<DeclStmt>(S))
    return D->getVar();
  const auto *A = dyn_cast<AssignStmt>(S);
  const auto *R = A ? dyn_cast<VarRefExpr>(A->getLHS()) : nullptr;
  return R ? R->getVar() : nullptr;
}

/// Every local that \p S (at any depth) assigns.
static std::set<const Var *> assignedIn(const Stmt *S) {
  std::set<const Var *> Vars;
  if (S)
    forEachStmt(S, [&](const Stmt *X) {
      if (const Var *V = assignedVar(X))
        Vars.insert(V);
    });
  return Vars;
}

/// True when \p E reads the variable \p V.
static bool reads(const Expr *E, const Var *V) {
  bool Found = false;
  forEachExpr(E, [&](const Expr *X) {
    const auto *R = dyn_cast<VarRefExpr>(X);
    Found |= R && R->getVar() == V;
  });
  return Found;
}

VertexDefs::VertexDefs(const Function &F, const Var *Index,
                       const llvm::DenseSet<const Stmt *> &At)
    : Index(Index), Targets(At) {
  forEachStmt(F.getBody(), [&](const Stmt *S) {
    const auto *D = dyn_cast<DeclStmt>(S);
    if (const Var *V = assignedVar(S); V && (!D || D->getInit()))
      ++DefCount[V];
    for (const Expr *E : ownExprs(S))
      forEachExpr(E, [&](const Expr *X) {
        const auto *U = dyn_cast<UnaryExpr>(X);
        if (U && U->getOp() == UnaryOp::AddrOf)
          if (const auto *R = dyn_cast<VarRefExpr>(U->getSub()))
            AddressTaken.insert(R->getVar());
      });
  });
  State S;
  walkBlock(F.getBody(), S);
}

const Expr *VertexDefs::loadAt(const Stmt *S, const Var *V) const {
  auto It = Recorded.find(S);
  if (It == Recorded.end())
    return nullptr;
  auto Load = It->second.find(V);
  return Load == It->second.end() ? nullptr : Load->second;
}

void VertexDefs::kill(State &S, const Var *V) {
  for (auto It = S.begin(); It != S.end();)
    if (It->first == V || reads(It->second.Load, V))
      It = S.erase(It);
    else
      ++It;
}

std::optional<VertexDefs::Cond> VertexDefs::condOf(const Expr *E) const {
  bool Positive = true;
  E = irwalk::stripCasts(E);
  if (const auto *U = dyn_cast<UnaryExpr>(E); U && U->getOp() == UnaryOp::Not) {
    Positive = false;
    E = irwalk::stripCasts(U->getSub());
  }
  const auto *R = dyn_cast<VarRefExpr>(E);
  if (!R || R->getVar()->isParam() || DefCount.lookup(R->getVar()) != 1 ||
      AddressTaken.count(R->getVar()))
    return std::nullopt;
  return Cond{R->getVar(), Positive};
}

void VertexDefs::assign(const Var *V, const Expr *Value, State &S) {
  kill(S, V);
  const auto *Load = dyn_cast_or_null<IndexExpr>(
      Value ? irwalk::stripCasts(Value) : nullptr);
  const auto *Base = Load ? dyn_cast<VarRefExpr>(Load->getBase()) : nullptr;
  if (Base && Base->getVar() == Index && !AddressTaken.count(V) &&
      !reads(Load, V))
    S[V] = Known{Value, Active};
}

void VertexDefs::walkBlock(const BlockStmt *B, State &S) {
  if (B)
    for (const Stmt *St : B->getBody())
      walkStmt(St, S);
}

void VertexDefs::walkStmt(const Stmt *St, State &S) {
  if (!St)
    return;
  if (Targets.count(St)) {
    auto &Here = Recorded[St];
    auto Holds = [&](const Cond &C) { return llvm::is_contained(Active, C); };
    for (const auto &[V, K] : S)
      if (llvm::all_of(K.Guards, Holds))
        Here[V] = K.Load;
  }
  if (const auto *D = dyn_cast<DeclStmt>(St))
    return assign(D->getVar(), D->getInit(), S);
  if (const auto *A = dyn_cast<AssignStmt>(St)) {
    if (const Var *V = assignedVar(St))
      assign(V, A->getOp() == AssignOp::Assign ? A->getRHS() : nullptr, S);
    return;
  }
  if (const auto *B = dyn_cast<BlockStmt>(St))
    return walkBlock(B, S);
  if (const auto *If = dyn_cast<IfStmt>(St))
    return walkIf(If, S);
  if (const auto *For = dyn_cast<ForStmt>(St))
    return walkLoop(For->getInit(), For->getBody(), St, S);
  if (const auto *W = dyn_cast<WhileStmt>(St))
    return walkLoop(nullptr, W->getBody(), St, S);
  if (const auto *D = dyn_cast<DoStmt>(St))
    return walkLoop(nullptr, D->getBody(), St, S);
}

void VertexDefs::walkIf(const IfStmt *If, State &S) {
  std::optional<Cond> C = condOf(If->getCond());
  State Then = S, Else = S;
  if (C)
    Active.push_back(*C);
  walkBlock(If->getThen(), Then);
  if (C)
    Active.back().second = !C->second;
  walkBlock(If->getElse(), Else);
  if (C)
    Active.pop_back();
  std::set<const Var *> InThen = assignedIn(If->getThen());
  std::set<const Var *> InElse = assignedIn(If->getElse());
  for (const Var *V : InThen)
    kill(S, V);
  for (const Var *V : InElse)
    kill(S, V);
  if (!C)
    return;
  // A load assigned in one branch only stays known where its condition
  // holds (it is in the load's guards).
  auto Keep = [&](const State &Branch, const std::set<const Var *> &Other,
                  Cond Holds) {
    for (const auto &[V, K] : Branch)
      if (!Other.count(V) && llvm::is_contained(K.Guards, Holds) &&
          !S.count(V))
        S[V] = K;
  };
  Keep(Then, InElse, *C);
  Keep(Else, InThen, Cond{C->first, !C->second});
}

void VertexDefs::walkLoop(const Stmt *Init, const BlockStmt *Body,
                          const Stmt *Loop, State &S) {
  walkStmt(Init, S);
  std::set<const Var *> Changed = assignedIn(Loop);
  for (const Var *V : Changed)
    kill(S, V);
  State Inside = S;
  walkBlock(Body, Inside);
}
