//===- AD/ThrustCalls.cpp - What the modes share about Thrust calls -------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "AD/ThrustCalls.h"
#include "Rules/ThrustRecipes.h"

#include "llvm/ADT/STLExtras.h"

using namespace meshad;
using namespace meshad::ir;
using llvm::dyn_cast;

const CallExpr *meshad::asThrustUserFunctor(const Expr *E) {
  const auto *C = dyn_cast<CallExpr>(E);
  if (!C || C->getCalleeKind() != CallExpr::CalleeKind::User ||
      C->getType()->getSpelling() != ThrustUserFunctorType)
    return nullptr;
  return C;
}

const ThrustRecipe *meshad::thrustCallRecipe(const CallExpr *C) {
  if (C->getCalleeKind() != CallExpr::CalleeKind::Intrinsic)
    return nullptr;
  bool User = llvm::any_of(C->getArgs(), [](const Expr *A) {
    return asThrustUserFunctor(A) != nullptr;
  });
  return lookupThrustCall(C->getName(), C->getNumArgs(), User);
}

/// `P + K` as (P, K); (E, null) for another expression.
static std::pair<const Expr *, const Expr *> splitOffset(const Expr *E) {
  if (const auto *Sum = dyn_cast<BinaryExpr>(E))
    if (Sum->getOp() == BinaryOp::Add && Sum->getLHS()->getType()->isPointer())
      return {Sum->getLHS(), Sum->getRHS()};
  return {E, nullptr};
}

static bool sameVar(const Expr *A, const Expr *B) {
  const auto *P = dyn_cast<VarRefExpr>(A);
  const auto *Q = dyn_cast<VarRefExpr>(B);
  return P && Q && P->getVar() == Q->getVar();
}

const Expr *meshad::countingStart(const Expr *E) {
  const auto *C = dyn_cast<CallExpr>(E);
  if (!C || C->getCalleeKind() != CallExpr::CalleeKind::Intrinsic ||
      C->getName() != ThrustCountingCall || C->getNumArgs() != 1)
    return nullptr;
  return C->getArg(0);
}

/// The number of elements of the recipe's first range: `n` for the range
/// `p, p + n` (or the counting iterators of 0 and n), `b - a` (folded) for
/// `p + a, p + b` (or the counting iterators of a and b), else
/// `last - first`.
const Expr *meshad::thrustRangeCount(Module &M, IRBuilder &B,
                                     const ThrustRecipe &R, const CallExpr *C) {
  for (unsigned I = 1; I < R.numArgs(); ++I) {
    if (R.role(I) != ThrustArg::Last)
      continue;
    if (const Expr *Start = countingStart(C->getArg(I - 1))) {
      const Expr *End = countingStart(C->getArg(I));
      const auto *Zero = dyn_cast<IntLitExpr>(Start);
      if (Zero && Zero->getValue() == 0)
        return End;
      return M.create<BinaryExpr>(End->getType(), BinaryOp::Sub, End, Start);
    }
    auto [FirstBase, A] = splitOffset(C->getArg(I - 1));
    auto [LastBase, Bound] = splitOffset(C->getArg(I));
    if (Bound && sameVar(FirstBase, LastBase)) {
      if (!A)
        return Bound;
      const auto *LA = dyn_cast<IntLitExpr>(A);
      const auto *LB = dyn_cast<IntLitExpr>(Bound);
      if (LA && LB)
        return B.intLit(LB->getValue() - LA->getValue());
      return M.create<BinaryExpr>(Bound->getType(), BinaryOp::Sub, Bound, A);
    }
    return M.create<BinaryExpr>(M.getTypes().getInt("long"), BinaryOp::Sub,
                                C->getArg(I), C->getArg(I - 1));
  }
  return nullptr;
}

