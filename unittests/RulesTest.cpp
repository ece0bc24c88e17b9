//===- unittests/RulesTest.cpp - Tests of the derivative rule table -------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "Emit/CudaEmitter.h"
#include "IREvaluator.h"
#include "Rules/DerivativeRules.h"
#include "Rules/PartialProducts.h"
#include "Rules/RuleLanguage.h"

#include "gtest/gtest.h"

#include <array>
#include <cmath>
#include <functional>
#include <map>
#include <random>

using namespace meshad;

namespace {

/// Where a function is smooth: one sampling interval per argument, and a
/// predicate that rejects points near kinks, cuts and singularities.
struct Domain {
  std::vector<std::pair<double, double>> Ranges;
  std::function<bool(const std::vector<double> &)> Ok = nullptr;
};

bool awayFromZero(double V, double Margin = 0.1) {
  return std::fabs(V) > Margin;
}

/// Domains of every differentiable rule, by double name (float name for
/// intrinsics). Every differentiable rule of the table must be listed.
const std::map<std::string, Domain> &domains() {
  auto NonZero1 = [](const std::vector<double> &A) {
    return awayFromZero(A[0]);
  };
  auto NonZero2 = [](const std::vector<double> &A) {
    return awayFromZero(A[0]) && awayFromZero(A[1]);
  };
  auto NoTie = [](const std::vector<double> &A) {
    return awayFromZero(A[0] - A[1]);
  };
  auto FmodSmooth = [](const std::vector<double> &A) {
    double Q = A[0] / A[1];
    return awayFromZero(A[1], 0.5) && awayFromZero(Q - std::round(Q), 0.05);
  };
  auto DenomOk = [](const std::vector<double> &A) {
    return awayFromZero(A[1]);
  };
  // remainder rounds x / y to the nearest integer: away from the halves.
  auto RemainderSmooth = [](const std::vector<double> &A) {
    double Q = A[0] / A[1];
    return awayFromZero(A[1], 0.5) &&
           awayFromZero(Q - std::floor(Q) - 0.5, 0.05);
  };
  // An integer argument (an exponent, a derivative order): the evaluator
  // truncates it, so its partial is 0 away from whole numbers.
  auto NotWhole1 = [](const std::vector<double> &A) {
    return awayFromZero(A[0] - std::round(A[0]), 0.05);
  };
  auto NotWhole2 = [](const std::vector<double> &A) {
    return awayFromZero(A[1] - std::round(A[1]), 0.05);
  };
  static const std::map<std::string, Domain> Domains = {
      {"sqrt", {{{0.1, 10}}}},
      {"rsqrt", {{{0.1, 10}}}},
      {"cbrt", {{{-10, 10}}, NonZero1}},
      {"rcbrt", {{{-10, 10}}, NonZero1}},
      {"exp", {{{-5, 5}}}},
      {"exp2", {{{-5, 5}}}},
      {"exp10", {{{-3, 3}}}},
      {"expm1", {{{-5, 5}}}},
      {"log", {{{0.01, 100}}}},
      {"log2", {{{0.01, 100}}}},
      {"log10", {{{0.01, 100}}}},
      {"log1p", {{{-0.9, 10}}}},
      {"pow", {{{0.1, 5}, {-3, 3}}}},
      {"sin", {{{-10, 10}}}},
      {"cos", {{{-10, 10}}}},
      {"tan", {{{-1.4, 1.4}}}},
      {"sinpi", {{{-3, 3}}}},
      {"cospi", {{{-3, 3}}}},
      {"asin", {{{-0.95, 0.95}}}},
      {"acos", {{{-0.95, 0.95}}}},
      {"atan", {{{-10, 10}}}},
      // atan2 has its cut where the first argument changes sign.
      {"atan2", {{{-5, 5}, {-5, 5}}, NonZero2}},
      {"sinh", {{{-3, 3}}}},
      {"cosh", {{{-3, 3}}}},
      {"tanh", {{{-3, 3}}}},
      {"asinh", {{{-10, 10}}}},
      {"acosh", {{{1.1, 10}}}},
      {"atanh", {{{-0.9, 0.9}}}},
      {"hypot", {{{-5, 5}, {-5, 5}}, NonZero2}},
      {"erf", {{{-3, 3}}}},
      {"erfc", {{{-3, 3}}}},
      {"normcdf", {{{-3, 3}}}},
      {"fabs", {{{-10, 10}}, NonZero1}},
      {"fmin", {{{-5, 5}, {-5, 5}}, NoTie}},
      {"fmax", {{{-5, 5}, {-5, 5}}, NoTie}},
      {"fma", {{{-5, 5}, {-5, 5}, {-5, 5}}}},
      {"fmod", {{{-10, 10}, {-3, 3}}, FmodSmooth}},
      {"copysign", {{{-5, 5}, {-5, 5}}, NonZero2}},
      {"__expf", {{{-5, 5}}}},
      {"__exp10f", {{{-3, 3}}}},
      {"__logf", {{{0.01, 100}}}},
      {"__log2f", {{{0.01, 100}}}},
      {"__log10f", {{{0.01, 100}}}},
      {"__powf", {{{0.1, 5}, {-3, 3}}}},
      {"__sinf", {{{-10, 10}}}},
      {"__cosf", {{{-10, 10}}}},
      {"__tanf", {{{-1.4, 1.4}}}},
      {"__fdividef", {{{-5, 5}, {-5, 5}}, DenomOk}},
      {"fdim", {{{-5, 5}, {-5, 5}}, NoTie}},
      {"remainder", {{{-10, 10}, {-3, 3}}, RemainderSmooth}},
      {"ldexp", {{{-5, 5}, {-3, 3}}, NotWhole2}},
      {"scalbn", {{{-5, 5}, {-3, 3}}, NotWhole2}},
      {"lgamma", {{{0.2, 8}}}},
      {"tgamma", {{{0.2, 5}}}},
      {"meshad::polygamma", {{{0, 3}, {0.3, 8}}, NotWhole1}},
      {"rhypot", {{{-5, 5}, {-5, 5}}, NonZero2}},
      {"norm3d", {{{-5, 5}, {-5, 5}, {-5, 5}}, NonZero1}},
      {"rnorm3d", {{{-5, 5}, {-5, 5}, {-5, 5}}, NonZero1}},
      {"erfinv", {{{-0.9, 0.9}}}},
      {"erfcinv", {{{0.1, 1.9}}}},
  };
  return Domains;
}

std::string keyName(const MathRule &R) {
  return R.DoubleName.empty() ? R.FloatName : R.DoubleName;
}

/// True for the rules of / and /=.
bool divides(const MathRule &R) {
  return (R.F == MathRule::Form::Binary &&
          R.OpCode == int(ir::BinaryOp::Div)) ||
         (R.F == MathRule::Form::Assign &&
          R.OpCode == int(ir::AssignOp::DivAssign));
}

/// The domain of rule \p R: listed for functions, any point for operators
/// (away from a zero divisor).
const Domain *domainOf(const MathRule &R) {
  static const Domain Unary = {{{-5, 5}}};
  static const Domain Binary = {{{-5, 5}, {-5, 5}}};
  static const Domain Divide = {{{-5, 5}, {-5, 5}},
                                [](const std::vector<double> &A) {
                                  return awayFromZero(A[1]);
                                }};
  if (R.isOperator())
    return divides(R) ? &Divide : R.Arity == 1 ? &Unary : &Binary;
  auto It = domains().find(keyName(R));
  return It == domains().end() ? nullptr : &It->second;
}

/// The binary operator that the compound assignment \p Op applies.
ir::BinaryOp appliedOperator(ir::AssignOp Op) {
  switch (Op) {
  case ir::AssignOp::SubAssign:
    return ir::BinaryOp::Sub;
  case ir::AssignOp::MulAssign:
    return ir::BinaryOp::Mul;
  case ir::AssignOp::DivAssign:
    return ir::BinaryOp::Div;
  default:
    return ir::BinaryOp::Add;
  }
}

/// The value of rule \p Id at \p P in double: the function, the operator,
/// or the new value x Op y of a compound assignment x Op= y.
double primalValue(int Id, const std::vector<double> &P) {
  const RuleTable &Table = RuleTable::get();
  const MathRule &R = Table.getRule(Id);
  if (!R.isOperator())
    return test::IREvaluator::callMath(keyName(R), P);
  ir::Module M;
  const ir::Type *D = M.getTypes().getDouble();
  std::vector<const ir::Expr *> Args;
  test::IREvaluator Eval;
  for (unsigned I = 0; I < P.size(); ++I) {
    ir::Var *V = M.createVar(std::string(1, 'x' + I), D);
    Eval.set(V, P[I]);
    Args.push_back(M.create<ir::VarRefExpr>(V));
  }
  if (R.F == MathRule::Form::Assign)
    return Eval.eval(M.create<ir::BinaryExpr>(
        D, appliedOperator(ir::AssignOp(R.OpCode)), Args[0], Args[1]));
  return Eval.eval(Table.buildResult(M, Id, Args, D));
}

/// Builds the arguments x, y, z as variables of one type in a module.
class RulesTest : public ::testing::Test {
protected:
  std::vector<const ir::Expr *> argsOf(const ir::Type *Ty, unsigned N) {
    std::vector<const ir::Expr *> Args;
    for (unsigned I = 0; I < N; ++I) {
      ir::Var *V = M.createVar(std::string(1, 'x' + I), Ty);
      Args.push_back(M.create<ir::VarRefExpr>(V));
    }
    return Args;
  }

  const ir::Expr *varRef(const std::string &Name) {
    return M.create<ir::VarRefExpr>(
        M.createVar(Name, M.getTypes().getDouble()));
  }

  static void bind(test::IREvaluator &Eval,
                   const std::vector<const ir::Expr *> &Args,
                   const std::vector<double> &Values) {
    for (unsigned I = 0; I < Args.size(); ++I)
      Eval.set(llvm::cast<ir::VarRefExpr>(Args[I])->getVar(), Values[I]);
  }

  const RuleTable &Table = RuleTable::get();
  ir::Module M;
};

/// Fourth-order central difference of rule \p Id in argument \p ArgNo at
/// \p P: (8 (f(x+h) - f(x-h)) - (f(x+2h) - f(x-2h))) / 12h, with a relative
/// step small enough to stay off the kinks the domains avoid, large enough
/// that rounding stays far below the 1e-6 tolerance.
double centralDifference(int Id, std::vector<double> P, unsigned ArgNo) {
  double X = P[ArgNo];
  double H = 1e-4 * std::max(1.0, std::fabs(X));
  auto At = [&](double Offset) {
    P[ArgNo] = X + Offset;
    return primalValue(Id, P);
  };
  // Differences first: a locally constant function gives exactly 0.
  return (8 * (At(H) - At(-H)) - (At(2 * H) - At(-2 * H))) / (12 * H);
}

double relativeError(double Got, double Want) {
  return Got == Want ? 0.0
                     : std::fabs(Got - Want) /
                           std::max(std::fabs(Want), 1e-300);
}

/// Every partial of every differentiable rule, functions and operators, in
/// both forms: with the result at hand (a variable bound to the primal
/// value) and without it (the second form, or the result recomputed).
TEST_F(RulesTest, EveryPartialMatchesFiniteDifferences) {
  std::mt19937 Rng(20240611);
  unsigned Checked = 0;
  const ir::Type *D = M.getTypes().getDouble();
  const ir::Expr *Result = varRef("r");
  for (unsigned Id = 0; Id < Table.size(); ++Id) {
    const MathRule &R = Table.getRule(Id);
    if (R.isNonDifferentiable())
      continue;
    std::string Name = R.isOperator() ? R.displayName() : keyName(R);
    const Domain *Dom = domainOf(R);
    if (!Dom) {
      ADD_FAILURE() << "no test domain for " << Name;
      continue;
    }
    ASSERT_EQ(Dom->Ranges.size(), R.Arity) << Name;
    std::vector<const ir::Expr *> Args = argsOf(D, R.Arity);
    bool CanKeep = R.F != MathRule::Form::Assign;
    for (unsigned ArgNo = 0; ArgNo < R.Arity; ++ArgNo) {
      const ir::Expr *Without = Table.buildPartial(M, Id, ArgNo, Args, D);
      const ir::Expr *With =
          CanKeep ? Table.buildPartial(M, Id, ArgNo, Args, D, Result)
                  : Without;
      ASSERT_NE(Without, nullptr) << Name;
      EXPECT_EQ(Without->getType(), D) << Name;
      for (unsigned Point = 0; Point < 20;) {
        std::vector<double> P;
        for (const auto &[Lo, Hi] : Dom->Ranges)
          P.push_back(std::uniform_real_distribution<double>(Lo, Hi)(Rng));
        if (Dom->Ok && !Dom->Ok(P))
          continue;
        ++Point;
        test::IREvaluator Eval;
        bind(Eval, Args, P);
        Eval.set(llvm::cast<ir::VarRefExpr>(Result)->getVar(),
                 primalValue(Id, P));
        double Numeric = centralDifference(Id, P, ArgNo);
        for (const ir::Expr *Partial : {Without, With}) {
          double Analytic = Eval.eval(Partial);
          EXPECT_LE(relativeError(Analytic, Numeric), 1e-6)
              << Name << " d/darg" << ArgNo << " at (" << P[0]
              << (P.size() > 1 ? ", " + std::to_string(P[1]) : "")
              << (P.size() > 2 ? ", " + std::to_string(P[2]) : "")
              << "): rule " << Analytic << ", finite difference " << Numeric
              << (Partial == With ? " (result kept)" : "");
          ++Checked;
        }
      }
    }
  }
  EXPECT_GT(Checked, 2u * 20u * 60);
}

TEST_F(RulesTest, ArithmeticOperatorsHaveRules) {
  using ir::AssignOp;
  using ir::BinaryOp;
  for (BinaryOp Op :
       {BinaryOp::Add, BinaryOp::Sub, BinaryOp::Mul, BinaryOp::Div})
    EXPECT_GE(Table.lookupOperator(Op), 0) << int(Op);
  for (AssignOp Op : {AssignOp::AddAssign, AssignOp::SubAssign,
                      AssignOp::MulAssign, AssignOp::DivAssign,
                      AssignOp::Accumulate})
    EXPECT_GE(Table.lookupOperator(Op), 0) << int(Op);
  EXPECT_GE(Table.lookupOperator(ir::UnaryOp::Neg), 0);
  // Comparisons, logic, ++, = and memory operators carry no derivative.
  for (BinaryOp Op : {BinaryOp::Lt, BinaryOp::Eq, BinaryOp::LAnd})
    EXPECT_EQ(Table.lookupOperator(Op), -1) << int(Op);
  for (AssignOp Op : {AssignOp::Assign, AssignOp::Inc, AssignOp::Dec})
    EXPECT_EQ(Table.lookupOperator(Op), -1) << int(Op);
  EXPECT_EQ(Table.lookupOperator(ir::UnaryOp::Deref), -1);
  EXPECT_EQ(Table.lookupOperator(ir::UnaryOp::AddrOf), -1);
  // Operators have no names: no function lookup finds them.
  EXPECT_EQ(Table.lookup("+"), -1);
  EXPECT_EQ(Table.lookup(""), -1);
}

/// What each partial reads: the needs analysis saves exactly these.
TEST_F(RulesTest, ReadsFlagsOfEachPartial) {
  using ir::AssignOp;
  using ir::BinaryOp;
  struct Case {
    int Id;
    unsigned ArgNo;
    bool Kept;
    std::array<unsigned, 3> Args;
    unsigned Result;
  };
  int Add = Table.lookupOperator(BinaryOp::Add);
  int Sub = Table.lookupOperator(BinaryOp::Sub);
  int Mul = Table.lookupOperator(BinaryOp::Mul);
  int Div = Table.lookupOperator(BinaryOp::Div);
  int Neg = Table.lookupOperator(ir::UnaryOp::Neg);
  int AddA = Table.lookupOperator(AssignOp::AddAssign);
  int SubA = Table.lookupOperator(AssignOp::SubAssign);
  int MulA = Table.lookupOperator(AssignOp::MulAssign);
  int DivA = Table.lookupOperator(AssignOp::DivAssign);
  int Acc = Table.lookupOperator(AssignOp::Accumulate);
  int Fma = Table.lookup("fma"), Fmin = Table.lookup("fmin");
  int Fmax = Table.lookup("fmax"), Exp = Table.lookup("exp");
  int Sqrt = Table.lookup("sqrt"), Hypot = Table.lookup("hypot");
  EXPECT_EQ(Table.lookup("fmaf"), Fma);
  EXPECT_EQ(Table.lookup("fminf"), Fmin);
  EXPECT_EQ(Table.lookup("fmaxf"), Fmax);
  const Case Cases[] = {
      {Add, 0, false, {0, 0, 0}, 0},  {Add, 1, false, {0, 0, 0}, 0},
      {Sub, 0, false, {0, 0, 0}, 0},  {Sub, 1, false, {0, 0, 0}, 0},
      {Mul, 0, false, {0, 1, 0}, 0},  {Mul, 1, false, {1, 0, 0}, 0},
      {Div, 0, false, {0, 1, 0}, 0},  {Div, 0, true, {0, 1, 0}, 0},
      {Div, 1, true, {0, 1, 0}, 1},   {Div, 1, false, {1, 2, 0}, 0},
      {Neg, 0, false, {0, 0, 0}, 0},  {AddA, 0, false, {0, 0, 0}, 0},
      {AddA, 1, false, {0, 0, 0}, 0}, {SubA, 1, false, {0, 0, 0}, 0},
      {Acc, 1, false, {0, 0, 0}, 0},  {MulA, 0, false, {0, 1, 0}, 0},
      {MulA, 1, false, {1, 0, 0}, 0}, {DivA, 0, false, {0, 1, 0}, 0},
      {DivA, 1, false, {1, 2, 0}, 0}, {Fma, 0, false, {0, 1, 0}, 0},
      {Fma, 1, false, {1, 0, 0}, 0},  {Fma, 2, false, {0, 0, 0}, 0},
      {Fmin, 0, false, {1, 1, 0}, 0}, {Fmin, 1, false, {1, 1, 0}, 0},
      {Fmax, 0, false, {1, 1, 0}, 0}, {Fmax, 1, false, {1, 1, 0}, 0},
      {Exp, 0, true, {0, 0, 0}, 1},   {Exp, 0, false, {0, 0, 0}, 1},
      {Sqrt, 0, true, {0, 0, 0}, 1},  {Hypot, 1, true, {0, 1, 0}, 1},
  };
  for (const Case &C : Cases) {
    ASSERT_GE(C.Id, 0);
    RuleReads R = Table.getReads(C.Id, C.ArgNo, C.Kept);
    std::string What = Table.getRule(C.Id).displayName() + " d/darg" +
                       std::to_string(C.ArgNo) + (C.Kept ? " kept" : "");
    for (unsigned I = 0; I < 3; ++I)
      EXPECT_EQ(R.Args[I], C.Args[I]) << What << " reads of arg " << I;
    EXPECT_EQ(R.Result, C.Result) << What << " reads of the result";
  }
  // A result that is not kept is recomputed from every argument.
  EXPECT_TRUE(Table.getReads(Exp, 0, false).readsArg(0, false));
  EXPECT_FALSE(Table.getReads(Exp, 0, true).readsArg(0, true));
  // Sums over the active arguments: a*b with both active reads both.
  RuleReads Both = Table.getReadsOf(Mul, 3, false);
  EXPECT_EQ(Both.Args[0], 1u);
  EXPECT_EQ(Both.Args[1], 1u);
  EXPECT_EQ(Table.getReadsOf(Mul, 1, false).Args[0], 0u);
  // Partials of the constant 1 leave the seed alone.
  for (auto [Id, ArgNo] : {std::pair(Add, 0u), std::pair(Add, 1u),
                           std::pair(Sub, 0u), std::pair(AddA, 0u),
                           std::pair(SubA, 0u), std::pair(Acc, 1u),
                           std::pair(Fma, 2u)})
    EXPECT_TRUE(Table.isUnitPartial(Id, ArgNo))
        << Table.getRule(Id).displayName() << " " << ArgNo;
  for (auto [Id, ArgNo] : {std::pair(Sub, 1u), std::pair(Mul, 0u),
                           std::pair(MulA, 0u), std::pair(DivA, 0u)})
    EXPECT_FALSE(Table.isUnitPartial(Id, ArgNo))
        << Table.getRule(Id).displayName() << " " << ArgNo;
}

/// The products and sums read like hand-written derivatives.
TEST_F(RulesTest, SeedsTimesPartialsFoldLikeHandWrittenCode) {
  ir::IRBuilder B(M);
  const ir::Type *D = M.getTypes().getDouble();
  std::vector<const ir::Expr *> Args = argsOf(D, 2);
  const ir::Expr *DX = varRef("_d_x"), *DY = varRef("_d_y");
  const ir::Expr *R = varRef("r");
  auto Tangent = [&](int Id, const ir::Expr *Result) {
    const ir::Expr *T = nullptr;
    for (unsigned I = 0; I < 2; ++I)
      T = addContributions(
          B, T,
          scaleByPartial(B, I == 0 ? DX : DY,
                         Table.buildPartial(M, Id, I, Args, D, Result),
                         seedPlace(Table.getRule(Id), I, false)));
    return CudaEmitter::emitExpr(T);
  };
  using ir::BinaryOp;
  EXPECT_EQ(Tangent(Table.lookupOperator(BinaryOp::Add), nullptr),
            "_d_x + _d_y");
  EXPECT_EQ(Tangent(Table.lookupOperator(BinaryOp::Sub), nullptr),
            "_d_x - _d_y");
  EXPECT_EQ(Tangent(Table.lookupOperator(BinaryOp::Mul), nullptr),
            "_d_x * y + x * _d_y");
  EXPECT_EQ(Tangent(Table.lookupOperator(BinaryOp::Div), R),
            "(_d_x - r * _d_y) / y");
  EXPECT_EQ(Tangent(Table.lookupOperator(BinaryOp::Div), nullptr),
            "(_d_x * y - x * _d_y) / (y * y)");
  EXPECT_EQ(Tangent(Table.lookupOperator(ir::AssignOp::DivAssign), nullptr),
            "(_d_x * y - x * _d_y) / (y * y)");
  EXPECT_EQ(Tangent(Table.lookup("hypot"), R), "(x * _d_x + y * _d_y) / r");
  // Reverse mode: the seed first for functions, in its operand's place for
  // operators; partials 1, -1 and 0.
  const ir::Expr *S = varRef("_r0");
  auto Adjoint = [&](int Id, unsigned I, const ir::Expr *Result) {
    std::vector<const ir::Expr *> Own(
        Args.begin(), Args.begin() + Table.getRule(Id).Arity);
    const ir::Expr *A =
        scaleByPartial(B, S, Table.buildPartial(M, Id, I, Own, D, Result),
                       seedPlace(Table.getRule(Id), I, true));
    return A ? CudaEmitter::emitExpr(A) : std::string("null");
  };
  EXPECT_EQ(Adjoint(Table.lookupOperator(BinaryOp::Mul), 0, nullptr),
            "_r0 * y");
  EXPECT_EQ(Adjoint(Table.lookupOperator(BinaryOp::Mul), 1, nullptr),
            "x * _r0");
  EXPECT_EQ(Adjoint(Table.lookupOperator(BinaryOp::Sub), 1, nullptr), "-_r0");
  EXPECT_EQ(Adjoint(Table.lookupOperator(BinaryOp::Div), 0, nullptr),
            "_r0 / y");
  EXPECT_EQ(Adjoint(Table.lookupOperator(BinaryOp::Div), 1, R),
            "-(r * _r0 / y)");
  EXPECT_EQ(Adjoint(Table.lookup("exp"), 0, R), "_r0 * r");
  EXPECT_EQ(Adjoint(Table.lookup("log"), 0, nullptr), "_r0 / x");
  EXPECT_EQ(Adjoint(Table.lookup("sqrt"), 0, R), "0.5 * _r0 / r");
  EXPECT_EQ(Adjoint(Table.lookup("copysign"), 1, nullptr), "null");
  // Without the result, d exp is the call recomputed.
  EXPECT_EQ(Adjoint(Table.lookup("exp"), 0, nullptr), "_r0 * exp(x)");
}

TEST_F(RulesTest, RequiredFunctionsAreDifferentiable) {
  for (const char *Name :
       {"sqrt",  "cbrt",  "exp",   "exp2", "expm1",   "log",  "log2",
        "log10", "log1p", "pow",   "sin",  "cos",     "tan",  "asin",
        "acos",  "atan",  "atan2", "sinh", "cosh",    "tanh", "hypot",
        "fabs",  "fmin",  "fmax",  "fma",  "rsqrt",   "erf",  "erfc",
        "asinh", "acosh", "atanh", "fmod", "copysign"}) {
    int Id = Table.lookup(Name);
    ASSERT_GE(Id, 0) << Name;
    EXPECT_FALSE(Table.getRule(Id).isNonDifferentiable()) << Name;
    EXPECT_EQ(Table.getRule(Id).FloatName, std::string(Name) + "f");
  }
  for (const char *Name :
       {"__expf", "__logf", "__sinf", "__cosf", "__fdividef"}) {
    int Id = Table.lookup(Name);
    ASSERT_GE(Id, 0) << Name;
    EXPECT_FALSE(Table.getRule(Id).isNonDifferentiable()) << Name;
    EXPECT_EQ(Table.getRule(Id).DoubleName, "") << Name;
  }
}

TEST_F(RulesTest, LookupAcceptsEverySpelling) {
  for (unsigned Id = 0; Id < Table.size(); ++Id) {
    const MathRule &R = Table.getRule(Id);
    for (const std::string &Name : {R.DoubleName, R.FloatName}) {
      if (Name.empty())
        continue;
      EXPECT_EQ(Table.lookup(Name), static_cast<int>(Id)) << Name;
      EXPECT_EQ(Table.lookup("std::" + Name), static_cast<int>(Id)) << Name;
      EXPECT_EQ(Table.lookup("::" + Name), static_cast<int>(Id)) << Name;
    }
  }
  EXPECT_EQ(Table.lookup("sinx"), -1);
  EXPECT_EQ(Table.lookup("user_function"), -1);
  EXPECT_EQ(Table.lookup("std::"), -1);
  EXPECT_EQ(Table.lookup(""), -1);
}

TEST_F(RulesTest, GenericSpellingsOnlyForFloatingArguments) {
  EXPECT_EQ(Table.lookup("min"), -1);
  EXPECT_EQ(Table.lookup("max"), -1);
  EXPECT_EQ(Table.lookup("abs"), -1);
  EXPECT_EQ(Table.lookup("min", true), Table.lookup("fmin"));
  EXPECT_EQ(Table.lookup("max", true), Table.lookup("fmax"));
  EXPECT_EQ(Table.lookup("abs", true), Table.lookup("fabs"));
  EXPECT_EQ(Table.lookup("std::min", true), Table.lookup("fmin"));
  EXPECT_EQ(Table.lookup("std::abs", true), Table.lookup("fabs"));
  EXPECT_EQ(Table.lookup("sin", true), Table.lookup("sin"));
}

TEST_F(RulesTest, BuildCallPicksTheSpellingOfTheType) {
  const ir::Type *F = M.getTypes().getFloat(), *D = M.getTypes().getDouble();
  std::vector<const ir::Expr *> Args = argsOf(F, 1);
  struct Case {
    const char *Looked, *AtFloat, *AtDouble;
  };
  for (Case C : {Case{"sin", "sinf", "sin"}, Case{"sinf", "sinf", "sin"},
                 Case{"std::rsqrt", "rsqrtf", "rsqrt"},
                 Case{"__expf", "__expf", "__expf"}}) {
    int Id = Table.lookup(C.Looked);
    ASSERT_GE(Id, 0) << C.Looked;
    for (auto [Ty, Want] :
         {std::pair(F, C.AtFloat), std::pair(D, C.AtDouble)}) {
      const auto *Call =
          llvm::dyn_cast<ir::CallExpr>(Table.buildCall(M, Id, Args, Ty));
      ASSERT_NE(Call, nullptr);
      EXPECT_EQ(Call->getName(), Want);
      EXPECT_EQ(Call->getType(), Ty);
      EXPECT_EQ(Call->getCalleeKind(), ir::CallExpr::CalleeKind::Math);
      EXPECT_EQ(Call->getMathId(), Id);
      EXPECT_EQ(Call->getArgs(), Args);
    }
  }
}

TEST_F(RulesTest, PartialsAtFloatUseFloatSpellingsAndShareArguments) {
  const ir::Type *F = M.getTypes().getFloat();
  std::vector<const ir::Expr *> Args = argsOf(F, 1);

  // d sinf(x) = cosf(x), over the very same argument expression.
  const auto *Cos = llvm::dyn_cast<ir::CallExpr>(
      Table.buildPartial(M, Table.lookup("sinf"), 0, Args, F));
  ASSERT_NE(Cos, nullptr);
  EXPECT_EQ(Cos->getName(), "cosf");
  EXPECT_EQ(Cos->getMathId(), Table.lookup("cos"));
  EXPECT_EQ(Cos->getType(), F);
  ASSERT_EQ(Cos->getNumArgs(), 1u);
  EXPECT_EQ(Cos->getArg(0), Args[0]);

  // d __sinf(x) = __cosf(x): intrinsics differentiate to intrinsics.
  const auto *FastCos = llvm::dyn_cast<ir::CallExpr>(
      Table.buildPartial(M, Table.lookup("__sinf"), 0, Args, F));
  ASSERT_NE(FastCos, nullptr);
  EXPECT_EQ(FastCos->getName(), "__cosf");

  // d fabsf(x) = x >= 0 ? 1 : -1: bool condition, float literals without
  // spelling.
  const auto *Sign = llvm::dyn_cast<ir::ConditionalExpr>(
      Table.buildPartial(M, Table.lookup("fabsf"), 0, Args, F));
  ASSERT_NE(Sign, nullptr);
  EXPECT_EQ(Sign->getType(), F);
  EXPECT_EQ(Sign->getCond()->getType(), M.getTypes().getBool());
  const auto *One = llvm::dyn_cast<ir::FloatLitExpr>(Sign->getTrue());
  ASSERT_NE(One, nullptr);
  EXPECT_EQ(One->getValue(), 1.0);
  EXPECT_EQ(One->getType(), F);
  EXPECT_EQ(One->getSpelling(), "");
}

TEST_F(RulesTest, PartialsMatchAtFloatType) {
  // The same rule instantiated at float evaluates like the double one.
  const ir::Type *F = M.getTypes().getFloat();
  std::vector<const ir::Expr *> Args = argsOf(F, 2);
  const ir::Expr *DPow =
      Table.buildPartial(M, Table.lookup("powf"), 1, Args, F);
  test::IREvaluator Eval;
  bind(Eval, Args, {2.0, 3.0});
  EXPECT_DOUBLE_EQ(Eval.eval(DPow), 8.0 * std::log(2.0));
  EXPECT_TRUE(llvm::isa<ir::ConditionalExpr>(DPow));
}

TEST_F(RulesTest, ConventionsAtKinks) {
  const ir::Type *D = M.getTypes().getDouble();
  std::vector<const ir::Expr *> Args = argsOf(D, 2);
  test::IREvaluator Eval;
  auto Partial = [&](const char *Name, unsigned ArgNo, std::vector<double> At) {
    int Id = Table.lookup(Name);
    std::vector<const ir::Expr *> A(Args.begin(),
                                    Args.begin() + Table.getRule(Id).Arity);
    bind(Eval, Args, At);
    return Eval.eval(Table.buildPartial(M, Id, ArgNo, A, D));
  };
  EXPECT_EQ(Partial("fabs", 0, {0.0, 0.0}), 1.0);
  EXPECT_EQ(Partial("fmin", 0, {2.0, 2.0}), 1.0);
  EXPECT_EQ(Partial("fmin", 1, {2.0, 2.0}), 0.0);
  EXPECT_EQ(Partial("fmax", 0, {2.0, 2.0}), 1.0);
  EXPECT_EQ(Partial("fmax", 1, {2.0, 2.0}), 0.0);
  // copysign(x, y) = |x| sign(y): the |x| part follows fabs'(0) = 1.
  EXPECT_EQ(Partial("copysign", 0, {0.0, -3.0}), -1.0);
  EXPECT_EQ(Partial("copysign", 0, {-0.0, 3.0}), 1.0);
  EXPECT_EQ(Partial("copysign", 0, {-2.0, -3.0}), 1.0);
  // pow's exponent partial is 0 where the base is not positive.
  EXPECT_EQ(Partial("pow", 1, {0.0, 2.0}), 0.0);
  EXPECT_EQ(Partial("pow", 1, {-2.0, 2.0}), 0.0);
  EXPECT_EQ(Partial("pow", 0, {-2.0, 2.0}), -4.0);
}

TEST_F(RulesTest, NonDifferentiableRulesHaveNoPartials) {
  const ir::Type *D = M.getTypes().getDouble();
  std::vector<const ir::Expr *> Args = argsOf(D, 1);
  for (const char *Name :
       {"floor", "ceilf", "std::round", "trunc", "rintf", "nearbyint"}) {
    int Id = Table.lookup(Name);
    ASSERT_GE(Id, 0) << Name;
    EXPECT_TRUE(Table.getRule(Id).isNonDifferentiable()) << Name;
    EXPECT_EQ(Table.buildPartial(M, Id, 0, Args, D), nullptr) << Name;
  }
  EXPECT_FALSE(Table.getRule(Table.lookup("sin")).isNonDifferentiable());
}

TEST_F(RulesTest, MisuseIsAFatalError) {
  const ir::Type *D = M.getTypes().getDouble();
  std::vector<const ir::Expr *> Args = argsOf(D, 1);
  int Sin = Table.lookup("sin");
  EXPECT_DEATH(Table.buildPartial(M, Sin, 1, Args, D), "bad argument");
  EXPECT_DEATH(Table.buildPartial(M, Sin, 0, {}, D), "bad argument");
}

TEST(RuleLanguageTest, ParsesPrecedenceAndConditionals) {
  auto E = parseRule("1 - x * y / 2", 2);
  ASSERT_TRUE(static_cast<bool>(E)) << llvm::toString(E.takeError());
  EXPECT_EQ((*E)->K, RuleExpr::Kind::Arith);
  EXPECT_EQ((*E)->Op, ir::BinaryOp::Sub);
  EXPECT_EQ((*E)->Ops[1]->Op, ir::BinaryOp::Div);

  auto C = parseRule("x <= -y ? f(x, 1e-3) : (x > 0 ? 1 : -2.5)", 2);
  ASSERT_TRUE(static_cast<bool>(C)) << llvm::toString(C.takeError());
  EXPECT_EQ((*C)->K, RuleExpr::Kind::Conditional);
  EXPECT_EQ((*C)->Ops[0]->Op, ir::BinaryOp::Le);
  EXPECT_EQ((*C)->Ops[1]->Callee, "f");
  EXPECT_EQ((*C)->Ops[1]->Ops[1]->Value, 1e-3);
  EXPECT_EQ((*C)->Ops[2]->K, RuleExpr::Kind::Conditional);
}

TEST(RuleLanguageTest, TheResultOnlyWhereAllowedAndCounted) {
  auto E = parseRule("-r / y + x * x", 2, /*AllowResult=*/true);
  ASSERT_TRUE(static_cast<bool>(E)) << llvm::toString(E.takeError());
  RuleReads R = countReads(**E);
  EXPECT_EQ(R.Args[0], 2u);
  EXPECT_EQ(R.Args[1], 1u);
  EXPECT_EQ(R.Args[2], 0u);
  EXPECT_EQ(R.Result, 1u);
  auto NoResult = parseRule("-r / y", 2);
  EXPECT_FALSE(static_cast<bool>(NoResult));
  if (!NoResult)
    llvm::consumeError(NoResult.takeError());
}

TEST(RuleLanguageTest, RejectsMalformedRules) {
  for (auto [Text, Arity] :
       std::vector<std::pair<const char *, unsigned>>{{"", 1},
                                                      {"x +", 1},
                                                      {"y", 1},
                                                      {"w", 3},
                                                      {"x y", 2},
                                                      {"(x", 1},
                                                      {"sin(x", 1},
                                                      {"sin(x,)", 1},
                                                      {"x < 1", 1},
                                                      {"(x < 1) + 1", 1},
                                                      {"x ? 1 : 2", 1},
                                                      {"x < 1 ? 1", 1},
                                                      {"x < 1 ? y < 1 : 2", 2},
                                                      {"x $ 2", 1}}) {
    auto E = parseRule(Text, Arity);
    EXPECT_FALSE(static_cast<bool>(E)) << Text;
    if (!E)
      llvm::consumeError(E.takeError());
  }
}

} // namespace
