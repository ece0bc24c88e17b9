//===- unittests/ActivityTest.cpp - Forward activity analysis -------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "AD/Analysis/Activity.h"
#include "IR/Builder.h"

#include "gtest/gtest.h"

using namespace meshad;
using namespace meshad::ir;

namespace {

/// double f(double x, double y, double *out, double *tmp, const double *c)
class ActivityTest : public ::testing::Test {
protected:
  ActivityTest() : B(M) {
    TypeContext &T = M.getTypes();
    const Type *D = T.getDouble();
    F = M.createFunction("f", D, CudaTarget::HostOnly);
    X = param("x", D);
    Y = param("y", D);
    Out = param("out", T.getPointer(D));
    Tmp = param("tmp", T.getPointer(D));
    C = param("c", T.getPointer(T.getConst(D)));
    Body = B.block();
    F->setBody(Body);
  }
  Var *param(const char *Name, const Type *Ty) {
    Var *V = M.createVar(Name, Ty, Var::Storage::Param);
    F->addParam(V);
    return V;
  }
  Var *local(const char *Name, const Expr *Init) {
    Var *V = M.createVar(Name, Init->getType());
    Body->append(B.decl(V, Init));
    return V;
  }
  ActivityAnalysis analyze(std::initializer_list<const Var *> Seeds) {
    llvm::SmallPtrSet<const Var *, 4> S(Seeds.begin(), Seeds.end());
    return ActivityAnalysis(*F, S);
  }
  const Expr *idx(Var *Base, int I) { return B.index(B.ref(Base), B.intLit(I)); }

  Module M;
  IRBuilder B;
  Function *F;
  Var *X, *Y, *Out, *Tmp, *C;
  BlockStmt *Body;
};

TEST_F(ActivityTest, DataFlowFromSeeds) {
  Var *A = local("a", B.mul(B.ref(X), B.floatLit(M.getTypes().getDouble(), 2)));
  Var *Bv = local("b", B.ref(Y));
  Var *Cnt = local("n", B.intLit(3));
  auto R = analyze({X});
  EXPECT_TRUE(R.isVaried(X));
  EXPECT_TRUE(R.isVaried(A));
  EXPECT_FALSE(R.isVaried(Bv));
  EXPECT_FALSE(R.isVaried(Y));
  EXPECT_FALSE(R.isVaried(Cnt));
  // Nothing reaches a result: varied but not active.
  EXPECT_FALSE(R.isActive(A));
}

TEST_F(ActivityTest, FixedPointThroughLaterAssignments) {
  // b is read before it becomes active: the flow-insensitive fixed point
  // still marks it (and what depends on it).
  Var *Bv = local("b", B.ref(Y));
  Var *Cv = local("c2", B.ref(Bv));
  Body->append(B.assign(B.ref(Bv), AssignOp::AddAssign, B.ref(X)));
  auto R = analyze({X});
  EXPECT_TRUE(R.isVaried(Bv));
  EXPECT_TRUE(R.isVaried(Cv));
}

TEST_F(ActivityTest, StoresMakeMemoryActive) {
  Body->append(B.assign(idx(Out, 0), AssignOp::Assign, B.ref(X)));
  Body->append(B.assign(idx(Tmp, 0), AssignOp::Assign, B.ref(Y)));
  auto R = analyze({X});
  EXPECT_TRUE(R.isActive(Out));
  EXPECT_FALSE(R.isActive(Tmp));
  EXPECT_FALSE(R.isActive(C));
}

TEST_F(ActivityTest, PointerAliasesShareActivity) {
  // double *q = tmp + 1; q[0] = x;  => tmp is active too.
  Var *Q = local("q", B.binary(BinaryOp::Add, B.ref(Tmp), B.intLit(1)));
  Body->append(B.assign(idx(Q, 0), AssignOp::Assign, B.ref(X)));
  auto R = analyze({X});
  EXPECT_TRUE(R.isActive(Q));
  EXPECT_TRUE(R.isActive(Tmp));
  EXPECT_EQ(ActivityAnalysis::getRootVar(idx(Q, 0)), Q);
}

TEST_F(ActivityTest, CallsWriteThroughMutablePointers) {
  // atomicAdd(&out[0], x) writes an active value into out; c is const.
  auto *Call = M.create<CallExpr>(
      M.getTypes().getDouble(), CallExpr::CalleeKind::Intrinsic, "atomicAdd",
      -1, std::vector<const Expr *>{B.addrOf(idx(Out, 0)), B.ref(X)});
  Body->append(M.create<ExprStmt>(Call));
  auto R = analyze({X});
  EXPECT_TRUE(R.isActive(Out));
  EXPECT_FALSE(R.isActive(Tmp));
}

TEST_F(ActivityTest, LaunchesWriteOnlyThroughMutableParameters) {
  // k(const double *a, double *b): k(tmp, out) with out active may write
  // active values into out, never into tmp (a mutable pointer here, but
  // the kernel only reads it).
  TypeContext &T = M.getTypes();
  const Type *D = T.getDouble();
  Function *K = M.createFunction("k", T.getVoid(), CudaTarget::Global);
  K->addParam(M.createVar("a", T.getPointer(T.getConst(D)), Var::Storage::Param));
  K->addParam(M.createVar("b", T.getPointer(D), Var::Storage::Param));
  Body->append(B.assign(idx(Out, 0), AssignOp::Assign, B.ref(X)));
  Body->append(M.create<LaunchStmt>(
      K, B.intLit(1), B.intLit(1), nullptr, nullptr,
      std::vector<const Expr *>{B.ref(Tmp), B.ref(Out)}));
  auto R = analyze({X});
  EXPECT_TRUE(R.isActive(Out));
  EXPECT_FALSE(R.isVaried(Tmp));
  // Swapped: tmp is passed as the mutable b.
  Body->append(M.create<LaunchStmt>(
      K, B.intLit(1), B.intLit(1), nullptr, nullptr,
      std::vector<const Expr *>{B.ref(Out), B.ref(Tmp)}));
  EXPECT_TRUE(analyze({X}).isActive(Tmp));
}

TEST_F(ActivityTest, OnlyValuesReachingResultsAreActive) {
  // a = x * 2; dbg = a * a; b = y + a; out[0] = b; return a;
  const Type *D = M.getTypes().getDouble();
  Var *A = local("a", B.mul(B.ref(X), B.floatLit(D, 2)));
  Var *Dbg = local("dbg", B.mul(B.ref(A), B.ref(A)));
  Var *Bv = local("b", B.add(B.ref(Y), B.ref(A)));
  Body->append(B.assign(idx(Out, 0), AssignOp::Assign, B.ref(Bv)));
  Body->append(M.create<ReturnStmt>(B.ref(A)));
  auto R = analyze({X});
  EXPECT_TRUE(R.isActive(A));
  EXPECT_TRUE(R.isActive(Bv));
  EXPECT_TRUE(R.isActive(Out));
  EXPECT_TRUE(R.isVaried(Dbg));
  EXPECT_FALSE(R.isActive(Dbg)); // computed from x, never used
  EXPECT_FALSE(R.isActive(Y));   // reaches a result, but does not vary
  // Comparisons carry no derivative.
  EXPECT_FALSE(R.isActive(B.binary(BinaryOp::Lt, B.ref(A), B.ref(Y))));
  EXPECT_TRUE(R.isActive(B.add(B.ref(Y), B.ref(A))));
}

} // namespace
