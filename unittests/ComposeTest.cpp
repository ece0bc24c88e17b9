//===- unittests/ComposeTest.cpp - What composing modes stands on ---------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// The pieces that let forward mode run over reverse mode's output: names
/// of second-order derivatives, typed tapes and their activity, and the
/// accumulation lowering that runs last, on hand-built IR; pushforward
/// pairs, and modes composed over forward mode's output through a callee
/// (reverse over forward, forward over forward), compiled and checked
/// against central differences.
///
//===----------------------------------------------------------------------===//

#include "AD/Analysis/Activity.h"
#include "ComposeFixture.h"
#include "GPU/LowerAccumulations.h"
#include "IR/Builder.h"
#include "IR/NameScope.h"
#include "IR/Traversal.h"
#include "IR/Verifier.h"

#include "gtest/gtest.h"

#include <map>

using namespace meshad;
using namespace meshad::ir;

namespace {

TEST(NameScopeOrder, FirstOrderNames) {
  NameScope Names;
  Names.reserve("x");
  EXPECT_EQ(Names.derivative("x"), "_d_x");
  EXPECT_EQ(Names.derivative("x"), "_d_x_1");
}

TEST(NameScopeOrder, SecondOrderNamesReadApart) {
  NameScope Names;
  Names.setOrder(2);
  EXPECT_EQ(Names.derivative("x"), "_d2_x");
  EXPECT_EQ(Names.derivative("_d_x"), "_d2_d_x");
  EXPECT_EQ(Names.derivative("_r0"), "_d2_r0");
  // Still unique when the user took the name.
  Names.reserve("_d2_y");
  EXPECT_EQ(Names.derivative("y"), "_d2_y_1");
}

TEST(TapeType, SpelledTypedAndDifferentiable) {
  TypeContext T;
  const Type *Tape = T.getTape(T.getConst(T.getDouble()));
  EXPECT_TRUE(Tape->isTape());
  EXPECT_EQ(Tape->getElement(), T.getDouble());
  EXPECT_EQ(spellType(Tape), "meshad::Tape<double>");
  EXPECT_TRUE(Tape->isDifferentiable());
  EXPECT_FALSE(T.getTape(T.getInt())->isDifferentiable());
  EXPECT_EQ(T.getTape(T.getDouble()), Tape); // Uniqued.
}

TEST(PairType, SpelledTypedAndDifferentiable) {
  TypeContext T;
  const Type *P = T.getPair(T.getConst(T.getDouble()));
  EXPECT_TRUE(P->isPair());
  EXPECT_EQ(P->getElement(), T.getDouble());
  EXPECT_EQ(spellType(P), "meshad::ValueAndPushforward<double, double>");
  EXPECT_TRUE(P->isDifferentiableValue());
  EXPECT_TRUE(P->isDifferentiable());
  EXPECT_FALSE(T.getPair(T.getInt())->isDifferentiable());
  EXPECT_EQ(T.getPair(T.getDouble()), P); // Uniqued.
  // The result of a pushforward's pushforward: a pair of pairs.
  const Type *PP = T.getPair(P);
  EXPECT_EQ(spellType(PP), "meshad::ValueAndPushforward<meshad::"
                           "ValueAndPushforward<double, double>, meshad::"
                           "ValueAndPushforward<double, double>>");
  EXPECT_TRUE(PP->isDifferentiableValue());
}

/// double g(pair p): reads p.value / p.pushforward, well and badly typed.
TEST(PairType, VerifierChecksMembers) {
  Module M;
  IRBuilder B(M);
  TypeContext &T = M.getTypes();
  const Type *P = T.getPair(T.getDouble());
  Function *F = M.createFunction("g", T.getDouble(), CudaTarget::HostOnly);
  Var *X = M.createVar("p", P, Var::Storage::Param);
  F->addParam(X);
  BlockStmt *Body = B.block();
  Body->append(M.create<ReturnStmt>(
      B.add(B.pairMember(B.ref(X), 0), B.pairMember(B.ref(X), 1))));
  F->setBody(Body);
  std::string Errors;
  EXPECT_TRUE(verifyFunction(*F, VerifyStage::Lowered, Errors)) << Errors;
  Body->setBody({M.create<ReturnStmt>(B.member(B.ref(X), "x", T.getDouble()))});
  EXPECT_FALSE(verifyFunction(*F, VerifyStage::Lowered, Errors));
  Body->setBody({M.create<ReturnStmt>(B.member(B.ref(X), "value", P))});
  EXPECT_FALSE(verifyFunction(*F, VerifyStage::Lowered, Errors));
}

/// void g(double x, double *out): a tape carries x to a pop read by out.
TEST(TapeActivity, PushAndPopCarryDerivatives) {
  Module M;
  IRBuilder B(M);
  TypeContext &T = M.getTypes();
  const Type *D = T.getDouble();
  Function *F = M.createFunction("g", T.getVoid(), CudaTarget::HostOnly);
  Var *X = M.createVar("x", D, Var::Storage::Param);
  Var *Out = M.createVar("out", T.getPointer(D), Var::Storage::Param);
  F->addParam(X);
  F->addParam(Out);
  Var *Tape = M.createVar("_t0", T.getTape(D));
  Var *Other = M.createVar("_t1", T.getTape(D));
  auto Call = [&](const char *Name, std::vector<const Expr *> Args,
                  const Type *Ty) {
    return M.create<CallExpr>(Ty, CallExpr::CalleeKind::Intrinsic, Name, -1,
                              std::move(Args));
  };
  BlockStmt *Body = B.block();
  Body->append(B.decl(Tape, nullptr));
  Body->append(B.decl(Other, nullptr));
  Body->append(M.create<ExprStmt>(
      Call("meshad::push", {B.ref(Tape), B.ref(X)}, T.getVoid())));
  Body->append(M.create<ExprStmt>(
      Call("meshad::push", {B.ref(Other), B.floatLit(D, 1.0)}, T.getVoid())));
  Body->append(B.assign(B.index(B.ref(Out), B.intLit(0)), AssignOp::Assign,
                        Call("meshad::pop", {B.ref(Tape)}, D)));
  F->setBody(Body);
  llvm::SmallPtrSet<const Var *, 2> Seeds{X};
  ActivityAnalysis A(*F, Seeds);
  EXPECT_TRUE(A.isActive(Tape));
  EXPECT_FALSE(A.isActive(Other)); // Holds a constant only.
  EXPECT_TRUE(A.isActive(Out));
}

/// Counts the statements of \p F by form.
struct Forms {
  unsigned Accumulates = 0, PlainAdds = 0, Atomics = 0, LaunchChecks = 0;
};
Forms formsOf(const Function &F) {
  Forms R;
  forEachStmt(F.getBody(), [&](const Stmt *S) {
    if (const auto *A = llvm::dyn_cast<AssignStmt>(S)) {
      R.Accumulates += A->getOp() == AssignOp::Accumulate;
      R.PlainAdds += A->getOp() == AssignOp::AddAssign;
    }
    if (const auto *E = llvm::dyn_cast<ExprStmt>(S))
      if (const auto *C = llvm::dyn_cast<CallExpr>(E->getExpr())) {
        R.Atomics += C->getName() == "atomicAdd";
        R.LaunchChecks += C->getName() == "meshad::requireLaunch1D";
      }
  });
  return R;
}

class LowerAccumulationsTest : public ::testing::Test {
protected:
  LowerAccumulationsTest() : B(M) {}

  /// kernel/host k(double *a, double v): a[Index(gid)] accumulates v.
  Function *make(CudaTarget Target, bool Neighbour) {
    TypeContext &T = M.getTypes();
    const Type *D = T.getDouble();
    Function *F = M.createFunction("k", T.getVoid(), Target);
    Var *A = M.createVar("a", T.getPointer(D), Var::Storage::Param);
    Var *V = M.createVar("v", D, Var::Storage::Param);
    F->addParam(A);
    F->addParam(V);
    const Type *UInt = T.getInt("unsigned int");
    using BK = BuiltinExpr::Builtin;
    const Expr *Gid = B.add(
        B.mul(M.create<BuiltinExpr>(UInt, BK::BlockIdx, 0),
              M.create<BuiltinExpr>(UInt, BK::BlockDim, 0)),
        M.create<BuiltinExpr>(UInt, BK::ThreadIdx, 0));
    Var *I = M.createVar("i", T.getInt());
    BlockStmt *Body = B.block();
    Body->append(B.decl(I, B.cast(T.getInt(), Gid)));
    Body->append(B.accumulate(B.index(B.ref(A), B.ref(I)), B.ref(V)));
    if (Neighbour)
      Body->append(B.accumulate(
          B.index(B.ref(A), B.add(B.ref(I), B.intLit(1))), B.ref(V)));
    F->setBody(Body);
    return F;
  }

  DiagnosticSink Sink;
  Module M;
  IRBuilder B;
};

TEST_F(LowerAccumulationsTest, HostCodeAddsPlainly) {
  Function *F = make(CudaTarget::HostOnly, true);
  lowerAccumulations(M, *F, Sink, false);
  Forms R = formsOf(*F);
  EXPECT_FALSE(hasAccumulations(*F));
  EXPECT_EQ(R.PlainAdds, 2u);
  EXPECT_EQ(R.Atomics, 0u);
}

TEST_F(LowerAccumulationsTest, ThreadExclusiveKernelAddsPlainlyBehindCheck) {
  Function *F = make(CudaTarget::Global, false);
  lowerAccumulations(M, *F, Sink, false);
  Forms R = formsOf(*F);
  EXPECT_FALSE(hasAccumulations(*F));
  EXPECT_EQ(R.PlainAdds, 1u);
  EXPECT_EQ(R.Atomics, 0u);
  EXPECT_EQ(R.LaunchChecks, 1u);
}

TEST_F(LowerAccumulationsTest, NeighboursGatheredAsInGradients) {
  Function *F = make(CudaTarget::Global, true);
  lowerAccumulations(M, *F, Sink, false);
  Forms R = formsOf(*F);
  EXPECT_FALSE(hasAccumulations(*F));
  // a[i] and a[i + 1] are tile-exclusive, the thread's work straight-line:
  // each element's owner sums its neighbours' adds, one plain += (and the
  // sums' +=), no atomics, behind the launch check.
  EXPECT_EQ(R.Atomics, 0u);
  EXPECT_EQ(R.LaunchChecks, 1u);
  bool Gathers = false;
  forEachStmt(F->getBody(), [&](const Stmt *S) {
    Gathers |= llvm::isa<ForStmt>(S); // The loop over owned elements.
  });
  EXPECT_TRUE(Gathers);
}

TEST_F(LowerAccumulationsTest, ForcedAtomics) {
  Function *F = make(CudaTarget::Global, false);
  lowerAccumulations(M, *F, Sink, /*ForceAtomics=*/true);
  Forms R = formsOf(*F);
  EXPECT_EQ(R.Atomics, 1u);
  EXPECT_EQ(R.LaunchChecks, 0u);
}

//===----------------------------------------------------------------------===//
// Modes over forward mode's output, through a callee
//===----------------------------------------------------------------------===//

/// f(x, y) = h(x * y) + x with h = sin: its forward derivative d/dx calls
/// h_pushforward, whose pair result carries h' into the result.
const char *CalleeSource = R"(#include <cmath>
double h(double u) { return std::sin(u); }
double f(double x, double y) { return h(x * y) + x; }
)";

/// Checks f_darg0 (df/dx) and the derivatives of it that a test generated,
/// each against central differences of what it differentiates and against
/// the analytic second derivatives, at random points.
const char *CalleeChecks = R"(
using meshad::test::centralDifference;
int main() {
  meshad::test::RandomInputs Rng;
  for (int K = 0; K < 8; ++K) {
    double x = Rng.uniform(-1.5, 1.5), y = Rng.uniform(-1.5, 1.5);
    MESHAD_CHECK_CLOSE("df/dx", f_darg0(x, y),
                       centralDifference([&](double t) { return f(t, y); }, x));
    double Dxx = centralDifference([&](double t) { return f_darg0(t, y); }, x);
    double Dxy = centralDifference([&](double t) { return f_darg0(x, t); }, y);
    MESHAD_CHECK_CLOSE("d2f/dx2 analytic", Dxx, -std::sin(x * y) * y * y);
    MESHAD_CHECK_CLOSE("d2f/dxdy analytic", Dxy,
                       std::cos(x * y) - std::sin(x * y) * x * y);
    checkSecondOrder(x, y, Dxx, Dxy);
  }
  return meshad::test::summary();
}
)";

class OverForwardTest : public test::ComposeFixture {
protected:
  /// f_darg0 = df/dx, through h_pushforward.
  Function *firstDerivative() {
    Function *F = lower(CalleeSource, "f");
    if (!F)
      return nullptr;
    Function *D = Forward.deriveRequest(
        F, {ParamSeed::unit(), ParamSeed::none()}, "f_darg0");
    EXPECT_TRUE(D) << "forward mode failed";
    return D;
  }
};

TEST_F(OverForwardTest, ReverseOverForwardThroughCallee) {
  Function *D = firstDerivative();
  ASSERT_TRUE(D);
  Function *G =
      Reverse.deriveGradient(D, {true, true}, "f_darg0_grad", D->getLoc());
  ASSERT_TRUE(G) << "reverse over forward failed";
  EXPECT_FALSE(Diags->hasErrors());
  expectWellFormed();
  std::string Code = emitted();
  // The pullback of the pushforward call, seeded by a pair of adjoints.
  EXPECT_NE(Code.find("h_pushforward_pullback("), std::string::npos) << Code;
  EXPECT_NE(Code.find("meshad::ValueAndPushforward<double, double> _d_y"),
            std::string::npos)
      << Code;
  // Roles compose: the adjoint of the tangent of the call's value (a local
  // of the lowered primal), the adjoint of forward mode's temporary pair.
  std::map<std::string, std::string> Roles;
  for (const Stmt *S : G->getBody()->getBody())
    if (const auto *D = llvm::dyn_cast<DeclStmt>(S))
      Roles[D->getVar()->getName()] = D->getVar()->getRoles().str();
  EXPECT_EQ(Roles["_d2_d__t0"], "tangent|adjoint");
  EXPECT_EQ(Roles["_d2_t1"], "adjoint|temporary");
  EXPECT_EQ(Roles["_t1"], "temporary");
  EXPECT_EQ(Roles["_d_x"], "tangent");
  for (const Var *P : G->getParams())
    EXPECT_EQ(P->getRoles().str(),
              P->getName().rfind("_d2_", 0) == 0 ? "adjoint" : "primal");
  std::string Main = std::string(R"(
void checkSecondOrder(double x, double y, double Dxx, double Dxy) {
  double Gx = 0, Gy = 0;
  f_darg0_grad(x, y, &Gx, &Gy);
  MESHAD_CHECK_CLOSE("reverse over forward d/dx", Gx, Dxx);
  MESHAD_CHECK_CLOSE("reverse over forward d/dy", Gy, Dxy);
}
)") + CalleeChecks;
  EXPECT_NE(compileAndRun(Main).find(" 0 failed"), std::string::npos);
  simplifyAll();
  EXPECT_NE(compileAndRun(Main).find(" 0 failed"), std::string::npos);
}

TEST_F(OverForwardTest, ForwardOverForwardThroughCallee) {
  Function *D = firstDerivative();
  ASSERT_TRUE(D);
  Function *DX = Forward.deriveRequest(
      D, {ParamSeed::unit(), ParamSeed::none()}, "f_darg0_darg0");
  Function *DY = Forward.deriveRequest(
      D, {ParamSeed::none(), ParamSeed::unit()}, "f_darg0_darg1");
  ASSERT_TRUE(DX && DY) << "forward over forward failed";
  EXPECT_FALSE(Diags->hasErrors());
  expectWellFormed();
  // The pushforward of the pushforward returns a pair of pairs.
  std::string Code = emitted();
  EXPECT_NE(Code.find("h_pushforward_pushforward("), std::string::npos) << Code;
  std::string Main = std::string(R"(
void checkSecondOrder(double x, double y, double Dxx, double Dxy) {
  MESHAD_CHECK_CLOSE("forward over forward d/dx", f_darg0_darg0(x, y), Dxx);
  MESHAD_CHECK_CLOSE("forward over forward d/dy", f_darg0_darg1(x, y), Dxy);
}
)") + CalleeChecks;
  EXPECT_NE(compileAndRun(Main).find(" 0 failed"), std::string::npos);
  simplifyAll();
  EXPECT_NE(compileAndRun(Main).find(" 0 failed"), std::string::npos);
}

/// A gradient has one seed, a pair two: the gradient of a pushforward is an
/// error at its return (its pullback takes a pair of seeds).
TEST_F(OverForwardTest, GradientOfAPairIsAnError) {
  Function *D = firstDerivative();
  ASSERT_TRUE(D);
  Function *PF = nullptr;
  for (const DerivedFunction &E : Derived.entries())
    if (E.Derived->getName() == "h_pushforward")
      PF = E.Derived;
  ASSERT_TRUE(PF);
  EXPECT_EQ(Reverse.deriveGradient(PF, {true, true}, "h_pushforward_grad",
                                   PF->getLoc()),
            nullptr);
  bool Found = false;
  for (const Diagnostic &Diag : Diags->getDiagnostics())
    Found |= Diag.Message.find("needs a seed for each") != std::string::npos;
  EXPECT_TRUE(Found);
}

} // namespace
