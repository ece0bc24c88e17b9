//===- Simplify/AlgebraicFolds.cpp - Algebraic identities -----------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Folds the identities that derivative code is full of once constant
/// tangents are propagated (x * -1 and -1 * x become -x, exactly). Only on scalar arithmetic (floating and
/// integer types; no pointers, vectors or bools), and only where the kept
/// operand has the type of the whole expression (x + 0 with an int x and a
/// double 0 is a double: it stays). Exact in IEEE arithmetic except for the
/// sign of a zero (x + 0, 0 - x) and x * 0, which is 0 even for an infinite
/// or NaN x: what a structurally zero derivative means, as AD tools take
/// it. 2 * e for e + e is exact (a power of two), and so is a * b + b * a
/// as 2 * a * b ((2 * a) * b == 2 * (a * b)); more generally like terms
/// c1 P + c2 P of products P of at most two factors with power-of-two
/// coefficients (0.5 * (s * d) + 0.5 * s * d is s * d) are combined, exactly
/// (ScaledProduct). x * 0 drops x only when x is pure (no user call, atomic
/// or tape).
///
//===----------------------------------------------------------------------===//

#include "IR/Builder.h"
#include "Simplify/Passes.h"
#include "Simplify/SimplifyUtils.h"

#include <cmath>
#include <optional>

using namespace meshad;
using namespace meshad::ir;
using namespace meshad::simplify;
using llvm::dyn_cast;

namespace {

const UnaryExpr *asNeg(const Expr *E) {
  const auto *U = dyn_cast<UnaryExpr>(E);
  return U && U->getOp() == UnaryOp::Neg &&
                 U->getSub()->getType() == U->getType()
             ? U
             : nullptr;
}

/// a*b + b*a, or e + e, with pure operands.
bool equalUpToCommuting(const Expr *A, const Expr *B) {
  if (!isPureExpr(A) || !isPureExpr(B))
    return false;
  if (sameExpr(A, B))
    return true;
  const auto *MA = dyn_cast<BinaryExpr>(A);
  const auto *MB = dyn_cast<BinaryExpr>(B);
  return MA && MB && MA->getOp() == BinaryOp::Mul &&
         MB->getOp() == BinaryOp::Mul && MA->getType() == MB->getType() &&
         sameExpr(MA->getLHS(), MB->getRHS()) &&
         sameExpr(MA->getRHS(), MB->getLHS());
}

/// A product c * f1 [* f2] of floating type: at most two factors that are
/// not literals, and a coefficient c made of power-of-two literals and
/// negations. Every association and order of such a product gives the same
/// value (scaling by a power of two is exact, a*b == b*a), so two of them
/// with the same factors are like terms: c1 P + c2 P == (c1 + c2) P exactly
/// (both round the same real number), as long as no scaling overflows or
/// makes a subnormal (the caveat of 2 * e for e + e too).
struct ScaledProduct {
  double Coeff = 1;
  llvm::SmallVector<const Expr *, 2> Factors;

  bool sameFactors(const ScaledProduct &O) const {
    if (Factors.size() != O.Factors.size())
      return false;
    if (Factors.size() == 1)
      return sameExpr(Factors[0], O.Factors[0]);
    return (sameExpr(Factors[0], O.Factors[0]) &&
            sameExpr(Factors[1], O.Factors[1])) ||
           (sameExpr(Factors[0], O.Factors[1]) &&
            sameExpr(Factors[1], O.Factors[0]));
  }
};

bool isPowerOfTwo(double V) {
  int Exp = 0;
  return V != 0 && std::isfinite(V) && std::frexp(std::fabs(V), &Exp) == 0.5;
}

/// Adds \p E's factors to \p P; false when \p E is not such a product.
bool collectProduct(const Expr *E, const Type *Ty, ScaledProduct &P) {
  if (E->getType() != Ty)
    return false;
  if (const auto *L = dyn_cast<FloatLitExpr>(E)) {
    if (!isPowerOfTwo(L->getValue()))
      return false;
    P.Coeff *= L->getValue();
    return true;
  }
  if (const auto *N = asNeg(E)) {
    P.Coeff = -P.Coeff;
    return collectProduct(N->getSub(), Ty, P);
  }
  const auto *B = dyn_cast<BinaryExpr>(E);
  if (B && B->getOp() == BinaryOp::Mul)
    return collectProduct(B->getLHS(), Ty, P) &&
           collectProduct(B->getRHS(), Ty, P);
  if (P.Factors.size() == 2 || !isPureExpr(E))
    return false;
  P.Factors.push_back(E);
  return true;
}

std::optional<ScaledProduct> asScaledProduct(const Expr *E) {
  ScaledProduct P;
  if (!E->getType()->isFloatingScalar() ||
      !collectProduct(E, E->getType(), P) || P.Factors.empty())
    return std::nullopt;
  return P;
}

class Folder {
public:
  explicit Folder(Module &M) : M(M), B(M) {}

  const Expr *fold(const Expr *E) {
    if (const auto *U = asNeg(E))
      if (const auto *Inner = asNeg(U->getSub()))
        return Inner->getSub();
    if (const auto *Bin = dyn_cast<BinaryExpr>(E))
      return foldBinary(Bin);
    if (const auto *C = dyn_cast<CastExpr>(E))
      return foldCast(C);
    return E;
  }

private:
  const Expr *make(BinaryOp Op, const Type *Ty, const Expr *L,
                   const Expr *R) {
    return M.create<BinaryExpr>(Ty, Op, L, R);
  }

  /// -X, or Y for X = -Y.
  const Expr *negate(const Expr *X) {
    if (const auto *N = asNeg(X))
      return N->getSub();
    return M.create<UnaryExpr>(X->getType(), UnaryOp::Neg, X);
  }

  const Expr *twice(const BinaryExpr *E, const Expr *X) {
    const Type *Ty = E->getType();
    const Expr *Two = B.floatLit(Ty, 2.0);
    if (const auto *Mul = dyn_cast<BinaryExpr>(X))
      if (Mul->getOp() == BinaryOp::Mul &&
          Mul->getLHS()->getType() == Ty)
        return make(BinaryOp::Mul, Ty, make(BinaryOp::Mul, Ty, Two,
                                            Mul->getLHS()),
                    Mul->getRHS());
    return make(BinaryOp::Mul, Ty, Two, X);
  }

  /// c1 P + c2 P (or -) -> (c1 +- c2) P, for like terms (ScaledProduct).
  const Expr *combineLikeTerms(const BinaryExpr *E, bool Negate) {
    std::optional<ScaledProduct> L = asScaledProduct(E->getLHS());
    std::optional<ScaledProduct> R = asScaledProduct(E->getRHS());
    if (!L || !R || L->Factors.front()->getType() != E->getType() ||
        !L->sameFactors(*R))
      return E;
    const Type *Ty = E->getType();
    double C = Negate ? L->Coeff - R->Coeff : L->Coeff + R->Coeff;
    if (C == 0) // P - P is NaN for an infinite P: leave it.
      return E;
    const Expr *Product = L->Factors[0];
    if (L->Factors.size() == 2) {
      // (c * f1) * f2 when c scales exactly, else c * (f1 * f2).
      if (isPowerOfTwo(C) && std::fabs(C) != 1)
        return make(BinaryOp::Mul, Ty,
                    make(BinaryOp::Mul, Ty, B.floatLit(Ty, C), Product),
                    L->Factors[1]);
      Product = make(BinaryOp::Mul, Ty, Product, L->Factors[1]);
    }
    if (C == 1)
      return Product;
    if (C == -1)
      return negate(Product);
    return make(BinaryOp::Mul, Ty, B.floatLit(Ty, C), Product);
  }

  const Expr *foldBinary(const BinaryExpr *E) {
    const Type *Ty = E->getType();
    const Expr *L = E->getLHS(), *R = E->getRHS();
    if (!isScalarArithmetic(Ty) || !isScalarArithmetic(L->getType()) ||
        !isScalarArithmetic(R->getType()))
      return E;
    bool KeepL = L->getType() == Ty, KeepR = R->getType() == Ty;
    switch (E->getOp()) {
    case BinaryOp::Mul:
      if ((isLiteralValue(L, 0) && isPureExpr(R)) ||
          (isLiteralValue(R, 0) && isPureExpr(L)))
        return B.zero(Ty);
      if (isLiteralValue(L, 1) && KeepR)
        return R;
      if (isLiteralValue(R, 1) && KeepL)
        return L;
      if (isLiteralValue(L, -1) && KeepR)
        return negate(R);
      if (isLiteralValue(R, -1) && KeepL)
        return negate(L);
      return E;
    case BinaryOp::Div:
      return isLiteralValue(R, 1) && KeepL ? L : E;
    case BinaryOp::Add:
      if (isLiteralValue(L, 0) && KeepR)
        return R;
      if (isLiteralValue(R, 0) && KeepL)
        return L;
      if (const auto *N = asNeg(R); N && KeepL && KeepR)
        return make(BinaryOp::Sub, Ty, L, N->getSub());
      if (Ty->isFloatingScalar() && KeepL && KeepR &&
          equalUpToCommuting(L, R))
        return twice(E, L);
      return combineLikeTerms(E, /*Negate=*/false);
    case BinaryOp::Sub:
      if (isLiteralValue(R, 0) && KeepL)
        return L;
      if (isLiteralValue(L, 0) && KeepR)
        return negate(R);
      if (const auto *N = asNeg(R); N && KeepL && KeepR)
        return make(BinaryOp::Add, Ty, L, N->getSub());
      return combineLikeTerms(E, /*Negate=*/true);
    default:
      return E;
    }
  }

  /// (double)0 -> 0., (float)1 -> 1.f.
  const Expr *foldCast(const CastExpr *C) {
    const Type *Ty = C->getType();
    if (!isScalarArithmetic(Ty) || !isScalarArithmetic(C->getSub()->getType()))
      return C;
    for (double V : {0.0, 1.0}) {
      if (!isLiteralValue(C->getSub(), V))
        continue;
      if (Ty->isFloatingScalar())
        return B.floatLit(Ty, V);
      return B.intLit(static_cast<long long>(V), Ty);
    }
    return C;
  }

  Module &M;
  IRBuilder B;
};

} // namespace

bool simplify::foldAlgebra(Module &M, Function &F) {
  if (!F.getBody())
    return false;
  Folder Fold(M);
  return rewriteFunctionExprs(M, F, [&](const Expr *E) {
    return rebuildBottomUp(M, E, [&](const Expr *X) { return Fold.fold(X); });
  });
}
