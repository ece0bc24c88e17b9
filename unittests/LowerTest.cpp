//===- unittests/LowerTest.cpp - Tests of the AST lowering ----------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "Emit/CudaEmitter.h"
#include "Lower/ASTLowering.h"
#include "Rules/DerivativeRules.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Tooling/Tooling.h"

#include "gtest/gtest.h"

using namespace meshad;
using namespace meshad::ir;
using llvm::cast;
using llvm::dyn_cast;
using llvm::isa;

namespace {

const char *ResourceDir = "-resource-dir=/usr/lib/llvm-22/lib/clang/22";

/// Finds the first function definition (or instantiated specialization)
/// with a given name.
class FunctionFinder : public clang::RecursiveASTVisitor<FunctionFinder> {
public:
  explicit FunctionFinder(llvm::StringRef Name) : Name(Name) {}
  bool shouldVisitTemplateInstantiations() const { return true; }
  bool VisitFunctionDecl(clang::FunctionDecl *FD) {
    if (!Found && FD->getName() == Name && FD->doesThisDeclarationHaveABody() &&
        !FD->isDependentContext())
      Found = FD;
    return true;
  }
  llvm::StringRef Name;
  clang::FunctionDecl *Found = nullptr;
};

/// Parses a snippet, lowers one of its functions and keeps everything alive.
class LowerTest : public ::testing::Test {
protected:
  enum class Lang { Cxx, Cuda };

  Function *lower(llvm::StringRef Code, llvm::StringRef Name,
                  Lang L = Lang::Cxx) {
    std::vector<std::string> Args = {"-std=c++17", ResourceDir};
    std::string File = "input.cc";
    if (L == Lang::Cuda) {
      Args = {"-xcuda", "--cuda-host-only", "--cuda-path=/usr/local/cuda",
              "-nocudalib", "-Wno-unknown-cuda-version", ResourceDir};
      File = "input.cu";
    }
    AST = clang::tooling::buildASTFromCodeWithArgs(Code, Args, File);
    if (!AST || AST->getDiagnostics().hasErrorOccurred()) {
      ADD_FAILURE() << "snippet does not compile";
      return nullptr;
    }
    clang::ASTContext &Ctx = AST->getASTContext();
    Diags = std::make_unique<DiagnosticSink>(&Ctx.getSourceManager());
    Lowering = std::make_unique<ASTLowering>(Ctx, M, *Diags);
    FunctionFinder Finder(Name);
    Finder.TraverseDecl(Ctx.getTranslationUnitDecl());
    if (!Finder.Found) {
      ADD_FAILURE() << "no function " << Name.str();
      return nullptr;
    }
    Decl = Finder.Found;
    return Lowering->lower(Decl);
  }

  /// True if an error containing \p Text was reported on \p Line.
  bool hasError(llvm::StringRef Text, unsigned Line) const {
    for (const Diagnostic &D : Diags->getDiagnostics())
      if (D.Severity == Diagnostic::Level::Error && D.Line == Line &&
          llvm::StringRef(D.Message).contains(Text))
        return true;
    return false;
  }
  std::string allDiagnostics() const {
    std::string Text;
    for (const Diagnostic &D : Diags->getDiagnostics())
      Text += std::to_string(D.Line) + ":" + std::to_string(D.Column) + ": " +
              D.Message + "\n";
    return Text;
  }
  /// Lowers \p Code expecting failure with \p Text on \p Line.
  void expectError(llvm::StringRef Code, llvm::StringRef Text, unsigned Line,
                   Lang L = Lang::Cxx) {
    EXPECT_EQ(lower(Code, "f", L), nullptr) << Code.str();
    EXPECT_TRUE(hasError(Text, Line)) << allDiagnostics();
  }
  unsigned lineOf(clang::SourceLocation Loc) const {
    return AST->getSourceManager().getPresumedLoc(Loc).getLine();
  }

  static const Stmt *stmt(const Function *F, unsigned I) {
    return F->getBody()->getBody().at(I);
  }

  Module M;
  std::unique_ptr<clang::ASTUnit> AST;
  std::unique_ptr<DiagnosticSink> Diags;
  std::unique_ptr<ASTLowering> Lowering;
  clang::FunctionDecl *Decl = nullptr;
};

//===----------------------------------------------------------------------===//
// Functions, parameters and types
//===----------------------------------------------------------------------===//

TEST_F(LowerTest, SimpleFunction) {
  Function *F = lower("double f(double x, double y) {\n"
                      "  double t = x * y;\n"
                      "  return t + 1.5;\n"
                      "}\n",
                      "f");
  ASSERT_NE(F, nullptr) << allDiagnostics();
  EXPECT_EQ(F->getName(), "f");
  EXPECT_EQ(F->getTemplateArgs(), "");
  EXPECT_EQ(F->getTarget(), CudaTarget::HostOnly);
  EXPECT_EQ(F->getSourceDecl(), Decl);
  EXPECT_EQ(Lowering->getDecl(F), Decl);
  EXPECT_EQ(F->getReturnType(), M.getTypes().getDouble());
  ASSERT_EQ(F->getNumParams(), 2u);
  EXPECT_EQ(F->getParam(0)->getName(), "x");
  EXPECT_TRUE(F->getParam(1)->isParam());
  ASSERT_EQ(F->getBody()->getBody().size(), 2u);

  const auto *D = cast<DeclStmt>(stmt(F, 0));
  EXPECT_EQ(D->getVar()->getName(), "t");
  EXPECT_EQ(D->getVar()->getStorage(), Var::Storage::Local);
  EXPECT_EQ(lineOf(D->getLoc()), 2u);
  const auto *Mul = cast<BinaryExpr>(D->getInit());
  EXPECT_EQ(Mul->getOp(), BinaryOp::Mul);
  EXPECT_EQ(cast<VarRefExpr>(Mul->getLHS())->getVar(), F->getParam(0));
  EXPECT_EQ(cast<VarRefExpr>(Mul->getRHS())->getVar(), F->getParam(1));

  const auto *R = cast<ReturnStmt>(stmt(F, 1));
  EXPECT_EQ(lineOf(R->getLoc()), 3u);
  const auto *Add = cast<BinaryExpr>(R->getValue());
  EXPECT_EQ(cast<VarRefExpr>(Add->getLHS())->getVar(), D->getVar());
  const auto *Lit = cast<FloatLitExpr>(Add->getRHS());
  EXPECT_EQ(Lit->getSpelling(), "1.5");
  EXPECT_EQ(Lit->getValue(), 1.5);
  EXPECT_EQ(lineOf(Lit->getLoc()), 3u);
  // Memoized.
  EXPECT_EQ(Lowering->lower(Decl), F);
}

TEST_F(LowerTest, ParameterAndLocalTypes) {
  Function *F = lower("#include <cstddef>\n"
                      "typedef double real;\n"
                      "static inline void f(const double *p, unsigned n, "
                      "size_t m, long l, bool b, float *q, real r, int,\n"
                      "                     const double &cr) {\n"
                      "  double a[2][3];\n"
                      "  const int k = 3;\n"
                      "  auto s = r;\n"
                      "}\n",
                      "f");
  ASSERT_NE(F, nullptr) << allDiagnostics();
  TypeContext &T = M.getTypes();
  EXPECT_EQ(F->getQualifiers(), "static inline");
  EXPECT_EQ(F->getReturnType(), T.getVoid());
  ASSERT_EQ(F->getNumParams(), 9u);
  EXPECT_EQ(F->getParam(0)->getType(),
            T.getPointer(T.getConst(T.getDouble())));
  EXPECT_EQ(F->getParam(1)->getType(), T.getInt("unsigned int"));
  EXPECT_EQ(F->getParam(2)->getType(), T.getInt("unsigned long"));
  EXPECT_EQ(F->getParam(3)->getType(), T.getInt("long"));
  EXPECT_EQ(F->getParam(4)->getType(), T.getBool());
  EXPECT_EQ(F->getParam(5)->getType(), T.getPointer(T.getFloat()));
  EXPECT_EQ(F->getParam(6)->getType(), T.getDouble());
  EXPECT_EQ(F->getParam(7)->getName(), "_p7");
  EXPECT_EQ(F->getParam(8)->getType(), T.getDouble()); // const & -> value
  EXPECT_EQ(cast<DeclStmt>(stmt(F, 0))->getVar()->getType(),
            T.getArray(T.getArray(T.getDouble(), 3), 2));
  EXPECT_EQ(cast<DeclStmt>(stmt(F, 1))->getVar()->getType(),
            T.getConst(T.getInt("int")));
  EXPECT_EQ(cast<DeclStmt>(stmt(F, 2))->getVar()->getType(), T.getDouble());
}

TEST_F(LowerTest, StructsAndEnumsAreOpaque) {
  Function *F = lower("struct Pair { double a, b; };\n"
                      "enum Mode { Fast = 2, Slow };\n"
                      "double f(Pair *p, Mode m) {\n"
                      "  if (m == Fast) return p->a;\n"
                      "  return 0.0;\n"
                      "}\n",
                      "f");
  ASSERT_NE(F, nullptr) << allDiagnostics();
  TypeContext &T = M.getTypes();
  EXPECT_EQ(F->getParam(0)->getType(), T.getPointer(T.getOpaque("Pair")));
  EXPECT_EQ(F->getParam(1)->getType(), T.getOpaque("Mode"));
  const auto *If = cast<IfStmt>(stmt(F, 0));
  const auto *Eq = cast<BinaryExpr>(If->getCond());
  // Both operands are promoted to int.
  const auto *Fast = cast<IntLitExpr>(cast<CastExpr>(Eq->getRHS())->getSub());
  EXPECT_EQ(Fast->getValue(), 2);
  EXPECT_EQ(Fast->getSpelling(), "Fast");
  const auto *Ret = cast<ReturnStmt>(If->getThen()->getBody().at(0));
  const auto *Member = cast<MemberExpr>(Ret->getValue());
  EXPECT_EQ(Member->getField(), "a");
  EXPECT_TRUE(Member->isArrow());
  EXPECT_EQ(Member->getType(), T.getDouble());
}

TEST_F(LowerTest, CastsAndLiterals) {
  Function *F = lower("double f(int i, float x) {\n"
                      "  double a = i;\n"
                      "  double b = x;\n"
                      "  float c = (float)a;\n"
                      "  int d = sizeof(double);\n"
                      "  double *p = nullptr;\n"
                      "  bool e = true;\n"
                      "  return 2 * a;\n"
                      "}\n",
                      "f");
  ASSERT_NE(F, nullptr) << allDiagnostics();
  TypeContext &T = M.getTypes();
  const auto *A = cast<CastExpr>(cast<DeclStmt>(stmt(F, 0))->getInit());
  EXPECT_EQ(A->getType(), T.getDouble());
  EXPECT_EQ(A->getSub()->getType(), T.getInt("int"));
  const auto *B = cast<CastExpr>(cast<DeclStmt>(stmt(F, 1))->getInit());
  EXPECT_EQ(B->getSub()->getType(), T.getFloat());
  const auto *C = cast<CastExpr>(cast<DeclStmt>(stmt(F, 2))->getInit());
  EXPECT_EQ(C->getType(), T.getFloat());
  EXPECT_TRUE(isa<VarRefExpr>(C->getSub()));
  // sizeof is folded; its size_t value is converted to int.
  const auto *D = cast<CastExpr>(cast<DeclStmt>(stmt(F, 3))->getInit());
  EXPECT_EQ(cast<IntLitExpr>(D->getSub())->getValue(), 8);
  const auto *P = cast<IntLitExpr>(cast<DeclStmt>(stmt(F, 4))->getInit());
  EXPECT_EQ(P->getValue(), 0);
  EXPECT_EQ(P->getType(), T.getPointer(T.getDouble()));
  EXPECT_TRUE(cast<BoolLitExpr>(cast<DeclStmt>(stmt(F, 5))->getInit())
                  ->getValue());
  const auto *Mul = cast<BinaryExpr>(cast<ReturnStmt>(stmt(F, 6))->getValue());
  // An integer literal converted to floating becomes a floating literal that
  // keeps its spelling ("2 * a", not "(double)2 * a").
  const auto *Two = dyn_cast<FloatLitExpr>(Mul->getLHS());
  ASSERT_NE(Two, nullptr);
  EXPECT_EQ(Two->getValue(), 2.0);
  EXPECT_EQ(Two->getSpelling(), "2");
  EXPECT_EQ(Two->getType(), T.getDouble());
}

TEST_F(LowerTest, GlobalsAreSharedVars) {
  Function *F = lower("double Scale = 2.0;\n"
                      "namespace ns { const double Pi = 3.14; }\n"
                      "double f(double x) { return Scale * x + Scale * "
                      "ns::Pi; }\n",
                      "f");
  ASSERT_NE(F, nullptr) << allDiagnostics();
  const auto *Add = cast<BinaryExpr>(cast<ReturnStmt>(stmt(F, 0))->getValue());
  const Var *S1 =
      cast<VarRefExpr>(cast<BinaryExpr>(Add->getLHS())->getLHS())->getVar();
  const Var *S2 =
      cast<VarRefExpr>(cast<BinaryExpr>(Add->getRHS())->getLHS())->getVar();
  const Var *Pi =
      cast<VarRefExpr>(cast<BinaryExpr>(Add->getRHS())->getRHS())->getVar();
  EXPECT_EQ(S1, S2);
  EXPECT_TRUE(S1->isGlobal());
  EXPECT_EQ(S1->getName(), "Scale");
  EXPECT_EQ(Pi->getName(), "ns::Pi");
  EXPECT_EQ(Pi->getType(), M.getTypes().getConst(M.getTypes().getDouble()));
}

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

TEST_F(LowerTest, ControlFlow) {
  Function *F = lower("double f(double *x, int n) {\n"
                      "  double s = 0;\n"
                      "  for (int i = 0; i < n; i++) {\n"
                      "    if (x[i] < 0) continue;\n"
                      "    else if (x[i] > 10) break;\n"
                      "    else s += x[i];\n"
                      "  }\n"
                      "  int k = n;\n"
                      "  while (k > 0) --k;\n"
                      "  do { s *= 2; } while (s < 1);\n"
                      "  k %= 3;\n"
                      "  ;\n"
                      "  (void)k;\n"
                      "  { s = s - 1; }\n"
                      "  return s;\n"
                      "}\n",
                      "f");
  ASSERT_NE(F, nullptr) << allDiagnostics();
  ASSERT_EQ(F->getBody()->getBody().size(), 8u);
  const auto *For = cast<ForStmt>(stmt(F, 1));
  EXPECT_EQ(lineOf(For->getLoc()), 3u);
  EXPECT_EQ(cast<DeclStmt>(For->getInit())->getVar()->getName(), "i");
  EXPECT_EQ(cast<BinaryExpr>(For->getCond())->getOp(), BinaryOp::Lt);
  EXPECT_EQ(cast<AssignStmt>(For->getInc())->getOp(), AssignOp::Inc);
  const auto *If = cast<IfStmt>(For->getBody()->getBody().at(0));
  EXPECT_TRUE(isa<ContinueStmt>(If->getThen()->getBody().at(0)));
  ASSERT_NE(If->getElse(), nullptr);
  const auto *ElseIf = cast<IfStmt>(If->getElse()->getBody().at(0));
  EXPECT_TRUE(isa<BreakStmt>(ElseIf->getThen()->getBody().at(0)));
  const auto *Acc = cast<AssignStmt>(ElseIf->getElse()->getBody().at(0));
  EXPECT_EQ(Acc->getOp(), AssignOp::AddAssign);
  const auto *Idx = cast<IndexExpr>(Acc->getRHS());
  EXPECT_EQ(cast<VarRefExpr>(Idx->getBase())->getVar(), F->getParam(0));

  const auto *While = cast<WhileStmt>(stmt(F, 3));
  EXPECT_EQ(cast<AssignStmt>(While->getBody()->getBody().at(0))->getOp(),
            AssignOp::Dec);
  const auto *Do = cast<DoStmt>(stmt(F, 4));
  EXPECT_EQ(cast<AssignStmt>(Do->getBody()->getBody().at(0))->getOp(),
            AssignOp::MulAssign);
  // k %= 3 becomes k = k % 3.
  const auto *Rem = cast<AssignStmt>(stmt(F, 5));
  EXPECT_EQ(Rem->getOp(), AssignOp::Assign);
  EXPECT_EQ(cast<BinaryExpr>(Rem->getRHS())->getOp(), BinaryOp::Rem);
  // `;` and `(void)k;` are dropped; the nested block stays a block.
  const auto *Inner = cast<BlockStmt>(stmt(F, 6));
  EXPECT_TRUE(isa<AssignStmt>(Inner->getBody().at(0)));
  EXPECT_TRUE(isa<ReturnStmt>(stmt(F, 7)));
}

TEST_F(LowerTest, ArraysAndInitLists) {
  Function *F = lower("double f(double x) {\n"
                      "  double a[3] = {x, 2.0, 3.0};\n"
                      "  double b[4] = {1.0};\n"
                      "  double c{x};\n"
                      "  a[0] = b[1] + c;\n"
                      "  return a[0];\n"
                      "}\n",
                      "f");
  ASSERT_NE(F, nullptr) << allDiagnostics();
  const auto *A = cast<InitListExpr>(cast<DeclStmt>(stmt(F, 0))->getInit());
  EXPECT_EQ(A->getElements().size(), 3u);
  EXPECT_EQ(A->getType(), M.getTypes().getArray(M.getTypes().getDouble(), 3));
  const auto *B = cast<InitListExpr>(cast<DeclStmt>(stmt(F, 1))->getInit());
  EXPECT_EQ(B->getElements().size(), 1u);
  EXPECT_TRUE(isa<VarRefExpr>(cast<DeclStmt>(stmt(F, 2))->getInit()));
  const auto *Assign = cast<AssignStmt>(stmt(F, 3));
  EXPECT_TRUE(isa<IndexExpr>(Assign->getLHS()));
}

//===----------------------------------------------------------------------===//
// Calls
//===----------------------------------------------------------------------===//

TEST_F(LowerTest, MathUserAndIntrinsicCalls) {
  Function *F = lower("#include <cmath>\n"
                      "#include <algorithm>\n"
                      "double sq(double v) { return v * v; }\n"
                      "double opaque(double);\n"
                      "double f(double x) {\n"
                      "  double a = std::sin(x);\n"
                      "  double b = sq(x);\n"
                      "  double c = std::min(a, b);\n"
                      "  double d = opaque(c);\n"
                      "  return sq(a) + sq(b);\n"
                      "}\n",
                      "f");
  ASSERT_NE(F, nullptr) << allDiagnostics();
  const auto *Sin = cast<CallExpr>(cast<DeclStmt>(stmt(F, 0))->getInit());
  EXPECT_EQ(Sin->getCalleeKind(), CallExpr::CalleeKind::Math);
  EXPECT_EQ(Sin->getName(), "std::sin");
  EXPECT_EQ(Sin->getMathId(), RuleTable::get().lookup("sin"));
  EXPECT_GE(Sin->getMathId(), 0);

  const auto *Sq = cast<CallExpr>(cast<DeclStmt>(stmt(F, 1))->getInit());
  ASSERT_EQ(Sq->getCalleeKind(), CallExpr::CalleeKind::User);
  Function *SqF = Sq->getUserCallee();
  EXPECT_EQ(SqF->getName(), "sq");
  ASSERT_NE(SqF->getBody(), nullptr);
  EXPECT_EQ(SqF->getParam(0)->getName(), "v");

  const auto *Min = cast<CallExpr>(cast<DeclStmt>(stmt(F, 2))->getInit());
  // min on floating arguments differentiates like fmin.
  EXPECT_EQ(Min->getCalleeKind(), CallExpr::CalleeKind::Math);
  EXPECT_EQ(Min->getMathId(), RuleTable::get().lookup("fmin"));
  EXPECT_EQ(Min->getName(), "std::min");
  EXPECT_EQ(Min->getNumArgs(), 2u);
  const auto *Opaque = cast<CallExpr>(cast<DeclStmt>(stmt(F, 3))->getInit());
  EXPECT_EQ(Opaque->getCalleeKind(), CallExpr::CalleeKind::Intrinsic);
  EXPECT_EQ(Opaque->getName(), "opaque");

  // Nested user calls are hoisted into temporaries, in order.
  const auto *T0 = cast<DeclStmt>(stmt(F, 4));
  const auto *T1 = cast<DeclStmt>(stmt(F, 5));
  EXPECT_EQ(T0->getVar()->getName(), "_t0");
  EXPECT_EQ(T1->getVar()->getName(), "_t1");
  EXPECT_EQ(cast<CallExpr>(T0->getInit())->getUserCallee(), SqF);
  const auto *Sum = cast<BinaryExpr>(cast<ReturnStmt>(stmt(F, 6))->getValue());
  EXPECT_EQ(cast<VarRefExpr>(Sum->getLHS())->getVar(), T0->getVar());
  EXPECT_EQ(cast<VarRefExpr>(Sum->getRHS())->getVar(), T1->getVar());
}

TEST_F(LowerTest, TemplatesAndRecursion) {
  Function *F = lower("template <class T> T cube(T x) { return x * x * x; }\n"
                      "double fact(double n) {\n"
                      "  if (n <= 1) return 1;\n"
                      "  return n * fact(n - 1);\n"
                      "}\n"
                      "double f(double x) { return cube(x) + fact(x); }\n",
                      "f");
  ASSERT_NE(F, nullptr) << allDiagnostics();
  const auto *Cube = cast<CallExpr>(cast<DeclStmt>(stmt(F, 0))->getInit());
  EXPECT_EQ(Cube->getUserCallee()->getName(), "cube");
  EXPECT_EQ(Cube->getUserCallee()->getTemplateArgs(), "<double>");
  Function *Fact = cast<CallExpr>(cast<DeclStmt>(stmt(F, 1))->getInit())
                       ->getUserCallee();
  // fact calls itself: the recursive call refers to the same Function.
  const auto *Rec = cast<DeclStmt>(Fact->getBody()->getBody().at(1));
  EXPECT_EQ(cast<CallExpr>(Rec->getInit())->getUserCallee(), Fact);
}

TEST_F(LowerTest, TemplateParametersAndIfConstexpr) {
  Function *F = lower("template <int N, class T> T scale(T x) {\n"
                      "  if constexpr (N > 1) return x * N;\n"
                      "  else return x;\n"
                      "}\n"
                      "double f(double x) { return scale<3>(x); }\n",
                      "f");
  ASSERT_NE(F, nullptr) << allDiagnostics();
  const auto *Call = cast<CallExpr>(cast<ReturnStmt>(stmt(F, 0))->getValue());
  Function *Scale = Call->getUserCallee();
  EXPECT_EQ(Scale->getName(), "scale");
  EXPECT_EQ(Scale->getTemplateArgs(), "<3, double>");
  // Only the instantiated branch of `if constexpr` exists.
  const auto *Taken = cast<BlockStmt>(stmt(Scale, 0));
  const auto *Mul = cast<BinaryExpr>(
      cast<ReturnStmt>(Taken->getBody().at(0))->getValue());
  const auto *N = dyn_cast<FloatLitExpr>(Mul->getRHS());
  ASSERT_NE(N, nullptr);
  EXPECT_EQ(N->getValue(), 3.0);
  EXPECT_EQ(N->getSpelling(), ""); // not "N": emitted code is no template
}

TEST_F(LowerTest, DeclarationWithoutBody) {
  Function *F = lower("double g(double x);\n"
                      "double f(double x) { return x; }\n",
                      "f");
  ASSERT_NE(F, nullptr);
  clang::ASTContext &Ctx = AST->getASTContext();
  for (clang::Decl *D : Ctx.getTranslationUnitDecl()->decls())
    if (auto *G = dyn_cast<clang::FunctionDecl>(D); G && G->getName() == "g") {
      Function *GF = Lowering->lower(G);
      ASSERT_NE(GF, nullptr);
      EXPECT_EQ(GF->getBody(), nullptr);
      EXPECT_FALSE(Diags->hasErrors());
    }
}

//===----------------------------------------------------------------------===//
// CUDA
//===----------------------------------------------------------------------===//

TEST_F(LowerTest, CudaKernel) {
  Function *F = lower(
      "__device__ float sq(float v) { return v * v; }\n"
      "__host__ __device__ float id(float v) { return v; }\n"
      "__global__ void f(const float *x, float *y, int n) {\n"
      "  int i = threadIdx.x + blockIdx.y * blockDim.z;\n"
      "  __shared__ float s[32];\n"
      "  s[threadIdx.x % warpSize] = x[i] + gridDim.x;\n"
      "  __syncthreads();\n"
      "  float3 v = make_float3(1.f, 2.f, 3.f);\n"
      "  float3 w = v;\n"
      "  w = v;\n"
      "  if (i < n) atomicAdd(&y[0], sinf(sq(s[0])) + id(w.x));\n"
      "}\n",
      "f", Lang::Cuda);
  ASSERT_NE(F, nullptr) << allDiagnostics();
  TypeContext &T = M.getTypes();
  EXPECT_TRUE(F->isKernel());
  const auto *I = cast<CastExpr>(cast<DeclStmt>(stmt(F, 0))->getInit());
  const auto *Sum = cast<BinaryExpr>(I->getSub());
  const auto *Tid = cast<BuiltinExpr>(Sum->getLHS());
  EXPECT_EQ(Tid->getBuiltin(), BuiltinExpr::Builtin::ThreadIdx);
  EXPECT_EQ(Tid->getDim(), 0u);
  EXPECT_EQ(Tid->getType(), T.getInt("unsigned int"));
  const auto *Prod = cast<BinaryExpr>(Sum->getRHS());
  EXPECT_EQ(cast<BuiltinExpr>(Prod->getLHS())->getBuiltin(),
            BuiltinExpr::Builtin::BlockIdx);
  EXPECT_EQ(cast<BuiltinExpr>(Prod->getLHS())->getDim(), 1u);
  EXPECT_EQ(cast<BuiltinExpr>(Prod->getRHS())->getBuiltin(),
            BuiltinExpr::Builtin::BlockDim);
  EXPECT_EQ(cast<BuiltinExpr>(Prod->getRHS())->getDim(), 2u);

  const auto *Shared = cast<DeclStmt>(stmt(F, 1));
  EXPECT_TRUE(Shared->getVar()->isShared());
  EXPECT_EQ(Shared->getVar()->getType(), T.getArray(T.getFloat(), 32));
  EXPECT_EQ(Shared->getInit(), nullptr);
  const auto *Store = cast<AssignStmt>(stmt(F, 2));
  const auto *Mod = cast<BinaryExpr>(cast<IndexExpr>(Store->getLHS())->getIndex());
  const auto *Warp = cast<BuiltinExpr>(cast<CastExpr>(Mod->getRHS())->getSub());
  EXPECT_EQ(Warp->getBuiltin(), BuiltinExpr::Builtin::WarpSize);

  const auto *Sync = cast<CallExpr>(cast<ExprStmt>(stmt(F, 3))->getExpr());
  EXPECT_EQ(Sync->getName(), "__syncthreads");
  EXPECT_EQ(Sync->getCalleeKind(), CallExpr::CalleeKind::Intrinsic);
  const auto *V = cast<DeclStmt>(stmt(F, 4));
  EXPECT_EQ(V->getVar()->getType(), T.getVector(T.getFloat(), 3));
  EXPECT_EQ(cast<CallExpr>(V->getInit())->getName(), "make_float3");
  EXPECT_TRUE(isa<VarRefExpr>(cast<DeclStmt>(stmt(F, 5))->getInit()));
  const auto *Copy = cast<AssignStmt>(stmt(F, 6));
  EXPECT_EQ(cast<VarRefExpr>(Copy->getRHS())->getVar(), V->getVar());

  const auto *If = cast<IfStmt>(stmt(F, 7));
  const auto &Then = If->getThen()->getBody();
  ASSERT_EQ(Then.size(), 3u); // _t0 = sq(..), _t1 = id(..), atomicAdd
  const auto *Sq = cast<CallExpr>(cast<DeclStmt>(Then[0])->getInit());
  EXPECT_EQ(Sq->getUserCallee()->getTarget(), CudaTarget::Device);
  const auto *Id = cast<CallExpr>(cast<DeclStmt>(Then[1])->getInit());
  EXPECT_EQ(Id->getUserCallee()->getTarget(), CudaTarget::HostDevice);
  const auto *Atomic = cast<CallExpr>(cast<ExprStmt>(Then[2])->getExpr());
  EXPECT_EQ(Atomic->getName(), "atomicAdd");
  const auto *Add = cast<BinaryExpr>(Atomic->getArg(1));
  const auto *Sinf = cast<CallExpr>(Add->getLHS());
  EXPECT_EQ(Sinf->getCalleeKind(), CallExpr::CalleeKind::Math);
  EXPECT_EQ(Sinf->getName(), "sinf");
  const auto *WX = cast<MemberExpr>(cast<CallExpr>(
      cast<DeclStmt>(Then[1])->getInit())->getArg(0));
  EXPECT_EQ(WX->getField(), "x");
  EXPECT_FALSE(WX->isArrow());
  EXPECT_EQ(WX->getType(), T.getFloat());
}

TEST_F(LowerTest, CpuEmulationOfCuda) {
  Function *F = lower(
      "struct uint3 { unsigned x, y, z; };\n"
      "thread_local uint3 threadIdx, blockIdx, blockDim;\n"
      "const int warpSize = 32;\n"
      "#define __global__ __attribute__((annotate(\"meshad.cuda.global\")))\n"
      "#define __device__ __attribute__((annotate(\"meshad.cuda.device\")))\n"
      "#define __shared__ __attribute__((annotate(\"meshad.cuda.shared\")))\n"
      "__device__ double g(double v) { return v; }\n"
      "__global__ void f(double *y) {\n"
      "  __shared__ double s[8];\n"
      "  unsigned i = threadIdx.z + blockIdx.x * blockDim.y;\n"
      "  y[i % warpSize] = g(s[0]);\n"
      "}\n",
      "f");
  ASSERT_NE(F, nullptr) << allDiagnostics();
  EXPECT_EQ(F->getTarget(), CudaTarget::Global);
  EXPECT_TRUE(cast<DeclStmt>(stmt(F, 0))->getVar()->isShared());
  const auto *Sum = cast<BinaryExpr>(cast<DeclStmt>(stmt(F, 1))->getInit());
  const auto *Tid = cast<BuiltinExpr>(Sum->getLHS());
  EXPECT_EQ(Tid->getBuiltin(), BuiltinExpr::Builtin::ThreadIdx);
  EXPECT_EQ(Tid->getDim(), 2u);
  const auto *Prod = cast<BinaryExpr>(Sum->getRHS());
  EXPECT_EQ(cast<BuiltinExpr>(Prod->getRHS())->getBuiltin(),
            BuiltinExpr::Builtin::BlockDim);
  const auto *Store = cast<AssignStmt>(stmt(F, 2));
  EXPECT_EQ(cast<CallExpr>(Store->getRHS())->getUserCallee()->getTarget(),
            CudaTarget::Device);
}

//===----------------------------------------------------------------------===//
// Emitted text
//===----------------------------------------------------------------------===//

TEST_F(LowerTest, EmitsReadableCode) {
  Function *F = lower("double f(double x, int n) {\n"
                      "  double s = 0.5f;\n"
                      "  for (int i = 0; i < n; ++i)\n"
                      "    s += x * i;\n"
                      "  return s;\n"
                      "}\n",
                      "f");
  ASSERT_NE(F, nullptr) << allDiagnostics();
  std::string Text = CudaEmitter::emitDefinition(*F);
  EXPECT_NE(Text.find("double f(double x, int n)"), std::string::npos) << Text;
  EXPECT_NE(Text.find("for (int i = 0; i < n; ++i)"), std::string::npos)
      << Text;
  EXPECT_NE(Text.find("s += x * (double)i;"), std::string::npos) << Text;
  EXPECT_NE(Text.find("return s;"), std::string::npos) << Text;
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

// Issue 13: switch, nested updates, commas, condition variables, loop
// conditions with calls and range-based for become plain statements.
std::string emitted(const Function *F) {
  return F ? CudaEmitter::emitDefinition(*F) : "";
}

// Issue 13: a reference parameter is a pointer written as p[0]; a call
// passes the object's address, spelled as the object for the user's own
// function; a reference local is an alias of what it names.
TEST_F(LowerTest, ReferenceParamIsPointer) {
  Function *F = lower("void up(double &acc, double x) { acc += x * x; }\n"
                      "double f(double x) {\n"
                      "  double a[2] = {x, x};\n"
                      "  up(a[1], x);\n"
                      "  double s = x;\n"
                      "  up(s, x);\n"
                      "  return s + a[1];\n"
                      "}\n",
                      "f");
  ASSERT_NE(F, nullptr) << allDiagnostics();
  std::string Text = emitted(F);
  EXPECT_NE(Text.find("up(a[1], x);"), std::string::npos) << Text;
  EXPECT_NE(Text.find("up(s, x);"), std::string::npos) << Text;
  const auto *Call = cast<ExprStmt>(stmt(F, 1))->getExpr();
  Function *Up = cast<CallExpr>(Call)->getUserCallee();
  EXPECT_TRUE(Up->getParam(0)->isReferenceParam());
  EXPECT_TRUE(Up->getParam(0)->getType()->isPointer());
  // The IR's pointer is spelled as the user's reference.
  std::string UpText = emitted(Up);
  EXPECT_NE(UpText.find("void up(double &acc, double x)"), std::string::npos)
      << UpText;
  EXPECT_NE(UpText.find("acc += x * x;"), std::string::npos) << UpText;
}

TEST_F(LowerTest, ReferenceLocalIsAlias) {
  Function *F = lower("double f(double x) {\n"
                      "  double a[3] = {x, x, x};\n"
                      "  int i = 1;\n"
                      "  double &r = a[i];\n"
                      "  i = 2;\n"
                      "  r *= a[i];\n"
                      "  double &s = x;\n"
                      "  s += r;\n"
                      "  return s;\n"
                      "}\n",
                      "f");
  ASSERT_NE(F, nullptr) << allDiagnostics();
  std::string Text = emitted(F);
  EXPECT_NE(Text.find("const int _i0 = i;"), std::string::npos) << Text;
  EXPECT_NE(Text.find("a[_i0] *= a[i];"), std::string::npos) << Text;
  EXPECT_NE(Text.find("x += a[_i0];"), std::string::npos) << Text;
}

TEST_F(LowerTest, ErrorUnsupportedReferences) {
  expectError("void f(double *p) {\n  double &r = *p;\n  r = 1;\n}\n",
              "reference 'r' must name a variable, an array element", 2);
  expectError("void f(double *p, int n) {\n  double &r = p[0];\n"
              "  p += n;\n  r = 1;\n}\n",
              "names an element of pointer 'p', which the code after it "
              "moves",
              2);
  expectError("struct S { double v[2]; };\n"
              "void f(double (&a)[2]) {\n  a[0] = 1;\n}\n",
              "non-const reference parameters of type 'double[2]' are not "
              "supported; pass a pointer",
              2);
  expectError("void up(double &a) { a += 1; }\n"
              "double g;\n"
              "void f() {\n  up(g);\n}\n",
              "global variable 'g' passed by non-const reference", 4);
}

TEST_F(LowerTest, SwitchBecomesIfChain) {
  Function *F = lower("int f(int x) {\n  switch (x) { case 0: case 1: return 1;"
                      "\n  case 2: x = 3; default: return x; }\n}\n",
                      "f");
  ASSERT_NE(F, nullptr) << allDiagnostics();
  std::string Text = emitted(F);
  EXPECT_NE(Text.find("if (x == 0 || x == 1) {"), std::string::npos) << Text;
  EXPECT_NE(Text.find("} else if (x == 2) {\n    x = 3;\n    return x;"),
            std::string::npos)
      << Text;
  expectError("int f(int x) {\n  switch (x) {\n  case 0:\n"
              "    if (x) break;\n    return 1;\n  }\n  return 0;\n}\n",
              "a 'break' that leaves a 'switch' before the end of its case", 4);
}

TEST_F(LowerTest, ErrorGotoAndLabel) {
  expectError("void f() {\n  goto end;\nend:\n  return;\n}\n",
              "'goto' statement is not supported", 2);
  EXPECT_TRUE(hasError("label is not supported", 3)) << allDiagnostics();
}

TEST_F(LowerTest, ErrorStaticLocal) {
  expectError("double f(double x) {\n  static double c = 0;\n"
              "  return x;\n}\n",
              "static local variables are not supported", 2);
}

TEST_F(LowerTest, StaticConstLocalIsAllowed) {
  ASSERT_NE(lower("double f(double x) {\n  static const double c = 2.0;\n"
                  "  return c * x;\n}\n",
                  "f"),
            nullptr)
      << allDiagnostics();
}

TEST_F(LowerTest, NestedUpdatesBecomeStatements) {
  Function *F = lower("void f(double *a, int i) {\n  double x, y;\n"
                      "  x = y = 0;\n  a[i++] = (x += 1, x * 2);\n}\n",
                      "f");
  std::string Text = emitted(F);
  EXPECT_NE(Text.find("y = 0;\n  x = y;"), std::string::npos)
      << Text << allDiagnostics();
  EXPECT_NE(Text.find("x += 1;\n  int _t0 = i;\n  ++i;\n  a[_t0] = x * 2;"),
            std::string::npos)
      << Text;
  // C++17 reads i on the right before the increment on the left.
  expectError("void f(double *a, int i) {\n  a[i++] = i;\n}\n",
              "'i' is modified inside an expression that also reads", 2);
}

TEST_F(LowerTest, ForWithSeveralDeclarationsAndCommas) {
  Function *F = lower("void f(int n, double *a) {\n"
                      "  for (int i = 0, j = n; i < j; ++i, --j) a[i] = j;\n}\n",
                      "f");
  std::string Text = emitted(F);
  EXPECT_NE(Text.find("int j = n;\n    for (; i < j; --j) {\n"
                      "      a[i] = (double)j;\n      ++i;"),
            std::string::npos)
      << Text << allDiagnostics();
  expectError("void f(int n) {\n  int i, j;\n  for (i = 0; i < n; ++i, ++j)\n"
              "    if (i) continue;\n}\n",
              "'continue' in a for loop whose increment", 4);
}

TEST_F(LowerTest, ConditionVariableAndInitializer) {
  Function *F = lower("int g();\nvoid f(double *a) {\n"
                      "  if (int k = g()) a[0] = k;\n"
                      "  if (double t = a[1]; t > 0) a[1] = t * t;\n}\n",
                      "f");
  std::string Text = emitted(F);
  EXPECT_NE(Text.find("{\n    int k = g();\n    if ((bool)k) {"),
            std::string::npos)
      << Text << allDiagnostics();
  EXPECT_NE(Text.find("{\n    double t = a[1];\n    if (t > 0) {"),
            std::string::npos)
      << Text;
}

TEST_F(LowerTest, ErrorLambdaAndNew) {
  // A lambda can be called (test/cxx/functors.cpp), not copied or passed.
  expectError("void f() {\n  auto l = [](int v) { return v; };\n"
              "  auto m = l;\n}\n",
              "the lambda 'l' can only be called here", 3);
  // `double *p = new double(v);` is a local array (cxx/heap-scalars.cpp);
  // a `new` elsewhere is not.
  expectError("void f() {\n  double *p;\n  p = new double;\n}\n",
              "'new' expression is not supported", 3);
}

TEST_F(LowerTest, ErrorMemberCallsAndOperators) {
  expectError("struct S { double get() const; };\n"
              "double f(S s) {\n  return s.get();\n}\n",
              "the definition of 'get' is not visible here; meshad lowers "
              "member functions and functions taking or returning structs "
              "into their callers",
              3);
  expectError("struct V { double a; };\n"
              "V operator+(V l, V r);\n"
              "void f(V a, V b) {\n  V c = a + b;\n}\n",
              "overloaded operator '+' on 'V' is not supported; define it "
              "as a free function",
              4);
}

TEST_F(LowerTest, ErrorFunctionPointer) {
  expectError("double f(double (*g)(double), double x) {\n  return g(x);\n}\n",
              "calls through function pointers are not supported", 2);
}

TEST_F(LowerTest, ErrorRangeForTryAsm) {
  Function *F = lower("double f() {\n  double a[2] = {1, 2}, s = 0;\n"
                      "  for (double v : a) s += v;\n  return s;\n}\n",
                      "f");
  EXPECT_NE(emitted(F).find("for (int _i0 = 0; _i0 < 2; ++_i0) {\n"
                            "    double v = a[_i0];\n    s += v;"),
            std::string::npos)
      << emitted(F) << allDiagnostics();
  expectError("struct P { double a[2]; };\ndouble f(P p) {\n  double s = 0;\n"
              "  for (double v : p.a) s += v;\n  return s;\n}\n",
              "range-based for loop is supported over an array of known size",
              4);
  expectError("void f() {\n  try { } catch (...) { }\n}\n",
              "'try' block is not supported", 2);
  expectError("void f() {\n  asm(\"nop\");\n}\n",
              "inline assembly is not supported", 2);
}

TEST_F(LowerTest, PrintfLeftOutOrError) {
  Function *F = lower("#include <cstdio>\nvoid f(int i, double *a) {\n"
                      "  printf(\"%d\", i);\n  a[0] = i;\n}\n",
                      "f");
  EXPECT_EQ(emitted(F).find("printf"), std::string::npos)
      << emitted(F) << allDiagnostics();
  expectError("#include <cstdio>\nvoid f(int i) {\n"
              "  int n = printf(\"%d\", i);\n}\n",
              "'printf' can be left out of a derivative only as a statement",
              3);
}

TEST_F(LowerTest, ErrorInCalleeFailsCaller) {
  expectError("double g(double x) {\n  static double c = 0;\n  return x;\n}\n"
              "double f(double x) {\n  return g(x);\n}\n",
              "static local variables are not supported", 2);
}

TEST_F(LowerTest, CallInLoopConditionIsTestedInTheBody) {
  Function *F = lower("double g(double x) { return x; }\n"
                      "void f(double x) {\n  while (g(x) < 1) x = x * 2;\n}\n",
                      "f");
  EXPECT_NE(emitted(F).find("while (true) {\n    double _t0 = g(x);\n"
                            "    if (!(_t0 < 1)) {\n      break;\n    }\n"
                            "    x = x * 2;"),
            std::string::npos)
      << emitted(F) << allDiagnostics();
}

TEST_F(LowerTest, DynamicSharedMemoryIsSharedPointer) {
  Function *F = lower("__global__ void f(float *y) {\n"
                      "  extern __shared__ float s[];\n  y[0] = s[0];\n}\n",
                      "f", Lang::Cuda);
  ASSERT_NE(F, nullptr) << allDiagnostics();
  const Var *S = cast<DeclStmt>(stmt(F, 0))->getVar();
  EXPECT_TRUE(S->isShared());
  EXPECT_TRUE(S->getType()->isPointer());
  EXPECT_NE(emitted(F).find("MESHAD_DYNAMIC_SHARED(float, s);"),
            std::string::npos)
      << emitted(F);
}

} // namespace
