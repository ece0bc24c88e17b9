//===- AD/Reverse/JumpNormalizer.cpp - Structured jumps for reverse -------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "AD/Reverse/JumpNormalizer.h"
#include "AD/LoopIncrements.h"

using namespace meshad;
using namespace meshad::ir;
using llvm::cast;
using llvm::dyn_cast;
using llvm::isa;

static bool isJump(const Stmt *S) {
  return isa<BreakStmt>(S) || isa<ContinueStmt>(S) || isa<ReturnStmt>(S);
}

bool JumpNormalizer::alwaysJumps(const Stmt *S) {
  if (!S)
    return false;
  if (isJump(S))
    return true;
  if (const auto *B = dyn_cast<BlockStmt>(S)) {
    for (const Stmt *Sub : B->getBody())
      if (alwaysJumps(Sub))
        return true;
    return false;
  }
  if (const auto *I = dyn_cast<IfStmt>(S))
    return I->getElse() && alwaysJumps(I->getThen()) &&
           alwaysJumps(I->getElse());
  return false;
}

bool JumpNormalizer::mayJump(const Stmt *S) {
  if (!S)
    return false;
  if (isJump(S))
    return true;
  if (const auto *B = dyn_cast<BlockStmt>(S)) {
    for (const Stmt *Sub : B->getBody())
      if (mayJump(Sub))
        return true;
    return false;
  }
  if (const auto *I = dyn_cast<IfStmt>(S))
    return mayJump(I->getThen()) || mayJump(I->getElse());
  // Breaks and continues inside a loop stay inside it.
  return false;
}

/// The first return inside \p S (which would leave an enclosing loop).
static const ReturnStmt *findReturn(const Stmt *S) {
  if (!S)
    return nullptr;
  if (const auto *R = dyn_cast<ReturnStmt>(S))
    return R;
  const ReturnStmt *Found = nullptr;
  auto Visit = [&](const Stmt *Sub) {
    if (!Found)
      Found = findReturn(Sub);
  };
  if (const auto *B = dyn_cast<BlockStmt>(S)) {
    for (const Stmt *Sub : B->getBody())
      Visit(Sub);
  } else if (const auto *I = dyn_cast<IfStmt>(S)) {
    Visit(I->getThen());
    Visit(I->getElse());
  } else if (const auto *F = dyn_cast<ForStmt>(S)) {
    Visit(F->getBody());
  } else if (const auto *W = dyn_cast<WhileStmt>(S)) {
    Visit(W->getBody());
  } else if (const auto *D = dyn_cast<DoStmt>(S)) {
    Visit(D->getBody());
  }
  return Found;
}

BlockStmt *JumpNormalizer::normalize(const BlockStmt *Body) {
  BlockStmt *Result = normalizeList(Body->getBody(), 0);
  return Failed ? nullptr : Result;
}

BlockStmt *JumpNormalizer::withRest(const BlockStmt *Branch,
                                    const std::vector<const Stmt *> &Rest,
                                    unsigned LoopDepth) {
  std::vector<const Stmt *> All;
  if (Branch)
    All = Branch->getBody();
  if (Branch && alwaysJumps(Branch))
    return normalizeList(All, LoopDepth);
  All.insert(All.end(), Rest.begin(), Rest.end());
  return normalizeList(All, LoopDepth);
}

BlockStmt *JumpNormalizer::normalizeList(std::vector<const Stmt *> Stmts,
                                         unsigned LoopDepth) {
  auto *Out = M.create<BlockStmt>();
  for (size_t K = 0; K < Stmts.size(); ++K) {
    const Stmt *S = normalizeStmt(Stmts[K], LoopDepth);
    if (const auto *Nested = dyn_cast<BlockStmt>(S)) {
      // Flatten plain nested blocks so that their jumps are seen here.
      std::vector<const Stmt *> Rest(Nested->getBody());
      Rest.insert(Rest.end(), Stmts.begin() + K + 1, Stmts.end());
      BlockStmt *Tail = normalizeList(Rest, LoopDepth);
      for (const Stmt *T : Tail->getBody())
        Out->append(T);
      return Out;
    }
    Out->append(S);
    if (isJump(S))
      return Out; // What follows is dead.
    const auto *I = dyn_cast<IfStmt>(S);
    if (!I || !mayJump(I))
      continue;
    // Push the rest of the block into every path that falls through.
    std::vector<const Stmt *> Rest(Stmts.begin() + K + 1, Stmts.end());
    if (Rest.empty())
      return Out;
    auto *New = M.create<IfStmt>(I->getCond(),
                                 withRest(I->getThen(), Rest, LoopDepth),
                                 withRest(I->getElse(), Rest, LoopDepth));
    New->setLoc(I->getLoc());
    std::vector<const Stmt *> Body = Out->getBody();
    Body.back() = New;
    return M.create<BlockStmt>(Body);
  }
  return Out;
}

const Stmt *JumpNormalizer::normalizeStmt(const Stmt *S, unsigned LoopDepth) {
  auto Sub = [&](const BlockStmt *B, unsigned Depth) -> const BlockStmt * {
    return B ? normalizeList(B->getBody(), Depth) : nullptr;
  };
  switch (S->getKind()) {
  case Stmt::Kind::Block:
    return normalizeList(cast<BlockStmt>(S)->getBody(), LoopDepth);
  case Stmt::Kind::If: {
    const auto *I = cast<IfStmt>(S);
    auto *New = M.create<IfStmt>(I->getCond(), Sub(I->getThen(), LoopDepth),
                                 Sub(I->getElse(), LoopDepth));
    New->setLoc(I->getLoc());
    return New;
  }
  case Stmt::Kind::For:
  case Stmt::Kind::While:
  case Stmt::Kind::Do: {
    if (const ReturnStmt *R = findReturn(S)) {
      Diags.error(R->getLoc().isValid() ? R->getLoc() : S->getLoc(),
                  "a return inside a loop is not supported in reverse mode "
                  "yet; use break and return after the loop");
      Failed = true;
      return S;
    }
    Stmt *New;
    if (const auto *F = dyn_cast<ForStmt>(S)) {
      // An increment that the reverse sweep differentiates (t *= x, p++)
      // becomes the body's last statement.
      F = moveIncrementIntoBody(M, F);
      New = M.create<ForStmt>(F->getInit(), F->getCond(), F->getInc(),
                              Sub(F->getBody(), LoopDepth + 1));
    }
    else if (const auto *W = dyn_cast<WhileStmt>(S))
      New = M.create<WhileStmt>(W->getCond(), Sub(W->getBody(), LoopDepth + 1));
    else
      New = M.create<DoStmt>(Sub(cast<DoStmt>(S)->getBody(), LoopDepth + 1),
                             cast<DoStmt>(S)->getCond());
    New->setLoc(S->getLoc());
    return New;
  }
  default:
    return S;
  }
}
