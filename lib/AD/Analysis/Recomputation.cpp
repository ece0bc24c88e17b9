//===- AD/Analysis/Recomputation.cpp - Recompute instead of tape ----------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "AD/Analysis/Recomputation.h"
#include "AD/Analysis/Activity.h"
#include "AD/Analysis/ReverseNeeds.h"
#include "IR/Traversal.h"

using namespace meshad;
using namespace meshad::ir;
using llvm::cast;
using llvm::dyn_cast;

Recomputation::Recomputation(const Stmt &FunctionBody)
    : FunctionBody(FunctionBody) {
  countDefs(&FunctionBody, 0);
  forEachStmt(&FunctionBody, [&](const Stmt *S) {
    for (const Expr *E : ownExprs(S))
      forEachExpr(E, [&](const Expr *X) {
        const auto *U = dyn_cast<UnaryExpr>(X);
        if (U && U->getOp() == UnaryOp::AddrOf)
          if (const Var *Root = ActivityAnalysis::getRootVar(U->getSub()))
            AddressTaken.insert(Root);
      });
  });
}

void Recomputation::countDefs(const Stmt *S, unsigned LoopDepth) {
  if (!S)
    return;
  auto Def = [&](const Var *V) {
    ++Defs[V];
    if (LoopDepth > 0)
      DefinedInLoop.insert(V);
  };
  switch (S->getKind()) {
  case Stmt::Kind::Block:
    for (const Stmt *Sub : cast<BlockStmt>(S)->getBody())
      countDefs(Sub, LoopDepth);
    return;
  case Stmt::Kind::Decl:
    if (cast<DeclStmt>(S)->getInit())
      Def(cast<DeclStmt>(S)->getVar());
    return;
  case Stmt::Kind::Assign:
    if (const auto *R = dyn_cast<VarRefExpr>(cast<AssignStmt>(S)->getLHS()))
      Def(R->getVar());
    return;
  case Stmt::Kind::If:
    countDefs(cast<IfStmt>(S)->getThen(), LoopDepth);
    countDefs(cast<IfStmt>(S)->getElse(), LoopDepth);
    return;
  case Stmt::Kind::For: {
    const auto *F = cast<ForStmt>(S);
    countDefs(F->getInit(), LoopDepth);
    countDefs(F->getInc(), LoopDepth + 1);
    countDefs(F->getBody(), LoopDepth + 1);
    return;
  }
  case Stmt::Kind::While:
    countDefs(cast<WhileStmt>(S)->getBody(), LoopDepth + 1);
    return;
  case Stmt::Kind::Do:
    countDefs(cast<DoStmt>(S)->getBody(), LoopDepth + 1);
    return;
  default:
    return;
  }
}


bool Recomputation::isStable(
    const Expr *E, const llvm::SmallPtrSetImpl<const Var *> &Known) const {
  bool Stable = true;
  forEachExpr(E, [&](const Expr *X) {
    if (const auto *R = dyn_cast<VarRefExpr>(X)) {
      const Var *V = R->getVar();
      unsigned N = Defs.lookup(V);
      bool Fixed = V->isGlobal() ||
                   (!AddressTaken.count(V) &&
                    (V->isParam() ? N == 0
                                  : N == 1 && !DefinedInLoop.count(V)));
      if (V->getType()->isPointer())
        Fixed &= V->isParam() && N == 0 && !writesMemoryOf(&FunctionBody, V);
      Stable &= Known.count(V) || Fixed;
    } else if (const auto *C = dyn_cast<CallExpr>(X)) {
      Stable &= C->getCalleeKind() == CallExpr::CalleeKind::Math ||
                (C->getCalleeKind() == CallExpr::CalleeKind::Intrinsic &&
                 isPureIntrinsic(C->getName()));
    } else if (llvm::isa<IndexExpr>(X) ||
               (llvm::isa<UnaryExpr>(X) &&
                cast<UnaryExpr>(X)->getOp() == UnaryOp::Deref)) {
      // Memory: its root must be a pointer parameter the function never
      // writes (checked when the VarRef of the root is visited).
      const Var *Root = ActivityAnalysis::getRootVar(X);
      Stable &= Root && Root->getType()->isPointer();
    } else if (llvm::isa<InitListExpr>(X)) {
      Stable = false;
    }
  });
  return Stable;
}

std::vector<const DeclStmt *> Recomputation::find(
    const BlockStmt &LoopBody,
    const llvm::SmallPtrSetImpl<const Var *> &Counters) const {
  llvm::SmallPtrSet<const Var *, 8> Known(Counters.begin(), Counters.end());
  std::vector<const DeclStmt *> Result;
  for (const Stmt *S : LoopBody.getBody()) {
    const auto *D = dyn_cast<DeclStmt>(S);
    if (!D || !D->getInit())
      continue;
    const Var *V = D->getVar();
    const Type *Ty = V->getType();
    if (Ty->isIndexable() || Defs.lookup(V) != 1 || AddressTaken.count(V) ||
        !isStable(D->getInit(), Known))
      continue;
    Known.insert(V);
    Result.push_back(D);
  }
  return Result;
}

