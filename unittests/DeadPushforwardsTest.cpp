//===- unittests/DeadPushforwardsTest.cpp - Pushforwards nobody reads -----===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// AD/DeadPushforwards on hand-built IR: which functions are free of
/// side effects, and which pushforward calls go or become primal calls.
///
//===----------------------------------------------------------------------===//

#include "AD/DeadPushforwards.h"
#include "IR/Builder.h"
#include "IR/Traversal.h"

#include "gtest/gtest.h"

using namespace meshad;
using namespace meshad::ir;

namespace {

class DeadPushforwardsTest : public ::testing::Test {
protected:
  DeadPushforwardsTest() : B(M), T(M.getTypes()), D(T.getDouble()) {}

  /// double g(double a) { return a * a; }, or, when \p Stores, one that
  /// also writes *out = a.
  Function *primal(bool Stores) {
    G = M.createFunction("g", D, CudaTarget::HostOnly);
    A = M.createVar("a", D, Var::Storage::Param);
    G->addParam(A);
    BlockStmt *Body = B.block();
    if (Stores) {
      Var *Out = M.createVar("out", T.getPointer(D), Var::Storage::Param);
      G->addParam(Out);
      Body->append(B.assign(B.index(B.ref(Out), B.intLit(0)),
                            AssignOp::Assign, B.ref(A)));
    }
    Body->append(M.create<ReturnStmt>(B.mul(B.ref(A), B.ref(A))));
    G->setBody(Body);
    return G;
  }

  /// g_pushforward(g's parameters, _d_a), returning {a * a, 2 a _d_a}.
  Function *pushforward() {
    Pair = T.getOpaque("meshad::ValueAndPushforward<double, double>");
    PF = M.createFunction("g_pushforward", Pair, CudaTarget::HostOnly);
    for (Var *P : G->getParams())
      PF->addParam(P);
    Var *DA = M.createVar("_d_a", D, Var::Storage::Param);
    PF->addParam(DA);
    BlockStmt *Body = B.block();
    for (const Stmt *S : G->getBody()->getBody())
      if (!llvm::isa<ReturnStmt>(S))
        Body->append(S);
    Body->append(M.create<ReturnStmt>(M.create<InitListExpr>(
        Pair, std::vector<const Expr *>{B.mul(B.ref(A), B.ref(A)),
                                        B.mul(B.ref(A), B.ref(DA))})));
    PF->setBody(Body);
    Derived.add(DerivedFunctionSet::keyFor(G, "g_pushforward"), PF, G);
    return PF;
  }

  /// void h(double x, double *r): p = g_pushforward(x, 1.0), then
  /// *r = p.value (\p ReadValue) and *r = p.pushforward (\p ReadTangent).
  Function *caller(bool ReadValue, bool ReadTangent) {
    Function *H = M.createFunction("h", T.getVoid(), CudaTarget::HostOnly);
    Var *X = M.createVar("x", D, Var::Storage::Param);
    Var *R = M.createVar("r", T.getPointer(D), Var::Storage::Param);
    H->addParam(X);
    H->addParam(R);
    P = M.createVar("_t0", Pair);
    std::vector<const Expr *> Args{B.ref(X)};
    for (unsigned I = 1; I + 1 < PF->getNumParams(); ++I)
      Args.push_back(B.ref(R));
    Args.push_back(B.floatLit(D, 1.0));
    BlockStmt *Body = B.block();
    Body->append(B.decl(P, M.create<CallExpr>(Pair, PF, Args)));
    auto Store = [&](const char *Field) {
      Body->append(B.assign(B.index(B.ref(R), B.intLit(0)), AssignOp::Assign,
                            B.member(B.ref(P), Field, D)));
    };
    if (ReadValue)
      Store("value");
    if (ReadTangent)
      Store("pushforward");
    H->setBody(Body);
    return H;
  }

  /// The user calls in \p F, by callee name.
  static std::vector<std::string> calls(const Function &F) {
    std::vector<std::string> Names;
    forEachStmt(F.getBody(), [&](const Stmt *S) {
      for (const Expr *E : ownExprs(S))
        forEachExpr(E, [&](const Expr *X) {
          const auto *C = llvm::dyn_cast<CallExpr>(X);
          if (C && C->getUserCallee())
            Names.push_back(C->getUserCallee()->getName());
        });
    });
    return Names;
  }

  Module M;
  IRBuilder B;
  TypeContext &T;
  const Type *D;
  const Type *Pair = nullptr;
  DerivedFunctionSet Derived;
  Function *G = nullptr, *PF = nullptr;
  Var *A = nullptr, *P = nullptr;
};

TEST_F(DeadPushforwardsTest, LocalStoresOnlyAreFreeOfSideEffects) {
  EXPECT_TRUE(hasNoSideEffects(*primal(false)));
  EXPECT_TRUE(hasNoSideEffects(*pushforward()));
}

TEST_F(DeadPushforwardsTest, StoreThroughAPointerIsASideEffect) {
  EXPECT_FALSE(hasNoSideEffects(*primal(true)));
}

TEST_F(DeadPushforwardsTest, AtomicsAndRecursionAreSideEffects) {
  Function *F = primal(false);
  BlockStmt *Body = B.block();
  Body->append(M.create<ExprStmt>(M.create<CallExpr>(
      D, CallExpr::CalleeKind::Intrinsic, "atomicAdd", -1,
      std::vector<const Expr *>{B.addrOf(B.ref(A)), B.ref(A)})));
  F->setBody(Body);
  EXPECT_FALSE(hasNoSideEffects(*F));
  Body = B.block();
  Body->append(M.create<ReturnStmt>(
      M.create<CallExpr>(D, F, std::vector<const Expr *>{B.ref(A)})));
  F->setBody(Body);
  EXPECT_FALSE(hasNoSideEffects(*F));
}

TEST_F(DeadPushforwardsTest, UnreadPairGoes) {
  primal(false);
  pushforward();
  Function *H = caller(false, false);
  EXPECT_GT(removeDeadPushforwards(M, *H, Derived), 0u);
  EXPECT_TRUE(H->getBody()->getBody().empty());
}

TEST_F(DeadPushforwardsTest, ValueOnlyCallsThePrimal) {
  primal(false);
  pushforward();
  Function *H = caller(true, false);
  removeDeadPushforwards(M, *H, Derived);
  EXPECT_EQ(calls(*H), std::vector<std::string>{"g"});
  const auto *Decl = llvm::cast<DeclStmt>(H->getBody()->getBody()[0]);
  EXPECT_EQ(Decl->getVar()->getType(), D);
  EXPECT_EQ(Decl->getVar()->getName(), "_t0");
}

TEST_F(DeadPushforwardsTest, TangentReadKeepsThePushforward) {
  primal(false);
  pushforward();
  Function *H = caller(true, true);
  EXPECT_EQ(removeDeadPushforwards(M, *H, Derived), 0u);
  EXPECT_EQ(calls(*H), std::vector<std::string>{"g_pushforward"});
}

TEST_F(DeadPushforwardsTest, SideEffectsKeepTheCall) {
  primal(true);
  pushforward();
  Function *H = caller(false, false);
  EXPECT_EQ(removeDeadPushforwards(M, *H, Derived), 0u);
  EXPECT_EQ(calls(*H), std::vector<std::string>{"g_pushforward"});
}

} // namespace
