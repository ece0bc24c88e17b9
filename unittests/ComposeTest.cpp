//===- unittests/ComposeTest.cpp - What composing modes stands on ---------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// The pieces that let forward mode run over reverse mode's output: names
/// of second-order derivatives, typed tapes and their activity, and the
/// accumulation lowering that runs last, on hand-built IR.
///
//===----------------------------------------------------------------------===//

#include "AD/Analysis/Activity.h"
#include "GPU/LowerAccumulations.h"
#include "IR/Builder.h"
#include "IR/NameScope.h"
#include "IR/Traversal.h"

#include "gtest/gtest.h"

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

TEST_F(LowerAccumulationsTest, NeighboursKeepAtomics) {
  Function *F = make(CudaTarget::Global, true);
  lowerAccumulations(M, *F, Sink, false);
  Forms R = formsOf(*F);
  EXPECT_FALSE(hasAccumulations(*F));
  EXPECT_EQ(R.PlainAdds, 0u);
  EXPECT_EQ(R.Atomics, 2u);
}

TEST_F(LowerAccumulationsTest, ForcedAtomics) {
  Function *F = make(CudaTarget::Global, false);
  lowerAccumulations(M, *F, Sink, /*ForceAtomics=*/true);
  Forms R = formsOf(*F);
  EXPECT_EQ(R.Atomics, 1u);
  EXPECT_EQ(R.LaunchChecks, 0u);
}

} // namespace
