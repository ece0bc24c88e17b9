//===- AD/Reverse/DeviceBufferHistory.cpp - Writes to device buffers ------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "AD/Reverse/DeviceBufferHistory.h"
#include "AD/Analysis/ReverseNeeds.h"
#include "IR/Traversal.h"

using namespace meshad;
using namespace meshad::ir;
using llvm::cast;
using llvm::dyn_cast;

DeviceBufferHistory::DeviceBufferHistory(const Function &F,
                                         const BlockStmt &Body,
                                         const ActivityAnalysis &Activity)
    : Activity(Activity) {
  for (const Var *P : F.getParams())
    FromParams.insert(leader(P));
  walk(&Body, -1);
  for (const LaunchStmt *L : Launches) {
    const Function &K = *L->getKernel();
    for (unsigned I = 0; I < L->getArgs().size() && I < K.getNumParams(); ++I)
      if (K.getParam(I)->getType()->isPointer() && readsParam(K, I)) {
        const Var *Root = ActivityAnalysis::getRootVar(L->getArgs()[I]);
        if (writtenFrom(L, Root))
          Candidates.insert(leader(Root));
      }
  }
}

const Var *DeviceBufferHistory::leader(const Var *V) const {
  return V ? Activity.aliasLeader(V) : nullptr;
}

void DeviceBufferHistory::walk(const Stmt *S, int LoopStart) {
  if (!S)
    return;
  unsigned Index = Next++;
  auto Nested = [&](const Stmt *Sub, bool Loop) {
    walk(Sub, Loop && LoopStart < 0 ? int(Index) : LoopStart);
  };
  switch (S->getKind()) {
  case Stmt::Kind::Block:
    for (const Stmt *Sub : cast<BlockStmt>(S)->getBody())
      walk(Sub, LoopStart);
    return;
  case Stmt::Kind::If:
    recordWrites(S, Index);
    Nested(cast<IfStmt>(S)->getThen(), false);
    Nested(cast<IfStmt>(S)->getElse(), false);
    return;
  case Stmt::Kind::For:
    Nested(cast<ForStmt>(S)->getInit(), false);
    recordWrites(S, Index);
    Nested(cast<ForStmt>(S)->getInc(), true);
    Nested(cast<ForStmt>(S)->getBody(), true);
    return;
  case Stmt::Kind::While:
    recordWrites(S, Index);
    Nested(cast<WhileStmt>(S)->getBody(), true);
    return;
  case Stmt::Kind::Do:
    recordWrites(S, Index);
    Nested(cast<DoStmt>(S)->getBody(), true);
    return;
  case Stmt::Kind::Launch: {
    const auto *L = cast<LaunchStmt>(S);
    Launches.push_back(L);
    From[L] = LoopStart < 0 ? Index : unsigned(LoopStart);
    const Function &K = *L->getKernel();
    for (unsigned I = 0; I < L->getArgs().size(); ++I)
      if (I >= K.getNumParams() || kernelMayWrite(K, I))
        recordWrite(L->getArgs()[I], Index);
    return;
  }
  default:
    recordWrites(S, Index);
    return;
  }
}

/// The writes \p S makes itself: assignments, and calls that may write
/// through a pointer argument (cudaMalloc, cudaMemcpy, cudaMemset, Thrust,
/// user functions: every pointer argument to non-const memory).
void DeviceBufferHistory::recordWrites(const Stmt *S, unsigned Index) {
  if (const auto *A = dyn_cast<AssignStmt>(S))
    recordWrite(A->getLHS(), Index);
  for (const Expr *E : ownExprs(S))
    forEachExpr(E, [&](const Expr *X) {
      const auto *C = dyn_cast<CallExpr>(X);
      if (!C || C->getCalleeKind() == CallExpr::CalleeKind::Math)
        return;
      if (C->getName() == "cudaFree")
        return;
      for (const Expr *Arg : C->getArgs()) {
        const Type *Ty = Arg->getType();
        if (Ty->isPointer() && !Ty->getElement()->isConst())
          recordWrite(Arg, Index);
      }
    });
}

void DeviceBufferHistory::recordWrite(const Expr *Target, unsigned Index) {
  if (const Var *Root = ActivityAnalysis::getRootVar(Target))
    Writes.push_back({Index, leader(Root)});
}

bool DeviceBufferHistory::writtenFrom(const LaunchStmt *L,
                                      const Var *Root) const {
  auto It = From.find(L);
  if (!Root || It == From.end())
    return false;
  const Var *Buffer = leader(Root);
  for (const auto &[Index, Written] : Writes)
    if (Index >= It->second && Written == Buffer)
      return true;
  return false;
}

bool DeviceBufferHistory::callerVisible(const Var *Root) const {
  return Root && (Root->isParam() || FromParams.count(leader(Root)));
}

/// True when \p P's value leaves the kernel's sight: passed to a call that
/// is not a math function, or copied into another pointer.
static bool escapes(const Function &K, const Var *P) {
  bool Escapes = false;
  auto RootIsP = [&](const Expr *E) {
    return E && E->getType()->isPointer() &&
           ActivityAnalysis::getRootVar(E) == P;
  };
  forEachStmt(K.getBody(), [&](const Stmt *S) {
    if (const auto *D = dyn_cast<DeclStmt>(S))
      Escapes |= RootIsP(D->getInit());
    if (const auto *A = dyn_cast<AssignStmt>(S))
      Escapes |= RootIsP(A->getRHS());
    for (const Expr *E : ownExprs(S))
      forEachExpr(E, [&](const Expr *X) {
        const auto *C = dyn_cast<CallExpr>(X);
        if (C && C->getCalleeKind() != CallExpr::CalleeKind::Math)
          for (const Expr *Arg : C->getArgs())
            Escapes |= RootIsP(Arg);
      });
  });
  return Escapes;
}

bool DeviceBufferHistory::kernelMayWrite(const Function &K, unsigned I) {
  const Var *P = K.getParam(I);
  if (!P->getType()->isPointer())
    return false;
  if (P->getType()->getElement()->isConst())
    return false;
  return writesMemoryOf(K.getBody(), P) || escapes(K, P);
}

bool DeviceBufferHistory::readsParam(const Function &F, unsigned I) {
  Var *P = F.getParam(I);
  bool Used = false;
  forEachStmt(F.getBody(), [&](const Stmt *S) {
    for (const Expr *E : ownExprs(S))
      forEachExpr(E, [&](const Expr *X) {
        const auto *R = dyn_cast<VarRefExpr>(X);
        Used |= R && R->getVar() == P;
      });
  });
  if (!Used)
    return false;
  Var *Candidates[] = {P};
  return !writeOnlyMemory(F.getBody(), Candidates, /*Accumulates=*/true)
              .count(P);
}
