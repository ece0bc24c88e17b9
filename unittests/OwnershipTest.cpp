//===- unittests/OwnershipTest.cpp - Tests of the ownership analysis ------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "Analysis/Ownership.h"
#include "Lower/ASTLowering.h"
#include "Support/Diagnostics.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Tooling/Tooling.h"

#include "gtest/gtest.h"

using namespace meshad;
using namespace meshad::ir;

namespace {

const char *ResourceDir = "-resource-dir=/usr/lib/llvm-22/lib/clang/22";

/// Finds the first function definition with a given name.
class FunctionFinder : public clang::RecursiveASTVisitor<FunctionFinder> {
public:
  explicit FunctionFinder(llvm::StringRef Name) : Name(Name) {}
  bool VisitFunctionDecl(clang::FunctionDecl *FD) {
    if (!Found && FD->getName() == Name && FD->doesThisDeclarationHaveABody())
      Found = FD;
    return true;
  }
  llvm::StringRef Name;
  clang::FunctionDecl *Found = nullptr;
};

/// Parses a CUDA snippet, lowers its kernel `k` and analyses it.
class OwnershipTest : public ::testing::Test {
protected:
  /// Lowers kernel `k` of \p Code; false (with a test failure) on errors.
  bool analyse(llvm::StringRef Code) {
    std::vector<std::string> Args = {
        "-xcuda",     "--cuda-host-only",          "--cuda-path=/usr/local/cuda",
        "-nocudalib", "-Wno-unknown-cuda-version", ResourceDir};
    AST = clang::tooling::buildASTFromCodeWithArgs(Code, Args, "input.cu");
    if (!AST || AST->getDiagnostics().hasErrorOccurred()) {
      ADD_FAILURE() << "snippet does not compile:\n" << Code.str();
      return false;
    }
    clang::ASTContext &Ctx = AST->getASTContext();
    Diags = std::make_unique<DiagnosticSink>(&Ctx.getSourceManager());
    Lowering = std::make_unique<ASTLowering>(Ctx, M, *Diags);
    FunctionFinder Finder("k");
    Finder.TraverseDecl(Ctx.getTranslationUnitDecl());
    if (!Finder.Found) {
      ADD_FAILURE() << "no kernel k";
      return false;
    }
    Kernel = Lowering->lower(Finder.Found);
    if (!Kernel) {
      ADD_FAILURE() << "kernel k does not lower";
      return false;
    }
    Analysis = std::make_unique<OwnershipAnalysis>(*Kernel);
    return true;
  }

  /// The result for parameter \p Name of the analysed kernel.
  OwnershipResult of(llvm::StringRef Name) const {
    for (const Var *P : Kernel->getParams())
      if (P->getName() == Name)
        return Analysis->classify(P);
    ADD_FAILURE() << "no parameter " << Name.str();
    return {};
  }

  /// Expects \p Name to have class \p C with every word of \p Words in the
  /// reason.
  void expect(llvm::StringRef Name, OwnershipClass C,
              std::initializer_list<const char *> Words) const {
    OwnershipResult R = of(Name);
    EXPECT_EQ(getOwnershipName(R.Class), std::string(getOwnershipName(C)))
        << Name.str() << ": " << R.Reason;
    for (const char *W : Words)
      EXPECT_NE(R.Reason.find(W), std::string::npos)
          << Name.str() << ": '" << R.Reason << "' lacks '" << W << "'";
    EXPECT_EQ(R.LaunchDims != 0, C == OwnershipClass::ThreadExclusive)
        << Name.str();
  }
  void expectExclusive(llvm::StringRef Name,
                       std::initializer_list<const char *> Words = {}) const {
    expect(Name, OwnershipClass::ThreadExclusive, Words);
  }
  void expectShared(llvm::StringRef Name,
                    std::initializer_list<const char *> Words) const {
    expect(Name, OwnershipClass::Shared, Words);
  }

  Module M;
  std::unique_ptr<clang::ASTUnit> AST;
  std::unique_ptr<DiagnosticSink> Diags;
  std::unique_ptr<ASTLowering> Lowering;
  Function *Kernel = nullptr;
  std::unique_ptr<OwnershipAnalysis> Analysis;
};

TEST_F(OwnershipTest, Names) {
  EXPECT_STREQ(getOwnershipName(OwnershipClass::ThreadExclusive),
               "thread-exclusive");
  EXPECT_STREQ(getOwnershipName(OwnershipClass::Uniform), "uniform");
  EXPECT_STREQ(getOwnershipName(OwnershipClass::Shared), "shared");
}

//===----------------------------------------------------------------------===//
// Thread-exclusive
//===----------------------------------------------------------------------===//

TEST_F(OwnershipTest, Elementwise) {
  ASSERT_TRUE(analyse(
      "__global__ void k(const float *x, float *y, int n) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (i < n) y[i] = 2.f * x[i] * x[i];\n"
      "}\n"));
  expectExclusive("x", {"every access is gid + {0}"});
  expectExclusive("y", {"gid + {0}"});
  expectShared("n", {"not an array parameter"});
}

TEST_F(OwnershipTest, GidInAnyOrderAndThroughCasts) {
  ASSERT_TRUE(analyse(
      "__global__ void k(float *x, float *y, float *z) {\n"
      "  int i = threadIdx.x + blockDim.x * blockIdx.x;\n"
      "  size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  x[i] += 1.f;\n"
      "  y[j] *= 2.f;\n"
      "  z[blockIdx.x * blockDim.x + threadIdx.x] = 0.f;\n"
      "}\n"));
  expectExclusive("x", {"gid"});
  expectExclusive("y", {"gid"});
  expectExclusive("z", {"gid"});
}

TEST_F(OwnershipTest, InterleavedPairs) {
  ASSERT_TRUE(analyse(
      "__global__ void k(const float *x, float2 *v, float *y) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  y[2 * i] = x[i];\n"
      "  y[2 * i + 1] = v[i].x + v[i].y;\n"
      "}\n"));
  expectExclusive("y", {"every access is 2*gid + {0, 1}"});
  expectExclusive("v", {"gid + {0}"});
}

TEST_F(OwnershipTest, ShiftedButDisjoint) {
  ASSERT_TRUE(analyse(
      "__global__ void k(float *y) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  y[3 * i + 5] = 1.f;\n"
      "  y[3 * (i + 2) + 1] = 1.f;\n" // 3*gid + 7
      "}\n"));
  expectExclusive("y", {"3*gid + {5, 7}"});
}

TEST_F(OwnershipTest, Guards) {
  ASSERT_TRUE(analyse(
      "__global__ void k(const float *x, float *y, int n) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (i >= n) return;\n"
      "  y[i] = x[i];\n"
      "  if (i < n - 1) { y[i] += x[i]; }\n"
      "}\n"));
  expectExclusive("x");
  expectExclusive("y");
}

TEST_F(OwnershipTest, LocalCopiesOfTheIndex) {
  ASSERT_TRUE(analyse(
      "__global__ void k(const float *x, float *y) {\n"
      "  int tid = threadIdx.x;\n"
      "  int base = blockIdx.x * blockDim.x;\n"
      "  int i = base + tid;\n"
      "  int j = i;\n"
      "  const int two = 2;\n"
      "  y[two * j] = x[j];\n"
      "}\n"));
  expectExclusive("x", {"gid + {0}"});
  expectExclusive("y", {"2*gid"});
}

TEST_F(OwnershipTest, GridStrideLoop) {
  ASSERT_TRUE(analyse(
      "__global__ void k(const float *x, float *y, int n) {\n"
      "  for (int t = blockIdx.x * blockDim.x + threadIdx.x; t < n;\n"
      "       t += blockDim.x * gridDim.x)\n"
      "    y[t] = x[t];\n"
      "}\n"));
  expectExclusive("x", {"grid-stride", "t + {0}"});
  expectExclusive("y", {"grid-stride"});
}

TEST_F(OwnershipTest, GridStrideThroughVariables) {
  ASSERT_TRUE(analyse(
      "__global__ void k(float *y, int n) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  int stride = gridDim.x * blockDim.x;\n"
      "  for (int t = i; t < n; t += stride) {\n"
      "    int u = 2 * t;\n"
      "    y[u] = 0.f;\n"
      "    y[u + 1] = 1.f;\n"
      "  }\n"
      "  for (int s = i; s < n; s += stride)\n"
      "    y[2 * s] += 1.f;\n"
      "}\n"));
  expectExclusive("y", {"2*t + {0, 1}", "grid-stride"});
}

//===----------------------------------------------------------------------===//
// Uniform
//===----------------------------------------------------------------------===//

TEST_F(OwnershipTest, EnergySum) {
  ASSERT_TRUE(analyse(
      "__global__ void k(const float *x, float *E, float *F, int n) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (i >= n) return;\n"
      "  float e = x[i] * x[i];\n"
      "  atomicAdd(&E[0], e);\n"
      "  atomicAdd(F, e);\n"
      "}\n"));
  expect("E", OwnershipClass::Uniform, {"every thread accesses E[0]"});
  expect("F", OwnershipClass::Uniform, {"every thread accesses F[0]"});
  expectExclusive("x");
}

TEST_F(OwnershipTest, UniformReadsAndWrites) {
  ASSERT_TRUE(analyse(
      "__global__ void k(const float *w, float *y) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  y[i] = w[3] * w[1 + 2];\n"
      "}\n"));
  expect("w", OwnershipClass::Uniform, {"w[3]"});
}

TEST_F(OwnershipTest, TwoUniformElementsAreShared) {
  ASSERT_TRUE(analyse(
      "__global__ void k(float *E, int n) {\n"
      "  atomicAdd(&E[0], 1.f);\n"
      "  atomicAdd(&E[1], 1.f);\n"
      "}\n"));
  expectShared("E", {"E[0]", "E[1]"});
}

TEST_F(OwnershipTest, SymbolicUniformIndexIsShared) {
  ASSERT_TRUE(analyse("__global__ void k(float *E, int n) {\n"
                      "  atomicAdd(&E[n], 1.f);\n"
                      "}\n"));
  expectShared("E", {"E[n]", "not a literal"});
}

//===----------------------------------------------------------------------===//
// Shared
//===----------------------------------------------------------------------===//

TEST_F(OwnershipTest, StencilRace) {
  ASSERT_TRUE(analyse(
      "__global__ void k(const float *in, float *out, int n) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (i < n - 1) out[i] = in[i] + in[i + 1];\n"
      "}\n"));
  expectShared("in", {"in[i] and in[i + 1] overlap between neighbouring"});
  expectExclusive("out");
}

TEST_F(OwnershipTest, DifferentStrides) {
  ASSERT_TRUE(analyse(
      "__global__ void k(float *y) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  y[2 * i] = 1.f;\n"
      "  y[i] = 2.f;\n"
      "}\n"));
  expectShared("y", {"y[2 * i]", "y[i]", "strides 2 and 1"});
}

TEST_F(OwnershipTest, NotAffine) {
  ASSERT_TRUE(analyse(
      "__global__ void k(const float *x, float *y, float *z, int n) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  y[i] = x[i / 2];\n"
      "  z[i * n] = z[i % 4];\n"
      "}\n"));
  expectShared("x", {"index i / 2 is not affine"});
  expectShared("z", {"not affine"});
  expectExclusive("y");
}

TEST_F(OwnershipTest, ThreadIdxAlone) {
  ASSERT_TRUE(analyse("__global__ void k(float *y, float *b) {\n"
                      "  y[threadIdx.x] = 1.f;\n"
                      "  b[blockIdx.x] = 1.f;\n"
                      "}\n"));
  expectShared("y", {"threadIdx.x alone repeats in every block"});
  expectShared("b", {"blockIdx.x"});
}

TEST_F(OwnershipTest, MismatchedBlockBase) {
  ASSERT_TRUE(analyse(
      "__global__ void k(float *y) {\n"
      "  y[2 * blockIdx.x * blockDim.x + threadIdx.x] = 1.f;\n"
      "}\n"));
  expectShared("y", {"threadIdx.x alone"});
}

TEST_F(OwnershipTest, ScaledGid) {
  ASSERT_TRUE(analyse(
      "__global__ void k(float *y) {\n"
      "  y[2 * blockIdx.x * blockDim.x + 2 * threadIdx.x + 1] = 1.f;\n"
      "  y[2 * (blockDim.x * blockIdx.x + threadIdx.x)] = 1.f;\n"
      "}\n"));
  expectExclusive("y", {"2*gid + {0, 1}"});
}

TEST_F(OwnershipTest, TwoDimensionalIndex) {
  ASSERT_TRUE(analyse(
      "__global__ void k(float *img, float *t, int w) {\n"
      "  int c = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  int r = blockIdx.y * blockDim.y + threadIdx.y;\n"
      "  img[r * w + c] = 1.f;\n"
      "  t[4 * r + c] = 1.f;\n"
      "}\n"));
  expectShared("img", {"2D index"});
  expectShared("t", {"2D index"});
}

TEST_F(OwnershipTest, Gather) {
  ASSERT_TRUE(analyse(
      "__global__ void k(const int *idx, const float *x, float *y) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  y[idx[i]] += x[i];\n"
      "}\n"));
  expectShared("y", {"gather through an index array idx"});
  expectExclusive("idx");
  expectExclusive("x");
}

TEST_F(OwnershipTest, MeshGather) {
  ASSERT_TRUE(analyse(
      "__global__ void k(const int *faces, float *g, int nf) {\n"
      "  int f = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (f >= nf) return;\n"
      "  for (int c = 0; c < 3; ++c) {\n"
      "    int v = faces[3 * f + c];\n"
      "    atomicAdd(&g[v], 1.f);\n"
      "  }\n"
      "}\n"));
  expectShared("g", {"gather"});
  // 3*f + c with a loop counter c: not a literal offset (not proven yet).
  expectShared("faces", {"c is not a literal offset"});
}

TEST_F(OwnershipTest, EscapesToDeviceCallee) {
  ASSERT_TRUE(analyse(
      "__device__ void put(float *p, int i, float v) { p[i] = v; }\n"
      "__global__ void k(const float *x, float *y) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  put(y, i, x[i]);\n"
      "}\n"));
  expectShared("y", {"passed to put"});
  expectExclusive("x");
}

TEST_F(OwnershipTest, PointerCopiesAndArithmetic) {
  ASSERT_TRUE(analyse(
      "__global__ void k(float *a, float *b, float *c) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  float *p = a;\n"
      "  p[i] = 1.f;\n"
      "  *(b + i) = 1.f;\n"
      "  c[i] = 1.f;\n"
      "  *c = 2.f;\n"
      "}\n"));
  expectShared("a", {"copied into p"});
  expectShared("b", {"b + i"});
  expectShared("c", {"dereferences"});
}

TEST_F(OwnershipTest, ScalarOffset) {
  ASSERT_TRUE(analyse(
      "__global__ void k(float *y, int off) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  y[i + off] = 1.f;\n"
      "}\n"));
  expectShared("y", {"off is not a literal offset"});
}

TEST_F(OwnershipTest, UniformAndThreadAccessesOverlap) {
  ASSERT_TRUE(analyse(
      "__global__ void k(float *y) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  y[i] = y[0];\n"
      "}\n"));
  expectShared("y", {"y[0]", "y[i]", "overlap"});
}

TEST_F(OwnershipTest, ReassignedIndex) {
  ASSERT_TRUE(analyse(
      "__global__ void k(float *y, float *z, int n) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  int j = i;\n"
      "  j = j + 1;\n"
      "  y[j] = 1.f;\n"
      "  int s = 0;\n"
      "  for (int t = 0; t < n; ++t) {\n"
      "    int u = i + s;\n"
      "    s = s + 1;\n"
      "    z[u - s] = 1.f;\n"
      "  }\n"
      "}\n"));
  expectShared("y", {"j is assigned more than once"});
  expectShared("z", {"u depends on a variable assigned more than once"});
}

TEST_F(OwnershipTest, CounterStartingAtTheThreadId) {
  ASSERT_TRUE(analyse(
      "__global__ void k(float *y, int n) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  for (int t = i; t < n; ++t)\n"
      "    y[t] = 1.f;\n"
      "}\n"));
  expectShared("y", {"not a grid-stride counter"});
}

TEST_F(OwnershipTest, GridStrideMixedWithGid) {
  ASSERT_TRUE(analyse(
      "__global__ void k(float *y, float *z, int n) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  y[i] = 0.f;\n"
      "  for (int t = i; t < n; t += blockDim.x * gridDim.x) {\n"
      "    y[t] += 1.f;\n"
      "    z[t + 1] = z[t];\n"
      "  }\n"
      "}\n"));
  expectShared("y", {"grid-stride"});
  expectShared("z", {"z[t] and z[t + 1] overlap"});
}

TEST_F(OwnershipTest, SoundnessCorners) {
  ASSERT_TRUE(analyse(
      "__global__ void k(float *a, float *b, float *c, float *d, float *e,\n"
      "                  float *f, int n) {\n"
      "  int i;\n"
      "  i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  a[i] = 1.f;\n"
      "  b = b + n;\n"
      "  b[threadIdx.x + blockIdx.x * blockDim.x] = 1.f;\n"
      "  int j = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  c[-j] = c[1 - j];\n"
      "  int *q = &j;\n"
      "  *q = 0;\n"
      "  d[j] = 1.f;\n"
      "  if (threadIdx.x == 0) atomicAdd(&e[2], 1.f);\n"
      "  e[2] *= 2.f;\n"
      "  int m = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  f[(m - m) * n] = 0.f;\n"
      "  f[m - blockIdx.x * blockDim.x - threadIdx.x] = 0.f;\n"
      "}\n"));
  expectShared("a", {"i is assigned more than once"});
  expectShared("b", {"reassigned"});
  expectShared("c", {"the address of j is taken"});
  expectShared("d", {"the address of j is taken"});
  expect("e", OwnershipClass::Uniform, {"e[2]"});
  expect("f", OwnershipClass::Uniform, {"f[0]"});
}

TEST_F(OwnershipTest, NegativeStride) {
  ASSERT_TRUE(analyse(
      "__global__ void k(float *c, int n) {\n"
      "  int j = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  c[-2 * j + 1] = c[1 - 2 * j] + c[-2 * j];\n"
      "}\n"));
  expectExclusive("c", {"-2*gid + {0, 1}"});
}

TEST_F(OwnershipTest, NeverIndexed) {
  ASSERT_TRUE(analyse("__global__ void k(float *y) {}\n"));
  expectShared("y", {"never indexed"});
}

} // namespace
