//===- AD/LoopIncrements.cpp - Increments moved into bodies ---------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "AD/LoopIncrements.h"

using namespace meshad;
using namespace meshad::ir;
using llvm::cast;
using llvm::dyn_cast;

bool meshad::hasNonIntegerIncrement(const ForStmt &F) {
  const auto *Inc = llvm::dyn_cast_or_null<AssignStmt>(F.getInc());
  return Inc && !Inc->getLHS()->getType()->isIntegral();
}

/// \p S with \p Inc placed before every `continue` that belongs to the loop
/// being rewritten (nested loops keep theirs).
static const Stmt *incrementBeforeContinues(Module &M, const Stmt *S,
                                            const Stmt *Inc) {
  if (!S)
    return nullptr;
  auto Block = [&](const BlockStmt *B) -> const BlockStmt * {
    if (!B)
      return nullptr;
    std::vector<const Stmt *> Body;
    for (const Stmt *Sub : B->getBody())
      Body.push_back(incrementBeforeContinues(M, Sub, Inc));
    auto *New = M.create<BlockStmt>(std::move(Body));
    New->setLoc(B->getLoc());
    return New;
  };
  switch (S->getKind()) {
  case Stmt::Kind::Continue:
    return M.create<BlockStmt>(std::vector<const Stmt *>{Inc, S});
  case Stmt::Kind::Block:
    return Block(cast<BlockStmt>(S));
  case Stmt::Kind::If: {
    const auto *I = cast<IfStmt>(S);
    auto *New =
        M.create<IfStmt>(I->getCond(), Block(I->getThen()), Block(I->getElse()));
    New->setLoc(I->getLoc());
    return New;
  }
  default:
    // Loops: their continues are their own.
    return S;
  }
}

const ForStmt *meshad::moveIncrementIntoBody(Module &M, const ForStmt *F) {
  if (!hasNonIntegerIncrement(*F))
    return F;
  const auto *Body =
      cast<BlockStmt>(incrementBeforeContinues(M, F->getBody(), F->getInc()));
  std::vector<const Stmt *> Stmts = Body->getBody();
  Stmts.push_back(F->getInc());
  auto *NewBody = M.create<BlockStmt>(std::move(Stmts));
  NewBody->setLoc(F->getBody()->getLoc());
  auto *New = M.create<ForStmt>(F->getInit(), F->getCond(), nullptr, NewBody);
  New->setLoc(F->getLoc());
  return New;
}
