//===- Analysis/IndexFacts.cpp - What guards say about indices ------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "Analysis/IndexFacts.h"
#include "Analysis/IRWalk.h"

#include "llvm/Support/MathExtras.h"

#include <limits>

using namespace meshad;
using namespace meshad::ir;
using namespace meshad::ownership;
using llvm::dyn_cast;

FactSet::FactSet(IndexEvaluator &Evaluator, const Guard *Guards)
    : Evaluator(Evaluator) {
  // 0 <= gid.d <= blockDim.d*gridDim.d - 1 in every launch.
  for (unsigned D = 0; D < 3; ++D) {
    Affine Gid = Affine::atom({AtomKind::Gid, D});
    addDifference(Gid, Affine(), 0);
    addDifference(Affine::atom({AtomKind::TotalThreads, D}), Gid, -1);
  }
  for (const Guard *G = Guards; G; G = G->Parent)
    add(G->Cond, G->Holds);
}

void FactSet::add(const Expr *Cond, bool Holds) {
  if (const auto *U = dyn_cast<UnaryExpr>(Cond)) {
    if (U->getOp() == UnaryOp::Not)
      add(U->getSub(), !Holds);
    return;
  }
  const auto *B = dyn_cast<BinaryExpr>(Cond);
  if (!B)
    return;
  // a && b holds: both hold; a || b fails: both fail.
  if ((B->getOp() == BinaryOp::LAnd && Holds) ||
      (B->getOp() == BinaryOp::LOr && !Holds)) {
    add(B->getLHS(), Holds);
    add(B->getRHS(), Holds);
    return;
  }
  addComparison(B, Holds);
}

/// The comparison that holds when \p Op does not.
static BinaryOp negate(BinaryOp Op) {
  switch (Op) {
  case BinaryOp::Lt:
    return BinaryOp::Ge;
  case BinaryOp::Le:
    return BinaryOp::Gt;
  case BinaryOp::Gt:
    return BinaryOp::Le;
  case BinaryOp::Ge:
    return BinaryOp::Lt;
  case BinaryOp::Eq:
    return BinaryOp::Ne;
  case BinaryOp::Ne:
    return BinaryOp::Eq;
  default:
    return Op;
  }
}

void FactSet::addComparison(const BinaryExpr *B, bool Holds) {
  if (!B->getLHS()->getType()->isIntegral() ||
      !B->getRHS()->getType()->isIntegral())
    return;
  BinaryOp Op = Holds ? B->getOp() : negate(B->getOp());
  Eval L = Evaluator.eval(B->getLHS());
  Eval R = Evaluator.eval(B->getRHS());
  if (!L.Ok || !R.Ok || !Evaluator.isStable(L.Form) ||
      !Evaluator.isStable(R.Form) || !comparesValues(B, L.Form, R.Form))
    return;
  switch (Op) {
  case BinaryOp::Lt:
    return addDifference(R.Form, L.Form, -1);
  case BinaryOp::Le:
    return addDifference(R.Form, L.Form, 0);
  case BinaryOp::Gt:
    return addDifference(L.Form, R.Form, -1);
  case BinaryOp::Ge:
    return addDifference(L.Form, R.Form, 0);
  case BinaryOp::Eq:
    addDifference(L.Form, R.Form, 0);
    return addDifference(R.Form, L.Form, 0);
  default:
    return;
  }
}

bool FactSet::comparesValues(const BinaryExpr *B, const Affine &L,
                             const Affine &R) const {
  if (irwalk::isSignedInteger(B->getLHS()->getType()) &&
      irwalk::isSignedInteger(B->getRHS()->getType()))
    return true;
  // An unsigned comparison: it compares the values only when neither wraps.
  return Evaluator.isNonNegative(L) && Evaluator.isNonNegative(R);
}

void FactSet::addDifference(const Affine &L, const Affine &R,
                            long long Delta) {
  Affine F = L;
  if (!addScaled(F, R, -1) || llvm::AddOverflow(F.Const, Delta, F.Const))
    return;
  Facts.push_back(std::move(F));
}

std::optional<long long> FactSet::lowerBound(const Atom &A) const {
  std::optional<long long> Best;
  Affine Minus = Affine::atom(A);
  for (const Affine &F : Facts) {
    Affine D = F; // F = A + c >= 0 says A >= -c.
    if (!addScaled(D, Minus, -1) || !D.isLiteral() ||
        D.Const == std::numeric_limits<long long>::min())
      continue;
    if (!Best || -D.Const > *Best)
      Best = -D.Const;
  }
  return Best;
}

bool FactSet::provesUpper(const Atom &A, const Affine &Bound) const {
  Affine Need = Bound; // Need = Bound - A >= 0.
  if (!addScaled(Need, Affine::atom(A), -1))
    return false;
  for (const Affine &F : Facts) {
    Affine D = Need; // Need = F + D with a literal D >= 0.
    if (addScaled(D, F, -1) && D.isLiteral() && D.Const >= 0)
      return true;
  }
  return false;
}
