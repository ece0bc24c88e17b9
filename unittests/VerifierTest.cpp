//===- unittests/VerifierTest.cpp - Tests of the IR verifier --------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
//
// One test per check, each with a well-formed function (accepted) and a
// malformed one (rejected with the expected message), on hand-built IR.
//
//===----------------------------------------------------------------------===//

#include "IR/Verifier.h"
#include "IR/Builder.h"

#include "gtest/gtest.h"

using namespace meshad;
using namespace meshad::ir;

namespace {

/// A function `void f(double x, double *p, int n)` to fill in.
class VerifierTest : public ::testing::Test {
protected:
  VerifierTest() : B(M) {
    F = M.createFunction("f", T().getVoid(), CudaTarget::Global);
    X = param("x", T().getDouble());
    P = param("p", T().getPointer(T().getDouble()));
    N = param("n", T().getInt());
    Body = B.block();
    F->setBody(Body);
  }

  TypeContext &T() { return M.getTypes(); }
  Var *param(const char *Name, const Type *Ty) {
    Var *V = M.createVar(Name, Ty, Var::Storage::Param);
    F->addParam(V);
    return V;
  }
  Var *local(const char *Name, const Type *Ty = nullptr) {
    return M.createVar(Name, Ty ? Ty : T().getDouble());
  }
  const Expr *tid() {
    return M.create<BuiltinExpr>(T().getInt("unsigned int"),
                                 BuiltinExpr::Builtin::ThreadIdx, 0);
  }
  const Expr *bid() {
    return M.create<BuiltinExpr>(T().getInt("unsigned int"),
                                 BuiltinExpr::Builtin::BlockIdx, 0);
  }
  const Stmt *call(const char *Name, std::vector<const Expr *> Args = {}) {
    return M.create<ExprStmt>(
        M.create<CallExpr>(T().getVoid(), CallExpr::CalleeKind::Intrinsic, Name,
                           -1, std::move(Args)));
  }
  BlockStmt *blockOf(std::vector<const Stmt *> Body) {
    return M.create<BlockStmt>(std::move(Body));
  }

  /// Verifies F at \p Stage; returns the errors ("" when well formed).
  std::string verify(VerifyStage Stage = VerifyStage::Lowered) {
    std::string Errors;
    bool Ok = verifyFunction(*F, Stage, Errors);
    EXPECT_EQ(Ok, Errors.empty());
    return Errors;
  }
  void expectError(const char *Fragment,
                   VerifyStage Stage = VerifyStage::Lowered) {
    std::string Errors = verify(Stage);
    EXPECT_NE(Errors.find(Fragment), std::string::npos)
        << "expected '" << Fragment << "' in: " << Errors;
  }

  Module M;
  IRBuilder B;
  Function *F;
  Var *X, *P, *N;
  BlockStmt *Body;
};

TEST_F(VerifierTest, WellFormedFunction) {
  Var *Y = local("y");
  Body->append(B.decl(Y, B.mul(B.ref(X), B.ref(X))));
  Body->append(
      B.assign(B.index(B.ref(P), B.ref(N)), AssignOp::AddAssign, B.ref(Y)));
  EXPECT_EQ(verify(), "");
}

TEST_F(VerifierTest, ExpressionWithoutType) {
  Body->append(B.assign(B.ref(X), AssignOp::Assign,
                        M.create<FloatLitExpr>(nullptr, 1.0, "")));
  expectError("without a type");
}

TEST_F(VerifierTest, ArithmeticOperands) {
  // x * n is fine (int converts); p * x is not arithmetic.
  Body->append(B.assign(B.ref(X), AssignOp::Assign,
                        B.mul(B.ref(X), B.cast(T().getDouble(), B.ref(N)))));
  EXPECT_EQ(verify(), "");
  Body->append(B.assign(B.ref(X), AssignOp::Assign,
                        M.create<BinaryExpr>(T().getDouble(), BinaryOp::Mul,
                                             B.ref(P), B.ref(X))));
  expectError("operands of '*' that are not arithmetic");
}

TEST_F(VerifierTest, PointerArithmeticIsArithmetic) {
  Var *Q = local("q", P->getType());
  Body->append(B.decl(Q, M.create<BinaryExpr>(P->getType(), BinaryOp::Add,
                                              B.ref(P), B.ref(N))));
  EXPECT_EQ(verify(), "");
}

TEST_F(VerifierTest, BitOperandsAreIntegers) {
  Var *K = local("k", T().getInt());
  Body->append(B.decl(K, M.create<BinaryExpr>(T().getInt(), BinaryOp::Rem,
                                              B.ref(N), B.intLit(3))));
  EXPECT_EQ(verify(), "");
  Body->append(B.assign(B.ref(K), AssignOp::Assign,
                        M.create<BinaryExpr>(T().getInt(), BinaryOp::Shl,
                                             B.ref(X), B.intLit(1))));
  expectError("operands of '<<' that are not integers");
}

TEST_F(VerifierTest, OpaqueOperandsAreAccepted) {
  // An enum (opaque to the IR) in integer arithmetic and as an index.
  Var *E = local("e", T().getOpaque("Color"));
  Var *K = local("k", T().getInt());
  Body->append(B.decl(E, nullptr));
  Body->append(B.decl(K, M.create<BinaryExpr>(T().getInt(), BinaryOp::BitAnd,
                                              B.ref(E), B.intLit(1))));
  Body->append(
      B.assign(B.ref(X), AssignOp::Assign,
               M.create<IndexExpr>(T().getDouble(), B.ref(P), B.ref(E))));
  EXPECT_EQ(verify(), "");
}

TEST_F(VerifierTest, IndexBaseAndIndex) {
  Body->append(
      B.assign(B.ref(X), AssignOp::Assign,
               M.create<IndexExpr>(T().getDouble(), B.ref(X), B.ref(N))));
  expectError("neither a pointer nor an array");
}

TEST_F(VerifierTest, IndexMustBeIntegral) {
  Body->append(
      B.assign(B.ref(X), AssignOp::Assign,
               M.create<IndexExpr>(T().getDouble(), B.ref(P), B.ref(X))));
  expectError("an index that is not an integer");
}

TEST_F(VerifierTest, DerefOfNonPointer) {
  Body->append(B.assign(B.unary(UnaryOp::Deref, B.ref(P), T().getDouble()),
                        AssignOp::Assign, B.ref(X)));
  EXPECT_EQ(verify(), "");
  Body->append(B.assign(B.ref(X), AssignOp::Assign,
                        B.unary(UnaryOp::Deref, B.ref(X), T().getDouble())));
  expectError("a dereference of 'x'");
}

TEST_F(VerifierTest, UserCallArgumentCount) {
  Function *G = M.createFunction("g", T().getDouble(), CudaTarget::Device);
  G->addParam(M.createVar("a", T().getDouble(), Var::Storage::Param));
  Body->append(
      B.assign(B.ref(X), AssignOp::Assign,
               M.create<CallExpr>(T().getDouble(), G,
                                  std::vector<const Expr *>{B.ref(X)})));
  EXPECT_EQ(verify(), "");
  Body->append(B.assign(
      B.ref(X), AssignOp::Assign,
      M.create<CallExpr>(T().getDouble(), G,
                         std::vector<const Expr *>{B.ref(X), B.ref(X)})));
  expectError("a call of 'g' with 2 arguments for 1 parameters");
}

TEST_F(VerifierTest, IntrinsicArity) {
  Body->append(call("atomicAdd", {B.ref(P), B.ref(X)}));
  EXPECT_EQ(verify(), "");
  Body->append(call("atomicAdd", {B.ref(P)}));
  expectError("a call of 'atomicAdd' with 1 arguments (2 expected)");
}

TEST_F(VerifierTest, LaunchArgumentCount) {
  Function *K = M.createFunction("k", T().getVoid(), CudaTarget::Global);
  K->addParam(M.createVar("a", T().getDouble(), Var::Storage::Param));
  Function *H = M.createFunction("h", T().getVoid(), CudaTarget::HostOnly);
  BlockStmt *HB = B.block();
  H->setBody(HB);
  HB->append(M.create<LaunchStmt>(K, B.intLit(1), B.intLit(32), nullptr,
                                  nullptr, std::vector<const Expr *>{}));
  std::string Errors;
  EXPECT_FALSE(verifyFunction(*H, VerifyStage::Lowered, Errors));
  EXPECT_NE(Errors.find("with 0 arguments for 1 parameters"), std::string::npos)
      << Errors;
}

TEST_F(VerifierTest, AssignmentToNonLValue) {
  Body->append(B.assign(B.add(B.ref(X), B.ref(X)), AssignOp::Assign, B.ref(X)));
  expectError("not an lvalue");
}

TEST_F(VerifierTest, AssignmentToConst) {
  Var *C = local("c", T().getConst(T().getDouble()));
  Body->append(B.decl(C, B.ref(X)));
  EXPECT_EQ(verify(), "");
  Body->append(B.assign(B.ref(C), AssignOp::Assign, B.ref(X)));
  expectError("assignment to const 'c'");
}

TEST_F(VerifierTest, IncrementHasNoRightHandSide) {
  Body->append(B.assign(B.ref(N), AssignOp::Inc, nullptr));
  EXPECT_EQ(verify(), "");
  Body->append(B.assign(B.ref(N), AssignOp::Assign, nullptr));
  expectError("without a right-hand side");
}

TEST_F(VerifierTest, UseBeforeDeclaration) {
  Var *Y = local("y");
  Body->append(B.assign(B.ref(X), AssignOp::Assign, B.ref(Y)));
  Body->append(B.decl(Y, B.ref(X)));
  expectError("'y' is used outside the scope of its declaration");
}

TEST_F(VerifierTest, UseOutsideScope) {
  Var *Y = local("y");
  Body->append(
      M.create<IfStmt>(B.ref(N), blockOf({B.decl(Y, B.ref(X))}), nullptr));
  EXPECT_EQ(verify(), "");
  Body->append(B.assign(B.ref(X), AssignOp::Assign, B.ref(Y)));
  expectError("'y' is used outside the scope");
}

TEST_F(VerifierTest, GlobalsNeedNoDeclaration) {
  Var *G = M.createVar("g", T().getDouble(), Var::Storage::Global);
  Body->append(B.assign(B.ref(X), AssignOp::Assign, B.ref(G)));
  EXPECT_EQ(verify(), "");
}

TEST_F(VerifierTest, ForeignParameter) {
  Var *Other = M.createVar("a", T().getDouble(), Var::Storage::Param);
  Body->append(B.assign(B.ref(X), AssignOp::Assign, B.ref(Other)));
  expectError("'a' is a parameter of another function");
}

TEST_F(VerifierTest, DeclaredTwice) {
  Var *K = local("k", T().getInt());
  auto Loop = [&] {
    return M.create<ForStmt>(
        B.decl(K, B.intLit(0)), B.binary(BinaryOp::Lt, B.ref(K), B.ref(N)),
        B.assign(B.ref(K), AssignOp::Inc, nullptr), B.block());
  };
  Body->append(Loop());
  EXPECT_EQ(verify(), "");
  // Legal C++ (sibling scopes), but one variable must have one declaration.
  Body->append(Loop());
  expectError("'k' is declared twice");
}

TEST_F(VerifierTest, SameNameInOneScope) {
  Body->append(B.decl(local("y"), B.ref(X)));
  Body->append(B.decl(local("y"), B.ref(X)));
  expectError("two variables named 'y' in one scope");
}

TEST_F(VerifierTest, SameNameAsParameterAtTopLevel) {
  Body->append(B.decl(local("x"), B.intLit(0)));
  expectError("two variables named 'x' in one scope");
}

TEST_F(VerifierTest, SiblingScopesMayReuseANameAndShadowingIsFineWhenUnused) {
  Var *Y1 = local("y"), *Y2 = local("y"), *XInner = local("x");
  Body->append(M.create<IfStmt>(B.ref(N), blockOf({B.decl(Y1, B.ref(X))}),
                                blockOf({B.decl(Y2, B.ref(X))})));
  // An inner x that hides the parameter, where nothing reads the parameter.
  Body->append(blockOf({B.decl(XInner, B.intLit(1)),
                        B.assign(B.ref(XInner), AssignOp::Inc, nullptr)}));
  EXPECT_EQ(verify(), "");
}

TEST_F(VerifierTest, ShadowedVariableUsed) {
  // { double x = 1; p[0] = x_param; }: the emitted `x` binds to the inner x.
  Var *XInner = local("x");
  Body->append(blockOf(
      {B.decl(XInner, B.intLit(1)),
       B.assign(B.index(B.ref(P), B.intLit(0)), AssignOp::Assign, B.ref(X))}));
  expectError("a use of 'x' names another variable");
}

TEST_F(VerifierTest, ShadowingInOwnInitializer) {
  // { double x = x_param * 2; }: in C++ the inner x is already in scope.
  Body->append(blockOf({B.decl(local("x"), B.mul(B.ref(X), B.ref(X)))}));
  expectError("a use of 'x' names another variable");
}

TEST_F(VerifierTest, BreakOutsideLoop) {
  Body->append(M.create<WhileStmt>(B.ref(N), blockOf({M.create<BreakStmt>()})));
  EXPECT_EQ(verify(), "");
  Body->append(
      M.create<IfStmt>(B.ref(N), blockOf({M.create<ContinueStmt>()}), nullptr));
  expectError("continue outside a loop");
}

TEST_F(VerifierTest, ReturnMatchesReturnType) {
  Body->append(M.create<ReturnStmt>(nullptr));
  EXPECT_EQ(verify(), "");
  Body->append(M.create<ReturnStmt>(B.ref(X)));
  expectError("a value returned from a void function");
}

TEST_F(VerifierTest, BarrierUnderUniformBranch) {
  Var *Blk = local("b", T().getInt());
  Body->append(B.decl(Blk, B.cast(T().getInt(), bid())));
  Body->append(M.create<IfStmt>(B.binary(BinaryOp::Eq, B.ref(Blk), B.intLit(0)),
                                blockOf({call("__syncthreads")}), nullptr));
  Body->append(call("__syncthreads"));
  EXPECT_EQ(verify(), "");
}

TEST_F(VerifierTest, BarrierUnderThreadDependentBranch) {
  Var *I = local("i", T().getInt());
  Body->append(B.decl(I, B.add(B.cast(T().getInt(), tid()), B.intLit(1))));
  Body->append(M.create<IfStmt>(B.binary(BinaryOp::Lt, B.ref(I), B.ref(N)),
                                B.block(), blockOf({call("__syncthreads")})));
  expectError("'__syncthreads' is inside a branch or loop whose condition "
              "depends on the thread index");
}

TEST_F(VerifierTest, BarrierHelperUnderThreadDependentLoop) {
  Body->append(M.create<WhileStmt>(
      B.binary(BinaryOp::Lt, tid(), B.ref(N)),
      blockOf({call("meshad::blockReduceAtomicAdd", {B.ref(P), B.ref(X)})})));
  expectError("'meshad::blockReduceAtomicAdd' is inside a branch");
}

TEST_F(VerifierTest, AccumulateOnlyBeforeLowering) {
  Body->append(B.accumulate(B.index(B.ref(P), B.intLit(0)), B.ref(X)));
  EXPECT_EQ(verify(VerifyStage::Transformed), "");
  expectError("an Accumulate of an expression is left after the GPU lowering");
}

TEST_F(VerifierTest, SeedResetStoresZeroIntoMemory) {
  AssignStmt *Reset = B.assign(B.index(B.ref(P), B.ref(N)), AssignOp::Assign,
                               B.zero(T().getDouble()));
  Reset->setSeedReset();
  Body->append(Reset);
  EXPECT_EQ(verify(), "");
  AssignStmt *NotZero = B.assign(B.index(B.ref(P), B.ref(N)),
                                 AssignOp::Assign, B.ref(X));
  NotZero->setSeedReset();
  Body->append(NotZero);
  expectError(
      "a seed reset of an expression that does not store zero into memory");
}

TEST_F(VerifierTest, SeedResetOfALocalIsRejected) {
  Var *L = local("l");
  Body->append(B.decl(L, B.zero(T().getDouble())));
  AssignStmt *Reset =
      B.assign(B.ref(L), AssignOp::Assign, B.zero(T().getDouble()));
  Reset->setSeedReset();
  Body->append(Reset);
  expectError("a seed reset of 'l' that does not store zero into memory");
}

TEST_F(VerifierTest, RolesFollowTheDerivativeOrder) {
  // A tangent in a first derivative, the tangent of an adjoint in a second.
  F->setDerivativeOrder(1);
  Var *DX = M.createVar("_d_x", T().getDouble(), Var::Storage::Local,
                        VarRoles::Tangent);
  Body->append(B.decl(DX, B.ref(X)));
  EXPECT_EQ(verify(), "");
  VarRoles Second = VarRoles::derivativeOf(
      VarRoles(VarRoles::Adjoint | VarRoles::Temporary), VarRoles::Tangent);
  EXPECT_EQ(Second.str(), "tangent|adjoint|temporary");
  Body->append(B.decl(
      M.createVar("_d2_d_t0", T().getDouble(), Var::Storage::Local, Second),
      B.ref(X)));
  expectError("'_d2_d_t0' (tangent|adjoint|temporary) in a function of "
              "derivative order 1");
  F->setDerivativeOrder(2);
  EXPECT_EQ(verify(), "");
  // A derivative role in user code.
  F->setDerivativeOrder(0);
  expectError("'_d_x' (tangent) in a function of derivative order 0");
}

TEST_F(VerifierTest, RolesOfTapesAndPrimals) {
  F->setDerivativeOrder(1);
  Var *Tape = M.createVar("_t0", T().getTape(T().getDouble()),
                          Var::Storage::Local, VarRoles::Tape);
  Body->append(B.decl(Tape, nullptr));
  EXPECT_EQ(verify(), "");
  Body->append(B.decl(M.createVar("_t1", T().getTape(T().getDouble()),
                                  Var::Storage::Local, VarRoles::Temporary),
                      nullptr));
  expectError("'_t1' (temporary) is of tape type");
  Body->setBody({B.decl(
      M.createVar("_t2", T().getDouble(), Var::Storage::Local, VarRoles::Tape),
      B.ref(X))});
  expectError("'_t2' (tape) is not of tape type");
  Body->setBody({B.decl(M.createVar("y", T().getDouble(), Var::Storage::Local,
                                    VarRoles::Primal | VarRoles::Tangent),
                        B.ref(X))});
  expectError("'y' (primal|tangent) is primal and derived at once");
}

} // namespace

TEST_F(VerifierTest, RegionMarkersInOrderAtTopLevel) {
  using Region = MarkerStmt::Region;
  auto Mark = [&](Region R) { return M.create<MarkerStmt>(R); };
  Body->append(Mark(Region::SetupEnd));
  Body->append(Mark(Region::ForwardBegin));
  Body->append(Mark(Region::ReverseBegin));
  Body->append(Mark(Region::EpilogueBegin));
  Body->append(Mark(Region::EpilogueEnd));
  EXPECT_EQ(verify(VerifyStage::Transformed), "");
  // Not at emission: the GPU lowering consumes them.
  expectError("marker setup-end is left after the GPU lowering");
}

TEST_F(VerifierTest, RegionMarkersOutOfOrderOrTwice) {
  using Region = MarkerStmt::Region;
  Body->append(M.create<MarkerStmt>(Region::ReverseBegin));
  Body->append(M.create<MarkerStmt>(Region::ForwardBegin));
  expectError("marker forward-begin follows the marker reverse-begin",
              VerifyStage::Transformed);
  Body->setBody({M.create<MarkerStmt>(Region::ReverseBegin),
                 M.create<MarkerStmt>(Region::ReverseBegin)});
  expectError("marker reverse-begin follows the marker reverse-begin",
              VerifyStage::Transformed);
}

TEST_F(VerifierTest, RegionMarkerOnlyInTheFunctionsBody) {
  Body->append(M.create<IfStmt>(
      B.binary(BinaryOp::Lt, B.ref(N), B.intLit(2)),
      blockOf({M.create<MarkerStmt>(MarkerStmt::Region::EpilogueBegin)}),
      nullptr));
  expectError("marker epilogue-begin is not a statement of the function's body",
              VerifyStage::Transformed);
}
