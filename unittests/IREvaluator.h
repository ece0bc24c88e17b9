//===- unittests/IREvaluator.h - Evaluating scalar IR in tests --*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A small evaluator of scalar IR expressions for unit tests: variables are
/// bound to values, everything is computed in double (float-typed
/// expressions too), comparisons give 1 or 0, and calls of math functions of
/// the rule table are evaluated with <cmath> (CUDA float intrinsics through
/// their double equivalents). Unsupported nodes are test failures.
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_UNITTESTS_IREVALUATOR_H
#define MESHAD_UNITTESTS_IREVALUATOR_H

#include "IR/IR.h"
#include "Rules/DerivativeRules.h"
#include "meshad/codegen/Polygamma.h"

#include "gtest/gtest.h"

#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <vector>

namespace meshad {
namespace test {

/// Evaluates scalar IR expressions in double.
class IREvaluator {
public:
  void set(const ir::Var *V, double Value) { Values[V] = Value; }

  double eval(const ir::Expr *E) const {
    using ir::Expr;
    switch (E->getKind()) {
    case Expr::Kind::FloatLit:
      return llvm::cast<ir::FloatLitExpr>(E)->getValue();
    case Expr::Kind::IntLit:
      return llvm::cast<ir::IntLitExpr>(E)->getValue();
    case Expr::Kind::BoolLit:
      return llvm::cast<ir::BoolLitExpr>(E)->getValue();
    case Expr::Kind::VarRef:
      return evalVar(llvm::cast<ir::VarRefExpr>(E)->getVar());
    case Expr::Kind::Unary:
      return evalUnary(llvm::cast<ir::UnaryExpr>(E));
    case Expr::Kind::Binary:
      return evalBinary(llvm::cast<ir::BinaryExpr>(E));
    case Expr::Kind::Conditional: {
      const auto *C = llvm::cast<ir::ConditionalExpr>(E);
      return eval(C->getCond()) != 0 ? eval(C->getTrue()) : eval(C->getFalse());
    }
    case Expr::Kind::Cast:
      return eval(llvm::cast<ir::CastExpr>(E)->getSub());
    case Expr::Kind::Call:
      return evalCall(llvm::cast<ir::CallExpr>(E));
    default:
      return unsupported("expression kind");
    }
  }

  /// Evaluates the math function spelled \p Name (any spelling the rule
  /// table knows) in double.
  static double callMath(const std::string &Name,
                         const std::vector<double> &Args) {
    int Id = RuleTable::get().lookup(Name, /*FloatingArgs=*/true);
    if (Id < 0)
      return unsupported("function " + Name);
    const MathRule &R = RuleTable::get().getRule(Id);
    const std::string &Key = R.DoubleName.empty() ? R.FloatName : R.DoubleName;
    const auto &Fns = functions();
    auto It = Fns.find(Key);
    if (It == Fns.end())
      return unsupported("function " + Key);
    if (Args.size() != R.Arity)
      return unsupported("argument count of " + Key);
    return It->second(Args);
  }

private:
  using MathFn = std::function<double(const std::vector<double> &)>;

  static double unsupported(const std::string &What) {
    ADD_FAILURE() << "IREvaluator: unsupported " << What;
    return std::numeric_limits<double>::quiet_NaN();
  }

  double evalVar(const ir::Var *V) const {
    auto It = Values.find(V);
    if (It == Values.end())
      return unsupported("unbound variable " + V->getName());
    return It->second;
  }

  double evalUnary(const ir::UnaryExpr *U) const {
    double S = eval(U->getSub());
    switch (U->getOp()) {
    case ir::UnaryOp::Neg:
      return -S;
    case ir::UnaryOp::Plus:
      return S;
    case ir::UnaryOp::Not:
      return S == 0;
    default:
      return unsupported("unary operator");
    }
  }

  double evalBinary(const ir::BinaryExpr *B) const {
    double L = eval(B->getLHS()), R = eval(B->getRHS());
    switch (B->getOp()) {
    case ir::BinaryOp::Add:
      return L + R;
    case ir::BinaryOp::Sub:
      return L - R;
    case ir::BinaryOp::Mul:
      return L * R;
    case ir::BinaryOp::Div:
      return L / R;
    case ir::BinaryOp::Lt:
      return L < R;
    case ir::BinaryOp::Gt:
      return L > R;
    case ir::BinaryOp::Le:
      return L <= R;
    case ir::BinaryOp::Ge:
      return L >= R;
    case ir::BinaryOp::Eq:
      return L == R;
    case ir::BinaryOp::Ne:
      return L != R;
    case ir::BinaryOp::LAnd:
      return L != 0 && R != 0;
    case ir::BinaryOp::LOr:
      return L != 0 || R != 0;
    default:
      return unsupported("binary operator");
    }
  }

  double evalCall(const ir::CallExpr *C) const {
    if (C->getCalleeKind() != ir::CallExpr::CalleeKind::Math)
      return unsupported("call of " + C->getName());
    std::vector<double> Args;
    for (const ir::Expr *A : C->getArgs())
      Args.push_back(eval(A));
    return callMath(C->getName(), Args);
  }

  /// The inverse of std::erf on (-1, 1), by Newton's method.
  static double erfinv(double X) {
    double Y = 0;
    for (int I = 0; I < 100; ++I)
      Y -= (std::erf(Y) - X) / (1.1283791670955126 * std::exp(-Y * Y));
    return Y;
  }

  /// <cmath> implementations, by double name (float name for intrinsics).
  static const std::map<std::string, MathFn> &functions() {
    static const double Pi = 3.14159265358979323846;
    auto F1 = [](double (*F)(double)) {
      return MathFn([F](const std::vector<double> &A) { return F(A[0]); });
    };
    auto F2 = [](double (*F)(double, double)) {
      return MathFn(
          [F](const std::vector<double> &A) { return F(A[0], A[1]); });
    };
    static const std::map<std::string, MathFn> Fns = {
        {"sqrt", F1([](double X) { return std::sqrt(X); })},
        {"rsqrt", F1([](double X) { return 1 / std::sqrt(X); })},
        {"cbrt", F1([](double X) { return std::cbrt(X); })},
        {"rcbrt", F1([](double X) { return 1 / std::cbrt(X); })},
        {"exp", F1([](double X) { return std::exp(X); })},
        {"exp2", F1([](double X) { return std::exp2(X); })},
        {"exp10", F1([](double X) { return std::pow(10.0, X); })},
        {"expm1", F1([](double X) { return std::expm1(X); })},
        {"log", F1([](double X) { return std::log(X); })},
        {"log2", F1([](double X) { return std::log2(X); })},
        {"log10", F1([](double X) { return std::log10(X); })},
        {"log1p", F1([](double X) { return std::log1p(X); })},
        {"pow", F2([](double X, double Y) { return std::pow(X, Y); })},
        {"sin", F1([](double X) { return std::sin(X); })},
        {"cos", F1([](double X) { return std::cos(X); })},
        {"tan", F1([](double X) { return std::tan(X); })},
        {"sinpi", F1([](double X) { return std::sin(Pi * X); })},
        {"cospi", F1([](double X) { return std::cos(Pi * X); })},
        {"asin", F1([](double X) { return std::asin(X); })},
        {"acos", F1([](double X) { return std::acos(X); })},
        {"atan", F1([](double X) { return std::atan(X); })},
        {"atan2", F2([](double X, double Y) { return std::atan2(X, Y); })},
        {"sinh", F1([](double X) { return std::sinh(X); })},
        {"cosh", F1([](double X) { return std::cosh(X); })},
        {"tanh", F1([](double X) { return std::tanh(X); })},
        {"asinh", F1([](double X) { return std::asinh(X); })},
        {"acosh", F1([](double X) { return std::acosh(X); })},
        {"atanh", F1([](double X) { return std::atanh(X); })},
        {"hypot", F2([](double X, double Y) { return std::hypot(X, Y); })},
        {"erf", F1([](double X) { return std::erf(X); })},
        {"erfc", F1([](double X) { return std::erfc(X); })},
        {"normcdf",
         F1([](double X) { return 0.5 * std::erfc(-X / std::sqrt(2.0)); })},
        {"fabs", F1([](double X) { return std::fabs(X); })},
        {"fmin", F2([](double X, double Y) { return std::fmin(X, Y); })},
        {"fmax", F2([](double X, double Y) { return std::fmax(X, Y); })},
        {"fma", MathFn([](const std::vector<double> &A) {
           return std::fma(A[0], A[1], A[2]);
         })},
        {"fmod", F2([](double X, double Y) { return std::fmod(X, Y); })},
        {"copysign",
         F2([](double X, double Y) { return std::copysign(X, Y); })},
        {"floor", F1([](double X) { return std::floor(X); })},
        {"ceil", F1([](double X) { return std::ceil(X); })},
        {"round", F1([](double X) { return std::round(X); })},
        {"trunc", F1([](double X) { return std::trunc(X); })},
        {"rint", F1([](double X) { return std::rint(X); })},
        {"nearbyint", F1([](double X) { return std::nearbyint(X); })},
        // CUDA float intrinsics, through their double equivalents.
        {"__expf", F1([](double X) { return std::exp(X); })},
        {"__exp10f", F1([](double X) { return std::pow(10.0, X); })},
        {"__logf", F1([](double X) { return std::log(X); })},
        {"__log2f", F1([](double X) { return std::log2(X); })},
        {"__log10f", F1([](double X) { return std::log10(X); })},
        {"__powf", F2([](double X, double Y) { return std::pow(X, Y); })},
        {"__sinf", F1([](double X) { return std::sin(X); })},
        {"__cosf", F1([](double X) { return std::cos(X); })},
        {"__tanf", F1([](double X) { return std::tan(X); })},
        {"__fdividef", F2([](double X, double Y) { return X / Y; })},
        {"fdim", F2([](double X, double Y) { return std::fdim(X, Y); })},
        {"remainder",
         F2([](double X, double Y) { return std::remainder(X, Y); })},
        {"ldexp", F2([](double X, double N) {
           return std::ldexp(X, static_cast<int>(N));
         })},
        {"scalbn", F2([](double X, double N) {
           return std::scalbn(X, static_cast<int>(N));
         })},
        {"lgamma", F1([](double X) { return std::lgamma(X); })},
        {"tgamma", F1([](double X) { return std::tgamma(X); })},
        {"meshad::polygamma", F2([](double N, double X) {
           return meshad::polygamma(std::floor(N), X);
         })},
        {"rhypot",
         F2([](double X, double Y) { return 1 / std::hypot(X, Y); })},
        {"norm3d", MathFn([](const std::vector<double> &A) {
           return std::sqrt(A[0] * A[0] + A[1] * A[1] + A[2] * A[2]);
         })},
        {"rnorm3d", MathFn([](const std::vector<double> &A) {
           return 1 / std::sqrt(A[0] * A[0] + A[1] * A[1] + A[2] * A[2]);
         })},
        {"erfinv", F1(erfinv)},
        {"erfcinv", F1([](double X) { return erfinv(1 - X); })},
    };
    return Fns;
  }

  std::map<const ir::Var *, double> Values;
};

} // namespace test
} // namespace meshad

#endif // MESHAD_UNITTESTS_IREVALUATOR_H
