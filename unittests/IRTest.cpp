//===- unittests/IRTest.cpp - Tests of the IR and its types ---------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "IR/Builder.h"
#include "IR/Clone.h"
#include "IR/IR.h"
#include "IR/Markers.h"
#include "IR/NameScope.h"

#include "gtest/gtest.h"

using namespace meshad;
using namespace meshad::ir;

namespace {

TEST(TypeContextTest, BuiltinTypesAndUniquing) {
  TypeContext T;
  EXPECT_EQ(T.getDouble()->getKind(), Type::Kind::Double);
  EXPECT_EQ(T.getFloat()->getKind(), Type::Kind::Float);
  EXPECT_TRUE(T.getVoid()->isVoid());
  EXPECT_EQ(T.getBool()->getKind(), Type::Kind::Bool);
  EXPECT_EQ(T.getInt(), T.getInt("int"));
  EXPECT_NE(T.getInt("int"), T.getInt("size_t"));
  EXPECT_EQ(T.getPointer(T.getDouble()), T.getPointer(T.getDouble()));
  EXPECT_NE(T.getPointer(T.getDouble()), T.getPointer(T.getFloat()));
  EXPECT_EQ(T.getArray(T.getFloat(), 3), T.getArray(T.getFloat(), 3));
  EXPECT_NE(T.getArray(T.getFloat(), 3), T.getArray(T.getFloat(), 4));
  EXPECT_EQ(T.getVector(T.getFloat(), 3), T.getVector(T.getFloat(), 3));
  EXPECT_EQ(T.getVector(T.getFloat(), 3)->getSpelling(), "float3");
  EXPECT_EQ(T.getVector(T.getDouble(), 2)->getSpelling(), "double2");
  EXPECT_EQ(T.getVector(T.getDouble(), 2)->getCount(), 2u);
  EXPECT_EQ(T.getVector(T.getDouble(), 2)->getElement(), T.getDouble());
  EXPECT_EQ(T.getOpaque("dim3"), T.getOpaque("dim3"));
}

TEST(TypeContextTest, ConstAndUnqualified) {
  TypeContext T;
  const Type *CD = T.getConst(T.getDouble());
  EXPECT_TRUE(CD->isConst());
  EXPECT_FALSE(T.getDouble()->isConst());
  EXPECT_EQ(CD, T.getConst(T.getDouble()));
  EXPECT_EQ(T.getConst(CD), CD);
  EXPECT_EQ(CD->getUnqualified(), T.getDouble());
  EXPECT_EQ(T.getDouble()->getUnqualified(), T.getDouble());
  EXPECT_EQ(CD->getKind(), Type::Kind::Double);
  const Type *CF3 = T.getConst(T.getVector(T.getFloat(), 3));
  EXPECT_EQ(CF3->getUnqualified(), T.getVector(T.getFloat(), 3));
  EXPECT_EQ(CF3->getSpelling(), "float3");
  // A pointer to const is not itself const.
  const Type *PCD = T.getPointer(CD);
  EXPECT_FALSE(PCD->isConst());
  EXPECT_EQ(PCD->getUnqualified(), PCD);
  const Type *CP = T.getConst(T.getPointer(T.getDouble()));
  EXPECT_EQ(CP->getUnqualified(), T.getPointer(T.getDouble()));
  // An array of const elements.
  const Type *CA = T.getConst(T.getArray(T.getDouble(), 3));
  EXPECT_EQ(CA, T.getArray(CD, 3));
  EXPECT_EQ(CA->getUnqualified(), T.getArray(T.getDouble(), 3));
  EXPECT_EQ(T.getVector(CD, 2), T.getVector(T.getDouble(), 2));
}

TEST(TypeContextTest, Differentiability) {
  TypeContext T;
  EXPECT_TRUE(T.getDouble()->isDifferentiable());
  EXPECT_TRUE(T.getFloat()->isDifferentiable());
  EXPECT_TRUE(T.getVector(T.getFloat(), 3)->isDifferentiable());
  EXPECT_TRUE(T.getPointer(T.getConst(T.getDouble()))->isDifferentiable());
  EXPECT_TRUE(T.getPointer(T.getPointer(T.getFloat()))->isDifferentiable());
  EXPECT_TRUE(T.getArray(T.getArray(T.getDouble(), 2), 3)->isDifferentiable());
  EXPECT_FALSE(T.getInt()->isDifferentiable());
  EXPECT_FALSE(T.getBool()->isDifferentiable());
  EXPECT_FALSE(T.getPointer(T.getInt())->isDifferentiable());
  EXPECT_FALSE(T.getOpaque("dim3")->isDifferentiable());
  EXPECT_FALSE(T.getVoid()->isDifferentiable());
  EXPECT_FALSE(T.getPointer(T.getDouble())->isDifferentiableValue());
  const Type *F3 = T.getVector(T.getFloat(), 3);
  EXPECT_EQ(T.getPointer(F3)->getScalarElement(), F3);
  EXPECT_EQ(T.getArray(T.getPointer(T.getDouble()), 4)->getScalarElement(),
            T.getDouble());
  EXPECT_EQ(T.getDouble()->getScalarElement(), T.getDouble());
}

TEST(TypeSpellingTest, ScalarsAndNamedTypes) {
  TypeContext T;
  EXPECT_EQ(spellType(T.getFloat()), "float");
  EXPECT_EQ(spellType(T.getDouble()), "double");
  EXPECT_EQ(spellType(T.getBool()), "bool");
  EXPECT_EQ(spellType(T.getVoid()), "void");
  EXPECT_EQ(spellType(T.getInt("unsigned int")), "unsigned int");
  EXPECT_EQ(spellType(T.getVector(T.getFloat(), 3)), "float3");
  EXPECT_EQ(spellType(T.getOpaque("dim3")), "dim3");
  EXPECT_EQ(spellType(T.getConst(T.getDouble())), "const double");
  EXPECT_EQ(spellDeclaration(T.getConst(T.getVector(T.getDouble(), 4)), "v"),
            "const double4 v");
  EXPECT_EQ(spellDeclaration(T.getDouble(), "x"), "double x");
}

TEST(TypeSpellingTest, Declarators) {
  TypeContext T;
  const Type *D = T.getDouble(), *CD = T.getConst(D);
  EXPECT_EQ(spellDeclaration(T.getPointer(CD), "p"), "const double *p");
  EXPECT_EQ(spellDeclaration(T.getPointer(D), "p"), "double *p");
  EXPECT_EQ(spellDeclaration(T.getPointer(T.getPointer(D)), "pp"),
            "double **pp");
  EXPECT_EQ(spellDeclaration(T.getConst(T.getPointer(D)), "p"),
            "double *const p");
  EXPECT_EQ(spellDeclaration(T.getArray(D, 3), "a"), "double a[3]");
  EXPECT_EQ(spellDeclaration(T.getArray(T.getArray(D, 3), 2), "a"),
            "double a[2][3]");
  EXPECT_EQ(spellDeclaration(T.getArray(T.getPointer(D), 4), "a"),
            "double *a[4]");
  EXPECT_EQ(spellDeclaration(T.getPointer(T.getArray(D, 3)), "p"),
            "double (*p)[3]");
  EXPECT_EQ(spellDeclaration(T.getArray(CD, 3), "a"), "const double a[3]");
  EXPECT_EQ(spellDeclaration(T.getPointer(T.getVoid()), "buf"), "void *buf");
}

TEST(TypeSpellingTest, TypeAloneEqualsEmptyDeclarator) {
  TypeContext T;
  const Type *D = T.getDouble();
  const Type *Types[] = {D,
                         T.getPointer(T.getConst(D)),
                         T.getPointer(T.getPointer(D)),
                         T.getConst(T.getPointer(D)),
                         T.getArray(D, 3),
                         T.getArray(T.getArray(D, 3), 2),
                         T.getPointer(T.getArray(D, 3))};
  for (const Type *Ty : Types)
    EXPECT_EQ(spellDeclaration(Ty, ""), spellType(Ty));
  EXPECT_EQ(spellType(T.getPointer(T.getConst(D))), "const double *");
  EXPECT_EQ(spellType(T.getPointer(T.getPointer(D))), "double **");
  EXPECT_EQ(spellType(T.getConst(T.getPointer(D))), "double *const");
  EXPECT_EQ(spellType(T.getArray(D, 3)), "double [3]");
  EXPECT_EQ(spellType(T.getArray(T.getArray(D, 3), 2)), "double [2][3]");
  EXPECT_EQ(spellType(T.getPointer(T.getArray(D, 3))), "double (*)[3]");
}

TEST(IRTest, OperatorClasses) {
  EXPECT_TRUE(isArithmetic(BinaryOp::Add));
  EXPECT_TRUE(isArithmetic(BinaryOp::Sub));
  EXPECT_TRUE(isArithmetic(BinaryOp::Mul));
  EXPECT_TRUE(isArithmetic(BinaryOp::Div));
  EXPECT_FALSE(isArithmetic(BinaryOp::Rem));
  EXPECT_FALSE(isArithmetic(BinaryOp::Lt));
  EXPECT_FALSE(isArithmetic(BinaryOp::Shl));
  for (BinaryOp Op :
       {BinaryOp::Lt, BinaryOp::Gt, BinaryOp::Le, BinaryOp::Ge, BinaryOp::Eq,
        BinaryOp::Ne, BinaryOp::LAnd, BinaryOp::LOr})
    EXPECT_TRUE(isComparisonOrLogical(Op));
  for (BinaryOp Op : {BinaryOp::Add, BinaryOp::Rem, BinaryOp::BitAnd,
                      BinaryOp::BitOr, BinaryOp::BitXor, BinaryOp::Shr})
    EXPECT_FALSE(isComparisonOrLogical(Op));
}

TEST(IRTest, ParamIndex) {
  Module M;
  Function *F =
      M.createFunction("f", M.getTypes().getDouble(), CudaTarget::Device);
  Var *X = M.createVar("x", M.getTypes().getDouble(), Var::Storage::Param);
  Var *Y = M.createVar("y", M.getTypes().getDouble(), Var::Storage::Param);
  Var *Z = M.createVar("z", M.getTypes().getDouble());
  F->addParam(X);
  F->addParam(Y);
  EXPECT_EQ(F->getParamIndex(X), 0);
  EXPECT_EQ(F->getParamIndex(Y), 1);
  EXPECT_EQ(F->getParamIndex(Z), -1);
  EXPECT_EQ(F->getNumParams(), 2u);
}

TEST(NameScopeTest, FreeNamesStayReadable) {
  NameScope Names;
  EXPECT_EQ(Names.derivative("x"), "_d_x");
  EXPECT_EQ(Names.numbered("_t"), "_t0");
  EXPECT_EQ(Names.numbered("_t"), "_t1");
  EXPECT_EQ(Names.numbered("_r"), "_r0");
  EXPECT_EQ(Names.unique("_d_x_tile"), "_d_x_tile");
  EXPECT_TRUE(Names.contains("_t1"));
}

TEST(NameScopeTest, TakenNamesGetTheNextFreeVariant) {
  NameScope Names;
  for (const char *User : {"_d_x", "_d_x_1", "_t0", "_t2", "_d_y"})
    Names.reserve(User);
  EXPECT_EQ(Names.derivative("x"), "_d_x_2");
  EXPECT_EQ(Names.derivative("x"), "_d_x_3"); // A second variable x.
  EXPECT_EQ(Names.numbered("_t"), "_t1");
  EXPECT_EQ(Names.numbered("_t"), "_t3");
  EXPECT_EQ(Names.unique("_d_y"), "_d_y_1");
  // The derivative of a user's _d_x is distinct from every name above.
  EXPECT_EQ(Names.derivative("_d_x"), "_d__d_x");
}

TEST(NameScopeTest, DeclarationsKeepTheFirstUserName) {
  NameScope Names;
  for (const char *User : {"x", "x_1", "i"})
    Names.reserve(User);
  EXPECT_EQ(Names.declare("x"), "x");   // The parameter x.
  EXPECT_EQ(Names.declare("x"), "x_2"); // A local x shadowing it.
  EXPECT_EQ(Names.declare("x_1"), "x_1");
  EXPECT_EQ(Names.declare("i"), "i");
  EXPECT_EQ(Names.declare("i"), "i_1");
  EXPECT_EQ(Names.derivative("x_2"), "_d_x_2");
}

TEST(NameScopeTest, AddFunctionReservesEveryIdentifier) {
  Module M;
  TypeContext &T = M.getTypes();
  Function *G = M.createFunction("_d_g", T.getDouble(), CudaTarget::HostOnly);
  Function *F = M.createFunction("f", T.getDouble(), CudaTarget::HostOnly);
  Var *X = M.createVar("x", T.getDouble(), Var::Storage::Param);
  Var *Local = M.createVar("_t0", T.getDouble());
  Var *Inner = M.createVar("_d_x", T.getDouble());
  Var *Global = M.createVar("_r0", T.getDouble(), Var::Storage::Global);
  F->addParam(X);
  auto *Call = M.create<CallExpr>(T.getDouble(), G,
                                  std::vector<const Expr *>{
                                      M.create<VarRefExpr>(Global)});
  auto *Then = M.create<BlockStmt>(
      std::vector<const Stmt *>{M.create<DeclStmt>(Inner, Call)});
  F->setBody(M.create<BlockStmt>(std::vector<const Stmt *>{
      M.create<DeclStmt>(Local, M.create<VarRefExpr>(X)),
      M.create<IfStmt>(M.create<BoolLitExpr>(T.getBool(), true), Then,
                       nullptr)}));
  NameScope Names;
  Names.addFunction(*F);
  for (const char *Name : {"x", "_t0", "_d_x", "_r0", "_d_g"})
    EXPECT_TRUE(Names.contains(Name)) << Name;
  EXPECT_EQ(Names.derivative("x"), "_d_x_1");
  EXPECT_EQ(Names.numbered("_t"), "_t1");
  EXPECT_EQ(Names.numbered("_r"), "_r1");
  EXPECT_EQ(Names.derivative("g"), "_d_g_1");
}

TEST(MarkerTest, CloneKeepsMarkersAndTheLoweringDropsThem) {
  Module M;
  IRBuilder B(M);
  using Region = MarkerStmt::Region;
  Function *F = M.createFunction("f_grad", M.getTypes().getVoid(),
                                 CudaTarget::Global);
  Var *X = M.createVar("x", M.getTypes().getDouble());
  F->setBody(B.block());
  F->getBody()->append(B.decl(X, B.zero(X->getType())));
  F->getBody()->append(M.create<MarkerStmt>(Region::SetupEnd));
  F->getBody()->append(
      B.assign(B.ref(X), AssignOp::Assign, B.zero(X->getType())));
  F->getBody()->append(M.create<MarkerStmt>(Region::EpilogueBegin));
  EXPECT_TRUE(hasMarkers(*F));
  EXPECT_EQ(findMarker(*F->getBody(), Region::SetupEnd), 1u);
  EXPECT_EQ(findMarker(*F->getBody(), Region::EpilogueBegin), 3u);
  EXPECT_EQ(findMarker(*F->getBody(), Region::ReverseBegin), NoMarker);
  IRCloner C(M);
  BlockStmt *Copy = C.cloneBlock(F->getBody());
  ASSERT_EQ(Copy->getBody().size(), 4u);
  const auto *Kept = llvm::dyn_cast<MarkerStmt>(Copy->getBody()[3]);
  ASSERT_NE(Kept, nullptr);
  EXPECT_EQ(Kept->getRegion(), Region::EpilogueBegin);
  EXPECT_STREQ(MarkerStmt::getRegionName(Kept->getRegion()), "epilogue-begin");
  dropMarkers(*F);
  EXPECT_FALSE(hasMarkers(*F));
  EXPECT_EQ(F->getBody()->getBody().size(), 2u);
}

} // namespace
