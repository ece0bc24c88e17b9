//===- Rules/PartialProducts.cpp - Seeds times partials -------------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "Rules/PartialProducts.h"

using namespace meshad;
using namespace meshad::ir;
using llvm::dyn_cast;

SeedPlace meshad::seedPlace(const MathRule &R, unsigned ArgNo, bool Reverse) {
  if (R.isOperator())
    return ArgNo == 0 ? SeedPlace::BeforePartial : SeedPlace::AfterPartial;
  return Reverse ? SeedPlace::AfterConstant : SeedPlace::AfterPartial;
}

/// The operand of a negation, or null.
static const Expr *negated(const Expr *E) {
  const auto *U = dyn_cast<UnaryExpr>(E);
  return U && U->getOp() == UnaryOp::Neg ? U->getSub() : nullptr;
}

/// \p E as a quotient, or null.
static const BinaryExpr *quotient(const Expr *E) {
  const auto *Q = dyn_cast<BinaryExpr>(E);
  return Q && Q->getOp() == BinaryOp::Div ? Q : nullptr;
}

const Expr *meshad::scaleByPartial(IRBuilder &B, const Expr *Seed,
                                   const Expr *Partial, SeedPlace Place) {
  if (!Seed || !Partial || IRBuilder::isLiteral(Partial, 0))
    return nullptr;
  if (IRBuilder::isLiteral(Partial, 1))
    return Seed;
  // -1, -c and -(N / D) negate the product; -sin(x) stays a factor.
  if (const Expr *X = negated(Partial))
    if (llvm::isa<FloatLitExpr>(X) || quotient(X))
      return B.neg(scaleByPartial(B, Seed, X, Place));
  if (const BinaryExpr *Q = quotient(Partial)) {
    // The seed joins the numerator; a negation goes in front (-r / y).
    const Expr *N = Q->getLHS();
    if (const Expr *X = negated(N))
      return B.neg(B.div(scaleByPartial(B, Seed, X, Place), Q->getRHS()));
    return B.div(scaleByPartial(B, Seed, N, Place), Q->getRHS());
  }
  bool First = Place == SeedPlace::BeforePartial ||
               (Place == SeedPlace::AfterConstant &&
                !llvm::isa<FloatLitExpr>(Partial));
  return First ? B.mul(Seed, Partial) : B.mul(Partial, Seed);
}

/// True when \p E is D * D.
static bool isSquareOf(const Expr *E, const Expr *D) {
  const auto *M = dyn_cast<BinaryExpr>(E);
  return M && M->getOp() == BinaryOp::Mul && M->getLHS() == D &&
         M->getRHS() == D;
}

const Expr *meshad::addContributions(IRBuilder &B, const Expr *A,
                                     const Expr *C) {
  if (!A || !C)
    return A ? A : C;
  const Expr *X = negated(C);
  bool Minus = X != nullptr;
  if (!Minus)
    X = C;
  auto Combine = [&](const Expr *L, const Expr *R) {
    return Minus ? B.sub(L, R) : B.add(L, R);
  };
  const BinaryExpr *QA = quotient(A), *QX = quotient(X);
  if (QA && QX) {
    // Denominators are shared operands of the rules: pointer equality.
    if (QA->getRHS() == QX->getRHS())
      return B.div(Combine(QA->getLHS(), QX->getLHS()), QA->getRHS());
    if (isSquareOf(QX->getRHS(), QA->getRHS()))
      return B.div(Combine(B.mul(QA->getLHS(), QA->getRHS()), QX->getLHS()),
                   QX->getRHS());
  }
  return Combine(A, X);
}
