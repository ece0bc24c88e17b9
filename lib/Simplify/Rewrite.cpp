//===- Simplify/Rewrite.cpp - Rewriting expressions of statements ---------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Expressions and statements other than blocks are immutable: a rewrite
/// builds new nodes where something changed and shares the rest; blocks
/// get their new statements with setBody.
///
//===----------------------------------------------------------------------===//

#include "IR/Traversal.h"
#include "Simplify/SimplifyUtils.h"

#include "llvm/ADT/ArrayRef.h"

using namespace meshad;
using namespace meshad::ir;
using namespace meshad::simplify;
using llvm::cast;

/// A copy of \p E with the operands \p Ops (in the order of ir::operands).
static const Expr *withOperands(Module &M, const Expr *E,
                                llvm::ArrayRef<const Expr *> Ops) {
  const Expr *N = nullptr;
  switch (E->getKind()) {
  case Expr::Kind::Unary:
    N = M.create<UnaryExpr>(E->getType(), cast<UnaryExpr>(E)->getOp(), Ops[0]);
    break;
  case Expr::Kind::Binary:
    N = M.create<BinaryExpr>(E->getType(), cast<BinaryExpr>(E)->getOp(),
                             Ops[0], Ops[1]);
    break;
  case Expr::Kind::Conditional:
    N = M.create<ConditionalExpr>(E->getType(), Ops[0], Ops[1], Ops[2]);
    break;
  case Expr::Kind::Call: {
    const auto *C = cast<CallExpr>(E);
    std::vector<const Expr *> Args(Ops.begin(), Ops.end());
    if (C->getCalleeKind() == CallExpr::CalleeKind::User)
      N = M.create<CallExpr>(E->getType(), C->getUserCallee(), Args);
    else
      N = M.create<CallExpr>(E->getType(), C->getCalleeKind(), C->getName(),
                             C->getMathId(), Args);
    break;
  }
  case Expr::Kind::Index:
    N = M.create<IndexExpr>(E->getType(), Ops[0], Ops[1]);
    break;
  case Expr::Kind::Member: {
    const auto *Mb = cast<MemberExpr>(E);
    N = M.create<MemberExpr>(E->getType(), Ops[0], Mb->getField(),
                             Mb->isArrow());
    break;
  }
  case Expr::Kind::Cast:
    N = M.create<CastExpr>(E->getType(), Ops[0]);
    break;
  case Expr::Kind::InitList:
    N = M.create<InitListExpr>(
        E->getType(), std::vector<const Expr *>(Ops.begin(), Ops.end()));
    break;
  default:
    return E;
  }
  const_cast<Expr *>(N)->setLoc(E->getLoc());
  return N;
}

/// \p E with \p Map applied to each operand; \p E when none changed.
static const Expr *
mapOperands(Module &M, const Expr *E,
            llvm::function_ref<const Expr *(const Expr *)> Map) {
  llvm::SmallVector<const Expr *, 4> Ops = operands(E);
  bool Changed = false;
  for (const Expr *&Op : Ops) {
    const Expr *New = Map(Op);
    Changed |= New != Op;
    Op = New;
  }
  return Changed ? withOperands(M, E, Ops) : E;
}

const Expr *
simplify::replaceTopDown(Module &M, const Expr *E,
                         llvm::function_ref<bool(const Expr *)> Match,
                         const Expr *Replacement) {
  if (Match(E))
    return Replacement;
  return mapOperands(M, E, [&](const Expr *Op) {
    return replaceTopDown(M, Op, Match, Replacement);
  });
}

const Expr *simplify::rebuildBottomUp(
    Module &M, const Expr *E,
    llvm::function_ref<const Expr *(const Expr *)> Post) {
  const Expr *N = mapOperands(
      M, E, [&](const Expr *Op) { return rebuildBottomUp(M, Op, Post); });
  return Post(N);
}

/// Applies \p Rewrite to a possibly null expression.
static const Expr *apply(ExprRewrite Rewrite, const Expr *E) {
  return E ? Rewrite(E) : nullptr;
}

static const Stmt *rewriteLoop(Module &M, const Stmt *S, ExprRewrite R) {
  if (const auto *F = llvm::dyn_cast<ForStmt>(S)) {
    const Stmt *Init = F->getInit() ? rewriteOwnExprs(M, F->getInit(), R)
                                    : nullptr;
    const Stmt *Inc = F->getInc() ? rewriteOwnExprs(M, F->getInc(), R)
                                  : nullptr;
    const Expr *Cond = apply(R, F->getCond());
    if (Init == F->getInit() && Inc == F->getInc() && Cond == F->getCond())
      return S;
    return M.create<ForStmt>(Init, Cond, Inc, F->getBody());
  }
  if (const auto *W = llvm::dyn_cast<WhileStmt>(S)) {
    const Expr *Cond = apply(R, W->getCond());
    return Cond == W->getCond() ? S
                                : M.create<WhileStmt>(Cond, W->getBody());
  }
  const auto *D = cast<DoStmt>(S);
  const Expr *Cond = apply(R, D->getCond());
  return Cond == D->getCond() ? S : M.create<DoStmt>(D->getBody(), Cond);
}

static const Stmt *rewriteLaunch(Module &M, const LaunchStmt *L,
                                 ExprRewrite R) {
  std::vector<const Expr *> Args;
  bool Changed = false;
  for (const Expr *A : L->getArgs()) {
    Args.push_back(apply(R, A));
    Changed |= Args.back() != A;
  }
  const Expr *G = apply(R, L->getGrid()), *B = apply(R, L->getBlock());
  const Expr *Sh = apply(R, L->getSharedBytes()),
             *St = apply(R, L->getStream());
  if (!Changed && G == L->getGrid() && B == L->getBlock() &&
      Sh == L->getSharedBytes() && St == L->getStream())
    return L;
  return M.create<LaunchStmt>(L->getKernel(), G, B, Sh, St, std::move(Args),
                              L->isViaMacro());
}

static const Stmt *rewriteUnlocated(Module &M, const Stmt *S, ExprRewrite R) {
  switch (S->getKind()) {
  case Stmt::Kind::Decl: {
    const auto *D = cast<DeclStmt>(S);
    const Expr *Init = apply(R, D->getInit());
    return Init == D->getInit() ? S : M.create<DeclStmt>(D->getVar(), Init);
  }
  case Stmt::Kind::Assign: {
    const auto *A = cast<AssignStmt>(S);
    const Expr *L = apply(R, A->getLHS()), *Rhs = apply(R, A->getRHS());
    if (L == A->getLHS() && Rhs == A->getRHS())
      return S;
    return M.create<AssignStmt>(L, A->getOp(), Rhs);
  }
  case Stmt::Kind::ExprStmt: {
    const Expr *E = cast<ExprStmt>(S)->getExpr();
    const Expr *N = apply(R, E);
    return N == E ? S : M.create<ExprStmt>(N);
  }
  case Stmt::Kind::If: {
    const auto *I = cast<IfStmt>(S);
    const Expr *C = apply(R, I->getCond());
    return C == I->getCond() ? S
                             : M.create<IfStmt>(C, I->getThen(), I->getElse());
  }
  case Stmt::Kind::For:
  case Stmt::Kind::While:
  case Stmt::Kind::Do:
    return rewriteLoop(M, S, R);
  case Stmt::Kind::Return: {
    const Expr *V = cast<ReturnStmt>(S)->getValue();
    const Expr *N = apply(R, V);
    return N == V ? S : M.create<ReturnStmt>(N);
  }
  case Stmt::Kind::Launch:
    return rewriteLaunch(M, cast<LaunchStmt>(S), R);
  default:
    return S;
  }
}

const Stmt *simplify::rewriteOwnExprs(Module &M, const Stmt *S,
                                      ExprRewrite Rewrite) {
  const Stmt *N = rewriteUnlocated(M, S, Rewrite);
  if (N != S)
    const_cast<Stmt *>(N)->setLoc(S->getLoc());
  return N;
}

std::vector<BlockStmt *> simplify::blocksOf(const Function &F) {
  std::vector<BlockStmt *> Blocks;
  forEachStmt(F.getBody(), [&](const Stmt *S) {
    if (const auto *B = llvm::dyn_cast<BlockStmt>(S))
      Blocks.push_back(const_cast<BlockStmt *>(B));
  });
  return Blocks;
}

bool simplify::rewriteFunctionExprs(Module &M, Function &F,
                                    ExprRewrite Rewrite) {
  bool Changed = false;
  for (BlockStmt *B : blocksOf(F)) {
    std::vector<const Stmt *> Body = B->getBody();
    bool BlockChanged = false;
    for (const Stmt *&S : Body) {
      const Stmt *N = rewriteOwnExprs(M, S, Rewrite);
      BlockChanged |= N != S;
      S = N;
    }
    if (BlockChanged)
      B->setBody(std::move(Body));
    Changed |= BlockChanged;
  }
  return Changed;
}
