//===- AD/DeadPushforwards.cpp - Pushforwards nobody reads ----------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "AD/DeadPushforwards.h"
#include "AD/Analysis/Activity.h"
#include "AD/Analysis/ReverseNeeds.h"
#include "IR/Clone.h"
#include "IR/Traversal.h"
#include "Simplify/DeadLocals.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace meshad;
using namespace meshad::ir;
using llvm::dyn_cast;

namespace {

using FunctionSet = llvm::SmallPtrSet<const Function *, 8>;

bool sideEffectFree(const Function &F, FunctionSet &Visiting);

/// True when \p S stores only into locals of its function that are not
/// pointers (a local pointer may alias the caller's memory).
bool storesLocally(const Stmt *S) {
  if (llvm::isa<LaunchStmt>(S))
    return false;
  const auto *A = dyn_cast<AssignStmt>(S);
  if (!A)
    return true;
  const Var *Root = ActivityAnalysis::getRootVar(A->getLHS());
  return Root && Root->getStorage() == Var::Storage::Local &&
         !Root->getType()->isPointer();
}

/// True when every call in \p E is pure or of a side-effect-free function.
bool callsArePure(const Expr *E, FunctionSet &Visiting) {
  bool Pure = true;
  forEachExpr(E, [&](const Expr *X) {
    const auto *C = dyn_cast<CallExpr>(X);
    if (!C)
      return;
    if (C->getCalleeKind() != CallExpr::CalleeKind::User)
      Pure &= isPureExpr(C);
    else
      Pure &= C->getUserCallee() &&
              sideEffectFree(*C->getUserCallee(), Visiting);
  });
  return Pure;
}

bool sideEffectFree(const Function &F, FunctionSet &Visiting) {
  // A recursive function is assumed to have effects.
  if (!F.getBody() || !Visiting.insert(&F).second)
    return false;
  bool Pure = true;
  forEachStmt(F.getBody(), [&](const Stmt *S) {
    Pure &= storesLocally(S);
    for (const Expr *E : ownExprs(S))
      Pure &= callsArePure(E, Visiting);
  });
  Visiting.erase(&F);
  return Pure;
}

/// The pair local that \p E reads the value part of (`p.value`), or null.
/// The one place that knows how a pushforward's pair is read in the IR.
const Var *valueOf(const Expr *E) {
  const auto *Mem = dyn_cast<MemberExpr>(E);
  const auto *R = Mem ? dyn_cast<VarRefExpr>(Mem->getBase()) : nullptr;
  return R && !Mem->isArrow() && Mem->getField() == "value" ? R->getVar()
                                                            : nullptr;
}

/// The primal of \p PF when \p PF is a pushforward of it: generated from
/// it, taking its parameters first, returning a pair where it returns a
/// value; both without side effects.
Function *primalOf(const Function *PF, const DerivedFunctionSet &Derived) {
  const DerivedFunction *D = Derived.find(PF);
  Function *P = D ? D->Primal : nullptr;
  if (!P || !P->getReturnType()->isDifferentiableValue() ||
      PF->getReturnType() == P->getReturnType() ||
      PF->getNumParams() < P->getNumParams() || !hasNoSideEffects(*P) ||
      !hasNoSideEffects(*PF))
    return nullptr;
  for (unsigned I = 0; I < P->getNumParams(); ++I)
    if (PF->getParam(I) != P->getParam(I))
      return nullptr;
  return P;
}

/// The pushforward calls `T p = g_pushforward(...)` of \p F whose pair is
/// only read as `p.value`, with their primals.
llvm::DenseMap<const Var *, Function *>
valueOnlyPairs(const Function &F, const DerivedFunctionSet &Derived) {
  llvm::DenseMap<const Var *, Function *> Pairs;
  llvm::DenseMap<const Var *, int> Other;
  forEachStmt(F.getBody(), [&](const Stmt *S) {
    const auto *D = dyn_cast<DeclStmt>(S);
    const auto *C = D ? llvm::dyn_cast_or_null<CallExpr>(D->getInit()) : nullptr;
    if (C && C->getUserCallee() && D->getVar()->getType() == C->getType())
      if (Function *P = primalOf(C->getUserCallee(), Derived))
        Pairs[D->getVar()] = P;
    if (const auto *A = dyn_cast<AssignStmt>(S))
      ++Other[ActivityAnalysis::getRootVar(A->getLHS())];
    for (const Expr *E : ownExprs(S))
      forEachExpr(E, [&](const Expr *X) {
        if (const Var *V = valueOf(X))
          --Other[V]; // Its base is counted below.
        if (const auto *R = dyn_cast<VarRefExpr>(X))
          ++Other[R->getVar()];
      });
  });
  for (auto It = Pairs.begin(); It != Pairs.end();) {
    auto Cur = It++;
    if (Other.lookup(Cur->first) != 0)
      Pairs.erase(Cur);
  }
  return Pairs;
}

/// Replaces the value-only pushforward calls of \p F by primal calls.
unsigned callPrimals(Module &M, Function &F,
                     const DerivedFunctionSet &Derived) {
  llvm::DenseMap<const Var *, Function *> Pairs = valueOnlyPairs(F, Derived);
  if (Pairs.empty())
    return 0;
  llvm::DenseMap<const Var *, Var *> Values;
  for (auto &[Pair, Primal] : Pairs)
    Values[Pair] = M.createVar(Pair->getName(), Primal->getReturnType());
  IRCloner C(M);
  C.setExprHook([&](const Expr *E) -> const Expr * {
    const Var *V = valueOf(E);
    return V && Values.count(V) ? M.create<VarRefExpr>(Values[V]) : nullptr;
  });
  C.setStmtHook([&](const Stmt *S) -> std::optional<const Stmt *> {
    const auto *D = dyn_cast<DeclStmt>(S);
    if (!D || !Pairs.count(D->getVar()))
      return std::nullopt;
    Function *Primal = Pairs[D->getVar()];
    const auto *Call = llvm::cast<CallExpr>(D->getInit());
    std::vector<const Expr *> Args;
    for (unsigned I = 0; I < Primal->getNumParams(); ++I)
      Args.push_back(C.clone(Call->getArg(I)));
    auto *New = M.create<CallExpr>(Primal->getReturnType(), Primal, Args);
    New->setLoc(Call->getLoc());
    auto *Decl = M.create<DeclStmt>(Values[D->getVar()], New);
    Decl->setLoc(D->getLoc());
    return Decl;
  });
  F.setBody(C.cloneBlock(F.getBody()));
  return Pairs.size();
}

/// True for an `if` (or block) whose branches are empty, or hold only such
/// statements, under a condition without effects.
bool doesNothing(const Stmt *S) {
  if (!S)
    return true;
  if (const auto *B = dyn_cast<BlockStmt>(S))
    return llvm::all_of(B->getBody(), doesNothing);
  const auto *If = dyn_cast<IfStmt>(S);
  return If && isPureExpr(If->getCond()) && doesNothing(If->getThen()) &&
         doesNothing(If->getElse());
}

/// Removes the `if`s of \p F left without statements (their pushforward
/// calls gone).
void removeEmptyIfs(Module &M, Function &F) {
  bool Any = false;
  forEachStmt(F.getBody(), [&](const Stmt *S) {
    Any |= llvm::isa<IfStmt>(S) && doesNothing(S);
  });
  if (!Any)
    return;
  IRCloner C(M);
  C.setStmtHook([&](const Stmt *S) -> std::optional<const Stmt *> {
    if (llvm::isa<IfStmt>(S) && doesNothing(S))
      return nullptr;
    return std::nullopt;
  });
  F.setBody(C.cloneBlock(F.getBody()));
}

} // namespace

bool meshad::hasNoSideEffects(const Function &F) {
  FunctionSet Visiting;
  return sideEffectFree(F, Visiting);
}

unsigned meshad::removeDeadPushforwards(Module &M, Function &F,
                                        const DerivedFunctionSet &Derived) {
  if (!F.getBody())
    return 0;
  auto Droppable = [](const CallExpr *C) {
    return C->getUserCallee() && hasNoSideEffects(*C->getUserCallee());
  };
  unsigned N = removeDeadLocals(F, Droppable);
  if (N)
    removeEmptyIfs(M, F);
  N += callPrimals(M, F, Derived);
  return N;
}
