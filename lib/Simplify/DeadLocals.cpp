//===- Simplify/DeadLocals.cpp - Drop locals nothing reads ----------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "Simplify/DeadLocals.h"
#include "AD/Analysis/ReverseNeeds.h"
#include "IR/Traversal.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace meshad;
using namespace meshad::ir;
using llvm::cast;
using llvm::dyn_cast;

namespace {

/// A scalar local whose value only matters if something reads it.
bool isCandidate(const Var *V) {
  return V->getStorage() == Var::Storage::Local &&
         !V->getType()->isIndexable();
}

/// True when evaluating \p E has no effect besides its value: pure math
/// and intrinsics, and the user calls that \p Droppable accepts.
bool droppable(const Expr *E, DroppableCall Droppable) {
  if (!Droppable)
    return isPureExpr(E);
  bool Ok = true;
  if (E)
    forEachExpr(E, [&](const Expr *X) {
      const auto *C = dyn_cast<CallExpr>(X);
      if (C && C->getCalleeKind() == CallExpr::CalleeKind::User)
        Ok &= Droppable(C);
      else if (C)
        Ok &= isPureExpr(C);
    });
  return Ok;
}

/// The local that \p S only defines (v = e, v += e, ++v, a declaration),
/// or null.
const Var *definedLocal(const Stmt *S, DroppableCall Droppable) {
  if (const auto *D = dyn_cast<DeclStmt>(S))
    return isCandidate(D->getVar()) && droppable(D->getInit(), Droppable)
               ? D->getVar()
               : nullptr;
  const auto *A = dyn_cast<AssignStmt>(S);
  const auto *R = A ? dyn_cast<VarRefExpr>(A->getLHS()) : nullptr;
  if (!R || !isCandidate(R->getVar()) || !droppable(A->getRHS(), Droppable))
    return nullptr;
  return R->getVar();
}

/// `if (c) {}` (an empty else too) with a condition without effects: what
/// is left of `if (returned) return;` in a pullback, say.
bool isEmptyIf(const Stmt *S, DroppableCall Droppable) {
  const auto *If = dyn_cast<IfStmt>(S);
  return If && If->getThen()->getBody().empty() &&
         (!If->getElse() || If->getElse()->getBody().empty()) &&
         droppable(If->getCond(), Droppable);
}

/// The locals read anywhere in \p Body, except a definition's reads of the
/// local it defines.
llvm::SmallPtrSet<const Var *, 16> readLocals(const Stmt *Body,
                                              DroppableCall Droppable) {
  llvm::SmallPtrSet<const Var *, 16> Read;
  forEachStmt(Body, [&](const Stmt *S) {
    const Var *Defined = definedLocal(S, Droppable);
    for (const Expr *E : ownExprs(S)) {
      const auto *A = dyn_cast<AssignStmt>(S);
      if (A && E == A->getLHS() && llvm::isa<VarRefExpr>(E))
        continue; // The target of v = e is written, not read.
      forEachExpr(E, [&](const Expr *X) {
        if (const auto *R = dyn_cast<VarRefExpr>(X))
          if (R->getVar() != Defined)
            Read.insert(R->getVar());
      });
    }
    // A definition with effects stays, and so does its local.
    if (const auto *D = dyn_cast<DeclStmt>(S))
      if (!Defined && D->getInit())
        Read.insert(D->getVar());
    if (const auto *A = dyn_cast<AssignStmt>(S))
      if (!Defined)
        if (const auto *R = dyn_cast<VarRefExpr>(A->getLHS()))
          Read.insert(R->getVar());
  });
  return Read;
}

/// Removes the definitions of locals not in \p Read from \p Block and the
/// blocks nested in it.
unsigned prune(const BlockStmt *Block,
               const llvm::SmallPtrSetImpl<const Var *> &Read,
               const llvm::SmallPtrSetImpl<const Var *> *Only,
               DroppableCall Droppable) {
  std::vector<const BlockStmt *> Blocks;
  forEachStmt(Block, [&](const Stmt *S) {
    if (const auto *Sub = dyn_cast<BlockStmt>(S))
      Blocks.push_back(Sub);
  });
  unsigned Removed = 0;
  for (const BlockStmt *Sub : Blocks) {
    std::vector<const Stmt *> Kept;
    for (const Stmt *S : Sub->getBody()) {
      const Var *V = definedLocal(S, Droppable);
      if ((V && !Read.count(V) && (!Only || Only->count(V))) ||
          (!Only && isEmptyIf(S, Droppable))) {
        ++Removed;
        continue;
      }
      Kept.push_back(S);
    }
    // The blocks are owned by the module; the function is being generated.
    const_cast<BlockStmt *>(Sub)->setBody(std::move(Kept));
  }
  return Removed;
}

} // namespace

unsigned meshad::removeDeadLocals(Function &F, DroppableCall Droppable) {
  if (!F.getBody())
    return 0;
  unsigned Total = 0;
  // Removing a definition may leave others dead: repeat until none is.
  while (unsigned Removed = prune(
             F.getBody(), readLocals(F.getBody(), Droppable), nullptr,
             Droppable))
    Total += Removed;
  return Total;
}

unsigned meshad::removeUnreadDefinitions(
    const BlockStmt *Scope, const llvm::SmallPtrSetImpl<const Var *> &Only) {
  unsigned Total = 0;
  while (unsigned Removed =
             prune(Scope, readLocals(Scope, nullptr), &Only, nullptr))
    Total += Removed;
  return Total;
}
