//===- IR/Clone.cpp - Copying IR with substitutions -----------------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "IR/Clone.h"

using namespace meshad;
using namespace meshad::ir;
using llvm::cast;

Var *IRCloner::freshVar(const Var *V) {
  Var *N =
      M.createVar(V->getName(), V->getType(), V->getStorage(), V->getRoles());
  N->setAssertedExclusive(V->isAssertedExclusive());
  Vars[V] = N;
  return N;
}

Var *IRCloner::mapVar(Var *V) const {
  auto It = Vars.find(V);
  return It == Vars.end() ? V : It->second;
}

const Expr *IRCloner::clone(const Expr *E) {
  if (!E)
    return nullptr;
  if (OnExpr)
    if (const Expr *R = OnExpr(E))
      return R;
  const Expr *C = cloneUncached(E);
  if (C != E)
    const_cast<Expr *>(C)->setLoc(E->getLoc());
  return C;
}

const Expr *IRCloner::cloneUncached(const Expr *E) {
  switch (E->getKind()) {
  case Expr::Kind::FloatLit:
  case Expr::Kind::IntLit:
  case Expr::Kind::BoolLit:
  case Expr::Kind::Builtin:
    return E;
  case Expr::Kind::VarRef: {
    Var *V = cast<VarRefExpr>(E)->getVar();
    Var *N = mapVar(V);
    return N == V ? E : M.create<VarRefExpr>(N);
  }
  case Expr::Kind::Unary: {
    const auto *U = cast<UnaryExpr>(E);
    return M.create<UnaryExpr>(U->getType(), U->getOp(), clone(U->getSub()));
  }
  case Expr::Kind::Binary: {
    const auto *B = cast<BinaryExpr>(E);
    return M.create<BinaryExpr>(B->getType(), B->getOp(), clone(B->getLHS()),
                                clone(B->getRHS()));
  }
  case Expr::Kind::Conditional: {
    const auto *C = cast<ConditionalExpr>(E);
    return M.create<ConditionalExpr>(C->getType(), clone(C->getCond()),
                                     clone(C->getTrue()),
                                     clone(C->getFalse()));
  }
  case Expr::Kind::Call:
    return cloneCall(cast<CallExpr>(E));
  case Expr::Kind::Index: {
    const auto *I = cast<IndexExpr>(E);
    return M.create<IndexExpr>(I->getType(), clone(I->getBase()),
                               clone(I->getIndex()));
  }
  case Expr::Kind::Member: {
    const auto *Mb = cast<MemberExpr>(E);
    return M.create<MemberExpr>(Mb->getType(), clone(Mb->getBase()),
                                Mb->getField(), Mb->isArrow());
  }
  case Expr::Kind::Cast: {
    const auto *C = cast<CastExpr>(E);
    return M.create<CastExpr>(C->getType(), clone(C->getSub()));
  }
  case Expr::Kind::InitList: {
    std::vector<const Expr *> Elems;
    for (const Expr *X : cast<InitListExpr>(E)->getElements())
      Elems.push_back(clone(X));
    return M.create<InitListExpr>(E->getType(), std::move(Elems));
  }
  }
  return E;
}

const Expr *IRCloner::cloneCall(const CallExpr *C) {
  std::vector<const Expr *> Args;
  for (const Expr *A : C->getArgs())
    Args.push_back(clone(A));
  if (C->getCalleeKind() == CallExpr::CalleeKind::User)
    return M.create<CallExpr>(C->getType(), C->getUserCallee(),
                              std::move(Args));
  return M.create<CallExpr>(C->getType(), C->getCalleeKind(), C->getName(),
                            C->getMathId(), std::move(Args));
}

const Stmt *IRCloner::clone(const Stmt *S) {
  if (!S)
    return nullptr;
  if (OnStmt)
    if (std::optional<const Stmt *> R = OnStmt(S))
      return *R;
  const Stmt *C = cloneUnhooked(S);
  if (C)
    const_cast<Stmt *>(C)->setLoc(S->getLoc());
  return C;
}

BlockStmt *IRCloner::cloneBlock(const BlockStmt *B) {
  if (!B)
    return nullptr;
  auto *Out = M.create<BlockStmt>();
  for (const Stmt *S : B->getBody()) {
    const Stmt *C = clone(S);
    // A statement replaced by several goes in their place, without braces.
    const auto *Group = llvm::dyn_cast_or_null<BlockStmt>(C);
    if (Group && !llvm::isa<BlockStmt>(S)) {
      for (const Stmt *X : Group->getBody())
        Out->append(X);
    } else if (C) {
      Out->append(C);
    }
  }
  Out->setLoc(B->getLoc());
  return Out;
}

const Stmt *IRCloner::cloneUnhooked(const Stmt *S) {
  switch (S->getKind()) {
  case Stmt::Kind::Block:
    return cloneBlock(cast<BlockStmt>(S));
  case Stmt::Kind::Decl: {
    const auto *D = cast<DeclStmt>(S);
    return M.create<DeclStmt>(mapVar(D->getVar()), clone(D->getInit()));
  }
  case Stmt::Kind::Assign: {
    const auto *A = cast<AssignStmt>(S);
    auto *Copy = M.create<AssignStmt>(clone(A->getLHS()), A->getOp(),
                                      clone(A->getRHS()));
    Copy->setSeedReset(A->isSeedReset());
    Copy->setPrimalAccess(A->getPrimalAccess());
    return Copy;
  }
  case Stmt::Kind::ExprStmt:
    return M.create<ExprStmt>(clone(cast<ExprStmt>(S)->getExpr()));
  case Stmt::Kind::If: {
    const auto *I = cast<IfStmt>(S);
    return M.create<IfStmt>(clone(I->getCond()), cloneBlock(I->getThen()),
                            cloneBlock(I->getElse()));
  }
  case Stmt::Kind::For: {
    const auto *F = cast<ForStmt>(S);
    return M.create<ForStmt>(clone(F->getInit()), clone(F->getCond()),
                             clone(F->getInc()), cloneBlock(F->getBody()));
  }
  case Stmt::Kind::While: {
    const auto *W = cast<WhileStmt>(S);
    return M.create<WhileStmt>(clone(W->getCond()), cloneBlock(W->getBody()));
  }
  case Stmt::Kind::Do: {
    const auto *D = cast<DoStmt>(S);
    return M.create<DoStmt>(cloneBlock(D->getBody()), clone(D->getCond()));
  }
  case Stmt::Kind::Break:
    return M.create<BreakStmt>();
  case Stmt::Kind::Continue:
    return M.create<ContinueStmt>();
  case Stmt::Kind::Return:
    return M.create<ReturnStmt>(clone(cast<ReturnStmt>(S)->getValue()));
  case Stmt::Kind::Comment:
    return M.create<CommentStmt>(cast<CommentStmt>(S)->getText());
  case Stmt::Kind::Marker:
    return M.create<MarkerStmt>(cast<MarkerStmt>(S)->getRegion());
  case Stmt::Kind::Launch: {
    const auto *L = cast<LaunchStmt>(S);
    std::vector<const Expr *> Args;
    for (const Expr *A : L->getArgs())
      Args.push_back(clone(A));
    return M.create<LaunchStmt>(L->getKernel(), clone(L->getGrid()),
                                clone(L->getBlock()),
                                clone(L->getSharedBytes()),
                                clone(L->getStream()), std::move(Args),
                                L->isViaMacro());
  }
  }
  return nullptr;
}
