//===- unittests/RulesTest.cpp - Tests of the derivative rule table -------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "IREvaluator.h"
#include "Rules/DerivativeRules.h"
#include "Rules/RuleLanguage.h"

#include "gtest/gtest.h"

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
  };
  return Domains;
}

std::string keyName(const MathRule &R) {
  return R.DoubleName.empty() ? R.FloatName : R.DoubleName;
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

  static void bind(test::IREvaluator &Eval,
                   const std::vector<const ir::Expr *> &Args,
                   const std::vector<double> &Values) {
    for (unsigned I = 0; I < Args.size(); ++I)
      Eval.set(llvm::cast<ir::VarRefExpr>(Args[I])->getVar(), Values[I]);
  }

  const RuleTable &Table = RuleTable::get();
  ir::Module M;
};

/// Fourth-order central difference of \p Name in argument \p ArgNo at \p P:
/// (8 (f(x+h) - f(x-h)) - (f(x+2h) - f(x-2h))) / 12h, with a relative step
/// small enough to stay off the kinks the domains avoid, large enough that
/// rounding stays far below the 1e-6 tolerance.
double centralDifference(const std::string &Name, std::vector<double> P,
                         unsigned ArgNo) {
  double X = P[ArgNo];
  double H = 1e-4 * std::max(1.0, std::fabs(X));
  auto At = [&](double Offset) {
    P[ArgNo] = X + Offset;
    return test::IREvaluator::callMath(Name, P);
  };
  // Differences first: a locally constant function gives exactly 0.
  return (8 * (At(H) - At(-H)) - (At(2 * H) - At(-2 * H))) / (12 * H);
}

TEST_F(RulesTest, EveryPartialMatchesFiniteDifferences) {
  std::mt19937 Rng(20240611);
  unsigned Checked = 0;
  for (unsigned Id = 0; Id < Table.size(); ++Id) {
    const MathRule &R = Table.getRule(Id);
    if (R.isNonDifferentiable())
      continue;
    std::string Name = keyName(R);
    auto It = domains().find(Name);
    if (It == domains().end()) {
      ADD_FAILURE() << "no test domain for " << Name;
      continue;
    }
    const Domain &D = It->second;
    ASSERT_EQ(D.Ranges.size(), R.Arity) << Name;
    std::vector<const ir::Expr *> Args =
        argsOf(M.getTypes().getDouble(), R.Arity);
    for (unsigned ArgNo = 0; ArgNo < R.Arity; ++ArgNo) {
      const ir::Expr *Partial =
          Table.buildPartial(M, Id, ArgNo, Args, M.getTypes().getDouble());
      ASSERT_NE(Partial, nullptr) << Name;
      EXPECT_EQ(Partial->getType(), M.getTypes().getDouble()) << Name;
      for (unsigned Point = 0; Point < 20;) {
        std::vector<double> P;
        for (const auto &[Lo, Hi] : D.Ranges)
          P.push_back(std::uniform_real_distribution<double>(Lo, Hi)(Rng));
        if (D.Ok && !D.Ok(P))
          continue;
        ++Point;
        test::IREvaluator Eval;
        bind(Eval, Args, P);
        double Analytic = Eval.eval(Partial);
        double Numeric = centralDifference(Name, P, ArgNo);
        double RelErr = Analytic == Numeric
                            ? 0.0
                            : std::fabs(Analytic - Numeric) /
                                  std::max(std::fabs(Numeric), 1e-300);
        EXPECT_LE(RelErr, 1e-6)
            << Name << " d/darg" << ArgNo << " at (" << P[0]
            << (P.size() > 1 ? ", " + std::to_string(P[1]) : "")
            << (P.size() > 2 ? ", " + std::to_string(P[2]) : "") << "): rule "
            << Analytic << ", finite difference " << Numeric;
        ++Checked;
      }
    }
  }
  EXPECT_GT(Checked, 20u * 50);
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
