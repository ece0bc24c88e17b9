//===- unittests/SimplifyTest.cpp - Tests of the simplifier ---------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// One test per rule of lib/Simplify on hand-built IR, with the cases where
/// a rule must not fire: no shared call across a store to an operand, no
/// merge across a barrier, no inlining into a loop...
///
//===----------------------------------------------------------------------===//

#include "Emit/CudaEmitter.h"
#include "IR/NameScope.h"
#include "Simplify/Passes.h"
#include "Simplify/Simplifier.h"

#include "gtest/gtest.h"

using namespace meshad;
using namespace meshad::ir;

namespace {

class SimplifyTest : public ::testing::Test {
protected:
  SimplifyTest() {
    F = M.createFunction("f", dbl(), CudaTarget::HostDevice);
    X = param("x", dbl());
    Y = param("y", dbl());
    P = param("p", types().getPointer(dbl()));
    N = param("n", i32());
  }

  TypeContext &types() { return M.getTypes(); }
  const Type *dbl() { return types().getDouble(); }
  const Type *i32() { return types().getInt(); }

  Var *param(const std::string &Name, const Type *Ty) {
    Var *V = M.createVar(Name, Ty, Var::Storage::Param);
    F->addParam(V);
    return V;
  }
  Var *local(const std::string &Name, const Type *Ty = nullptr) {
    return M.createVar(Name, Ty ? Ty : dbl());
  }
  const Expr *ref(Var *V) { return M.create<VarRefExpr>(V); }
  const Expr *dlit(double V) { return M.create<FloatLitExpr>(dbl(), V, ""); }
  const Expr *ilit(long long V) { return M.create<IntLitExpr>(i32(), V, ""); }
  const Expr *bin(BinaryOp Op, const Expr *L, const Expr *R,
                  const Type *Ty = nullptr) {
    return M.create<BinaryExpr>(Ty ? Ty : L->getType(), Op, L, R);
  }
  const Expr *mul(const Expr *L, const Expr *R) {
    return bin(BinaryOp::Mul, L, R);
  }
  const Expr *add(const Expr *L, const Expr *R) {
    return bin(BinaryOp::Add, L, R);
  }
  const Expr *neg(const Expr *E) {
    return M.create<UnaryExpr>(E->getType(), UnaryOp::Neg, E);
  }
  const Expr *at(const Expr *Base, const Expr *Idx) {
    return M.create<IndexExpr>(dbl(), Base, Idx);
  }
  const Expr *math(const std::string &Name, const Expr *Arg) {
    return M.create<CallExpr>(dbl(), CallExpr::CalleeKind::Math, Name, 0,
                              std::vector<const Expr *>{Arg});
  }
  const Stmt *intrinsic(const std::string &Name,
                        std::vector<const Expr *> Args) {
    return M.create<ExprStmt>(M.create<CallExpr>(
        types().getVoid(), CallExpr::CalleeKind::Intrinsic, Name, -1,
        std::move(Args)));
  }
  const Stmt *decl(Var *V, const Expr *Init) {
    return M.create<DeclStmt>(V, Init);
  }
  const Stmt *assign(const Expr *L, AssignOp Op, const Expr *R) {
    return M.create<AssignStmt>(L, Op, R);
  }
  const Stmt *ret(const Expr *E) { return M.create<ReturnStmt>(E); }
  /// for (int i = 0; i < n; ++i) { Body }
  const Stmt *loop(std::vector<const Stmt *> Body) {
    Var *I = local("i", i32());
    return M.create<ForStmt>(
        decl(I, ilit(0)),
        bin(BinaryOp::Lt, ref(I), ref(N), types().getBool()),
        assign(ref(I), AssignOp::Inc, nullptr),
        M.create<BlockStmt>(std::move(Body)));
  }
  void body(std::vector<const Stmt *> Stmts) {
    F->setBody(M.create<BlockStmt>(std::move(Stmts)));
  }
  /// The body's statements, one per line, without the braces.
  std::string code() {
    std::string S;
    for (const Stmt *X : F->getBody()->getBody())
      S += CudaEmitter::emitStmt(X);
    return S;
  }
  std::string simplified() {
    Simplifier(M).run(*F);
    return code();
  }
  std::string folded(const Expr *E) {
    body({ret(E)});
    simplify::foldAlgebra(M, *F);
    return code();
  }
  bool shared() {
    NameScope Names;
    Names.addFunction(*F);
    return simplify::shareMathCalls(M, *F, Names);
  }

  Module M;
  Function *F;
  Var *X, *Y, *P, *N;
};

//===----------------------------------------------------------------------===//
// Constant tangents
//===----------------------------------------------------------------------===//

TEST_F(SimplifyTest, ConstantTangentsArePropagatedAndDropped) {
  Var *DX = local("_d_x"), *DY = local("_d_y");
  body({decl(DX, dlit(0)), decl(DY, dlit(1)),
        ret(add(mul(ref(DX), ref(X)), mul(ref(Y), ref(DY))))});
  EXPECT_EQ(simplified(), "return y;\n");
}

TEST_F(SimplifyTest, TangentWrittenInALoopIsNotConstant) {
  Var *DS = local("_d_s");
  body({decl(DS, dlit(0)),
        loop({assign(ref(DS), AssignOp::AddAssign, ref(X))}),
        ret(ref(DS))});
  EXPECT_FALSE(simplify::propagateConstants(M, *F));
  EXPECT_NE(simplified().find("double _d_s = 0.;"), std::string::npos);
}

TEST_F(SimplifyTest, TangentWhoseAddressIsTakenIsNotConstant) {
  Var *DA = local("_d_a");
  const Expr *Addr = M.create<UnaryExpr>(types().getPointer(dbl()),
                                         UnaryOp::AddrOf, ref(DA));
  body({decl(DA, dlit(0)), intrinsic("meshad::fill", {Addr}),
        ret(ref(DA))});
  EXPECT_FALSE(simplify::propagateConstants(M, *F));
}

TEST_F(SimplifyTest, OtherLiteralsAreNotPropagated) {
  Var *DA = local("_d_a");
  body({decl(DA, dlit(2)), ret(mul(ref(DA), ref(X)))});
  EXPECT_FALSE(simplify::propagateConstants(M, *F));
}

//===----------------------------------------------------------------------===//
// Algebraic identities
//===----------------------------------------------------------------------===//

TEST_F(SimplifyTest, Identities) {
  const Expr *XR = ref(X);
  EXPECT_EQ(folded(mul(XR, dlit(1))), "return x;\n");
  EXPECT_EQ(folded(mul(dlit(1), XR)), "return x;\n");
  EXPECT_EQ(folded(mul(XR, dlit(0))), "return 0.;\n");
  EXPECT_EQ(folded(mul(dlit(0), XR)), "return 0.;\n");
  EXPECT_EQ(folded(add(XR, dlit(0))), "return x;\n");
  EXPECT_EQ(folded(add(dlit(0), XR)), "return x;\n");
  EXPECT_EQ(folded(bin(BinaryOp::Sub, XR, dlit(0))), "return x;\n");
  EXPECT_EQ(folded(bin(BinaryOp::Sub, dlit(0), XR)), "return -x;\n");
  EXPECT_EQ(folded(neg(neg(XR))), "return x;\n");
  EXPECT_EQ(folded(bin(BinaryOp::Div, XR, dlit(1))), "return x;\n");
  EXPECT_EQ(folded(add(XR, neg(ref(Y)))), "return x - y;\n");
  EXPECT_EQ(folded(bin(BinaryOp::Sub, XR, neg(ref(Y)))), "return x + y;\n");
  // Nested: 0 * dx + dy * 1 after constant propagation.
  EXPECT_EQ(folded(add(mul(dlit(0), XR), mul(ref(Y), dlit(1)))),
            "return y;\n");
}

TEST_F(SimplifyTest, ProductWithMinusOneIsANegation) {
  EXPECT_EQ(folded(mul(ref(X), dlit(-1))), "return -x;\n");
  EXPECT_EQ(folded(mul(dlit(-1), neg(ref(X)))), "return x;\n");
}

TEST_F(SimplifyTest, CommutedProductsAreDoubled) {
  EXPECT_EQ(folded(add(mul(ref(X), ref(Y)), mul(ref(Y), ref(X)))),
            "return 2. * x * y;\n");
  EXPECT_EQ(folded(add(ref(X), ref(X))), "return 2. * x;\n");
  // Not the same product: stays.
  EXPECT_EQ(folded(add(mul(ref(X), ref(Y)), mul(ref(X), ref(X)))),
            "return x * y + x * x;\n");
}

TEST_F(SimplifyTest, LikeTermsAreCombinedExactly) {
  const Expr *XR = ref(X), *YR = ref(Y);
  // d(0.5 s^2) as reverse mode writes it: 0.5 * (y * x) + 0.5 * x * y.
  EXPECT_EQ(folded(add(mul(dlit(0.5), mul(YR, XR)),
                       mul(mul(dlit(0.5), XR), YR))),
            "return y * x;\n");
  EXPECT_EQ(folded(add(mul(dlit(2), mul(XR, YR)), mul(YR, XR))),
            "return 3. * (x * y);\n");
  EXPECT_EQ(folded(bin(BinaryOp::Sub, mul(dlit(4), XR), mul(XR, dlit(2)))),
            "return 2. * x;\n");
  EXPECT_EQ(folded(add(neg(mul(XR, YR)), mul(mul(dlit(-0.5), YR), XR))),
            "return (-1.5) * (x * y);\n");
  // Not exact, so not combined: a coefficient that is not a power of two,
  // three factors, different factors, P - P.
  EXPECT_EQ(folded(add(mul(dlit(3), XR), XR)), "return 3. * x + x;\n");
  EXPECT_EQ(folded(add(mul(mul(XR, YR), XR), mul(XR, mul(YR, XR)))),
            "return x * y * x + x * (y * x);\n");
  EXPECT_EQ(folded(add(mul(dlit(0.5), XR), mul(dlit(0.5), YR))),
            "return 0.5 * x + 0.5 * y;\n");
  EXPECT_EQ(folded(bin(BinaryOp::Sub, mul(XR, YR), mul(YR, XR))),
            "return x * y - y * x;\n");
}

TEST_F(SimplifyTest, LikeTermsKeepTheirValue) {
  // The combined forms are bit for bit the originals (away from overflow
  // and subnormal results, where halving is not exact).
  for (double A : {0.1, -3.7, 1e-100, 7.25e100, 12345.678, 1.0 / 3})
    for (double Bv : {0.3, -2.9, 1e150, 5e-110, 2.0 / 7}) {
      double S = 0.5 * (Bv * A) + 0.5 * A * Bv;
      EXPECT_EQ(S, Bv * A);
      double T = 2 * (A * Bv) + Bv * A;
      EXPECT_EQ(T, 3. * (A * Bv));
    }
}

TEST_F(SimplifyTest, MixedTypesAndIntegersAreFoldedOnlyExactly) {
  // n + 0. is a double: replacing it by the int n would change its type.
  EXPECT_EQ(folded(bin(BinaryOp::Add, ref(N), dlit(0), dbl())),
            "return n + 0.;\n");
  // Integer division is never touched, x / 1 is.
  EXPECT_EQ(folded(bin(BinaryOp::Div, ref(N), ilit(2))), "return n / 2;\n");
  EXPECT_EQ(folded(bin(BinaryOp::Div, ref(N), ilit(1))), "return n;\n");
  EXPECT_EQ(folded(mul(ref(N), ilit(0))), "return 0;\n");
}

TEST_F(SimplifyTest, ProductWithACallWithEffectsIsNotDropped) {
  const Expr *Pop = M.create<CallExpr>(dbl(), CallExpr::CalleeKind::Intrinsic,
                                       "meshad::pop", -1,
                                       std::vector<const Expr *>{});
  EXPECT_EQ(folded(mul(Pop, dlit(0))), "return meshad::pop() * 0.;\n");
}

//===----------------------------------------------------------------------===//
// Shared math calls
//===----------------------------------------------------------------------===//

TEST_F(SimplifyTest, MathCallEvaluatedTwiceIsShared) {
  Var *A = local("a"), *B = local("b");
  body({decl(A, mul(math("exp", ref(Y)), dlit(2))),
        decl(B, add(math("exp", ref(Y)), dlit(1))),
        ret(add(ref(A), ref(B)))});
  EXPECT_TRUE(shared());
  EXPECT_EQ(code(), "double _t0 = exp(y);\n"
                    "double a = _t0 * 2.;\n"
                    "double b = _t0 + 1.;\n"
                    "return a + b;\n");
}

TEST_F(SimplifyTest, NoSharingAcrossAWriteToAnOperand) {
  Var *A = local("a"), *B = local("b");
  body({decl(A, math("exp", ref(Y))),
        assign(ref(Y), AssignOp::Assign, dlit(2)),
        decl(B, math("exp", ref(Y))), ret(add(ref(A), ref(B)))});
  EXPECT_FALSE(shared());
}

TEST_F(SimplifyTest, NoSharingOfALoadAcrossAStore) {
  Var *A = local("a"), *B = local("b");
  body({decl(A, math("exp", at(ref(P), ilit(0)))),
        assign(at(ref(P), ilit(1)), AssignOp::Assign, dlit(3)),
        decl(B, math("exp", at(ref(P), ilit(0)))),
        ret(add(ref(A), ref(B)))});
  EXPECT_FALSE(shared());
}

TEST_F(SimplifyTest, NoSharingAcrossABarrierOrAnAtomic) {
  Var *A = local("a"), *B = local("b");
  body({decl(A, math("sqrt", ref(X))), intrinsic("__syncthreads", {}),
        decl(B, math("sqrt", ref(X))), ret(add(ref(A), ref(B)))});
  EXPECT_FALSE(shared());
  body({decl(A, math("sqrt", ref(X))),
        intrinsic("atomicAdd", {ref(P), ref(Y)}),
        decl(B, math("sqrt", ref(X))), ret(add(ref(A), ref(B)))});
  EXPECT_FALSE(shared());
}

TEST_F(SimplifyTest, NoSharingAcrossANestedStatement) {
  Var *A = local("a"), *B = local("b");
  body({decl(A, math("cos", ref(X))), loop({}),
        decl(B, math("cos", ref(X))), ret(add(ref(A), ref(B)))});
  EXPECT_FALSE(shared());
}

TEST_F(SimplifyTest, SharingStartsAfterTheWrite) {
  Var *A = local("a"), *B = local("b"), *C = local("c");
  body({decl(A, math("exp", ref(Y))), assign(ref(Y), AssignOp::Assign, dlit(2)),
        decl(B, math("exp", ref(Y))), decl(C, math("exp", ref(Y))),
        ret(add(ref(A), add(ref(B), ref(C))))});
  EXPECT_TRUE(shared());
  // b, a local never written that holds the call, is reused.
  EXPECT_EQ(code(), "double a = exp(y);\n"
                    "y = 2.;\n"
                    "double b = exp(y);\n"
                    "double c = b;\n"
                    "return a + (b + c);\n");
}

//===----------------------------------------------------------------------===//
// Merged adds
//===----------------------------------------------------------------------===//

TEST_F(SimplifyTest, ConsecutiveAddsToALocalAreMerged) {
  Var *D = local("_d_d");
  body({decl(D, dlit(0)), assign(ref(D), AssignOp::AddAssign, ref(X)),
        assign(ref(D), AssignOp::AddAssign, mul(ref(Y), ref(X))),
        assign(ref(D), AssignOp::AddAssign, neg(ref(Y))), ret(ref(D))});
  EXPECT_TRUE(simplify::mergeAdds(M, *F));
  EXPECT_EQ(code(), "double _d_d = 0.;\n"
                    "_d_d += x + y * x - y;\n"
                    "return _d_d;\n");
}

TEST_F(SimplifyTest, NoMergeOfAddsOfAnotherType) {
  // (v + a) + b in double is not v + (a + b) with a float a + b.
  Var *D = local("_d_d"), *A = local("a", types().getFloat());
  Var *B = local("b", types().getFloat());
  body({decl(D, dlit(0)), decl(A, ref(X)), decl(B, ref(Y)),
        assign(ref(D), AssignOp::AddAssign, ref(A)),
        assign(ref(D), AssignOp::AddAssign, ref(B)), ret(ref(D))});
  EXPECT_FALSE(simplify::mergeAdds(M, *F));
}

TEST_F(SimplifyTest, NoMergeAcrossABarrier) {
  Var *D = local("_d_d");
  body({decl(D, dlit(0)), assign(ref(D), AssignOp::AddAssign, ref(X)),
        intrinsic("__syncthreads", {}),
        assign(ref(D), AssignOp::AddAssign, ref(Y)), ret(ref(D))});
  EXPECT_FALSE(simplify::mergeAdds(M, *F));
}

TEST_F(SimplifyTest, NoMergeWhenTheSecondAddReadsTheTarget) {
  Var *D = local("_d_d");
  body({decl(D, dlit(0)), assign(ref(D), AssignOp::AddAssign, ref(X)),
        assign(ref(D), AssignOp::AddAssign, mul(ref(D), ref(Y))),
        ret(ref(D))});
  EXPECT_FALSE(simplify::mergeAdds(M, *F));
}

TEST_F(SimplifyTest, NoMergeOfPlainAddsToMemoryOrOfAtomics) {
  body({assign(at(ref(P), ilit(0)), AssignOp::AddAssign, ref(X)),
        assign(at(ref(P), ilit(0)), AssignOp::AddAssign, ref(Y)),
        intrinsic("atomicAdd", {ref(P), ref(X)}),
        intrinsic("atomicAdd", {ref(P), ref(Y)}), ret(dlit(0))});
  EXPECT_FALSE(simplify::mergeAdds(M, *F));
}

TEST_F(SimplifyTest, AccumulatesToTheSameTargetAreMerged) {
  body({assign(at(ref(P), ref(N)), AssignOp::Accumulate, ref(X)),
        assign(at(ref(P), ref(N)), AssignOp::Accumulate, ref(Y)),
        ret(dlit(0))});
  ASSERT_TRUE(simplify::mergeAdds(M, *F));
  ASSERT_EQ(F->getBody()->getBody().size(), 2u);
  const auto *A = llvm::cast<AssignStmt>(F->getBody()->getBody()[0]);
  EXPECT_EQ(A->getOp(), AssignOp::Accumulate);
  EXPECT_EQ(CudaEmitter::emitExpr(A->getLHS()), "p[n]");
  EXPECT_EQ(CudaEmitter::emitExpr(A->getRHS()), "x + y");
}

TEST_F(SimplifyTest, AccumulatesAreNotMergedWhenTheSecondReadsMemory) {
  body({assign(at(ref(P), ref(N)), AssignOp::Accumulate, ref(X)),
        assign(at(ref(P), ref(N)), AssignOp::Accumulate,
               at(ref(P), ilit(0))),
        ret(dlit(0))});
  EXPECT_FALSE(simplify::mergeAdds(M, *F));
  // Nor with different targets.
  body({assign(at(ref(P), ref(N)), AssignOp::Accumulate, ref(X)),
        assign(at(ref(P), ilit(0)), AssignOp::Accumulate, ref(Y)),
        ret(dlit(0))});
  EXPECT_FALSE(simplify::mergeAdds(M, *F));
}

//===----------------------------------------------------------------------===//
// Single-use temporaries
//===----------------------------------------------------------------------===//

TEST_F(SimplifyTest, SingleUseTemporaryIsInlined) {
  Var *R = local("_r3"), *Z = local("z");
  body({decl(R, mul(ref(X), ref(Y))), decl(Z, add(ref(R), dlit(1))),
        ret(mul(ref(Z), ref(Z)))});
  EXPECT_TRUE(simplify::propagateCopies(M, *F));
  EXPECT_EQ(code(), "double z = x * y + 1.;\nreturn z * z;\n");
}

TEST_F(SimplifyTest, NoInliningIntoALoop) {
  Var *R = local("_r3"), *S = local("s");
  body({decl(R, mul(ref(X), ref(Y))), decl(S, dlit(0)),
        loop({assign(ref(S), AssignOp::AddAssign, ref(R))}), ret(ref(S))});
  EXPECT_FALSE(simplify::propagateCopies(M, *F));
}

TEST_F(SimplifyTest, NoInliningAcrossAWriteToWhatItReads) {
  Var *R = local("_r3");
  body({decl(R, mul(ref(X), ref(Y))),
        assign(ref(X), AssignOp::Assign, dlit(2)), ret(ref(R))});
  EXPECT_FALSE(simplify::propagateCopies(M, *F));
  Var *L = local("_r4");
  body({decl(L, at(ref(P), ilit(0))),
        assign(at(ref(P), ref(N)), AssignOp::Assign, dlit(1)), ret(ref(L))});
  EXPECT_FALSE(simplify::propagateCopies(M, *F));
  body({decl(L, at(ref(P), ilit(0))), intrinsic("__syncthreads", {}),
        ret(ref(L))});
  EXPECT_FALSE(simplify::propagateCopies(M, *F));
}

TEST_F(SimplifyTest, NoInliningOfUserVariablesOrTemporariesReadTwice) {
  Var *T = local("t");
  body({decl(T, mul(ref(X), ref(Y))), ret(ref(T))});
  EXPECT_FALSE(simplify::propagateCopies(M, *F));
  Var *R = local("_r0");
  body({decl(R, mul(ref(X), ref(Y))), ret(add(ref(R), ref(R)))});
  EXPECT_FALSE(simplify::propagateCopies(M, *F));
}

TEST_F(SimplifyTest, NoInliningWithAConversion) {
  Var *R = local("_r0", types().getFloat());
  body({decl(R, mul(ref(X), ref(Y))), ret(ref(R))});
  EXPECT_FALSE(simplify::propagateCopies(M, *F));
}

//===----------------------------------------------------------------------===//
// The pipeline
//===----------------------------------------------------------------------===//

TEST_F(SimplifyTest, PipelineOnAForwardDerivative) {
  // The quickstart's shape: d/dy of sqrt(x*x + y*y).
  Var *DX = local("_d_x0"), *DY = local("_d_y0"), *T = local("_t0");
  Var *DL = local("_d_len"), *L = local("len");
  const Expr *Sum = add(mul(ref(X), ref(X)), mul(ref(Y), ref(Y)));
  body({decl(DX, dlit(0)), decl(DY, dlit(1)), decl(T, Sum),
        decl(DL, mul(bin(BinaryOp::Div, dlit(0.5), math("sqrt", ref(T))),
                     add(add(mul(ref(DX), ref(X)), mul(ref(X), ref(DX))),
                         add(mul(ref(DY), ref(Y)), mul(ref(Y), ref(DY)))))),
        decl(L, math("sqrt", ref(T))), ret(mul(ref(DL), ref(L)))});
  // len moves up to hold sqrt once; _t0 and _d_len, then read once, are
  // inlined.
  EXPECT_EQ(simplified(), "double len = sqrt(x * x + y * y);\n"
                          "return 0.5 / len * (2. * y) * len;\n");
}

} // namespace
