//===- IR/Traversal.cpp - Walking IR statements and expressions -----------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "IR/Traversal.h"

using namespace meshad;
using namespace meshad::ir;
using llvm::cast;

/// The direct operands of \p E.
llvm::SmallVector<const Expr *, 4> ir::operands(const Expr *E) {
  switch (E->getKind()) {
  case Expr::Kind::Unary:
    return {cast<UnaryExpr>(E)->getSub()};
  case Expr::Kind::Binary:
    return {cast<BinaryExpr>(E)->getLHS(), cast<BinaryExpr>(E)->getRHS()};
  case Expr::Kind::Conditional: {
    const auto *C = cast<ConditionalExpr>(E);
    return {C->getCond(), C->getTrue(), C->getFalse()};
  }
  case Expr::Kind::Call: {
    const auto &Args = cast<CallExpr>(E)->getArgs();
    return {Args.begin(), Args.end()};
  }
  case Expr::Kind::Index:
    return {cast<IndexExpr>(E)->getBase(), cast<IndexExpr>(E)->getIndex()};
  case Expr::Kind::Member:
    return {cast<MemberExpr>(E)->getBase()};
  case Expr::Kind::Cast:
    return {cast<CastExpr>(E)->getSub()};
  case Expr::Kind::InitList: {
    const auto &Elems = cast<InitListExpr>(E)->getElements();
    return {Elems.begin(), Elems.end()};
  }
  default:
    return {};
  }
}

/// The expressions \p S evaluates itself (not those of nested statements).
llvm::SmallVector<const Expr *, 4> ir::ownExprs(const Stmt *S) {
  llvm::SmallVector<const Expr *, 4> Result;
  auto Add = [&](const Expr *E) {
    if (E)
      Result.push_back(E);
  };
  switch (S->getKind()) {
  case Stmt::Kind::Decl:
    Add(cast<DeclStmt>(S)->getInit());
    break;
  case Stmt::Kind::Assign:
    Add(cast<AssignStmt>(S)->getLHS());
    Add(cast<AssignStmt>(S)->getRHS());
    break;
  case Stmt::Kind::ExprStmt:
    Add(cast<ExprStmt>(S)->getExpr());
    break;
  case Stmt::Kind::If:
    Add(cast<IfStmt>(S)->getCond());
    break;
  case Stmt::Kind::For:
    Add(cast<ForStmt>(S)->getCond());
    break;
  case Stmt::Kind::While:
    Add(cast<WhileStmt>(S)->getCond());
    break;
  case Stmt::Kind::Do:
    Add(cast<DoStmt>(S)->getCond());
    break;
  case Stmt::Kind::Return:
    Add(cast<ReturnStmt>(S)->getValue());
    break;
  case Stmt::Kind::Launch: {
    const auto *L = cast<LaunchStmt>(S);
    Add(L->getGrid());
    Add(L->getBlock());
    Add(L->getSharedBytes());
    Add(L->getStream());
    for (const Expr *A : L->getArgs())
      Add(A);
    break;
  }
  default:
    break;
  }
  return Result;
}

/// Calls \p F on \p S and on every statement nested in it, outermost first.
void ir::forEachStmt(const Stmt *S,
                        llvm::function_ref<void(const Stmt *)> F) {
  if (!S)
    return;
  F(S);
  switch (S->getKind()) {
  case Stmt::Kind::Block:
    for (const Stmt *Sub : cast<BlockStmt>(S)->getBody())
      forEachStmt(Sub, F);
    return;
  case Stmt::Kind::If:
    forEachStmt(cast<IfStmt>(S)->getThen(), F);
    forEachStmt(cast<IfStmt>(S)->getElse(), F);
    return;
  case Stmt::Kind::For: {
    const auto *For = cast<ForStmt>(S);
    forEachStmt(For->getInit(), F);
    forEachStmt(For->getInc(), F);
    forEachStmt(For->getBody(), F);
    return;
  }
  case Stmt::Kind::While:
    forEachStmt(cast<WhileStmt>(S)->getBody(), F);
    return;
  case Stmt::Kind::Do:
    forEachStmt(cast<DoStmt>(S)->getBody(), F);
    return;
  default:
    return;
  }
}

/// Calls \p F on \p E and all its subexpressions.
void ir::forEachExpr(const Expr *E,
                        llvm::function_ref<void(const Expr *)> F) {
  F(E);
  for (const Expr *Op : operands(E))
    forEachExpr(Op, F);
}

