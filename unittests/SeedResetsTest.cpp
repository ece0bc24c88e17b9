//===- unittests/SeedResetsTest.cpp - The keep-seeds pass -----------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// keep-seeds on kernels from CUDA snippets whose stores into a parameter
/// are turned into marked seed resets (`y[i] = 0`, the parameter standing
/// in for its adjoint): a kept seed's resets go, an output whose seed
/// cannot be kept keeps them and gets an error at its first store.
///
//===----------------------------------------------------------------------===//

#include "AD/Analysis/Activity.h"
#include "GPU/SeedResets.h"
#include "IR/Builder.h"
#include "IR/Traversal.h"
#include "OwnershipFixture.h"

namespace {

class SeedResetsTest : public OwnershipTest {
protected:
  /// Analyses kernel k of \p Code and marks its stores into \p Output as
  /// seed resets; \p Stores: the most stores to it on one path.
  bool prepare(llvm::StringRef Code, llvm::StringRef Output, unsigned Stores) {
    if (!analyse(Code))
      return false;
    IRBuilder B(M);
    const Var *Out = nullptr;
    for (const Var *P : Kernel->getParams())
      if (P->getName() == Output)
        Out = P;
    if (!Out)
      return false;
    std::vector<const BlockStmt *> Blocks;
    forEachStmt(Kernel->getBody(), [&](const Stmt *S) {
      if (const auto *Block = llvm::dyn_cast<BlockStmt>(S))
        Blocks.push_back(Block);
    });
    for (const BlockStmt *Block : Blocks) {
      std::vector<const Stmt *> Body;
      for (const Stmt *Sub : Block->getBody()) {
        const auto *A = llvm::dyn_cast<AssignStmt>(Sub);
        if (A && !llvm::isa<VarRefExpr>(A->getLHS()) &&
            ActivityAnalysis::getRootVar(A->getLHS()) == Out) {
          AssignStmt *Reset = B.assign(A->getLHS(), AssignOp::Assign,
                                       B.zero(A->getLHS()->getType()));
          Reset->setSeedReset();
          Reset->setLoc(A->getLoc());
          Sub = Reset;
        }
        Body.push_back(Sub);
      }
      const_cast<BlockStmt *>(Block)->setBody(std::move(Body));
    }
    Facts.Primal = Kernel;
    Facts.WriteOnly.insert(Out);
    Facts.PathStores[Out] = Stores;
    Facts.ParamOfAdjoint[Out] = Out;
    return true;
  }

  unsigned resets() const {
    unsigned N = 0;
    forEachStmt(Kernel->getBody(), [&](const Stmt *S) {
      if (const auto *A = llvm::dyn_cast<AssignStmt>(S))
        N += A->isSeedReset();
    });
    return N;
  }

  std::string errors() const {
    std::string All;
    for (const Diagnostic &D : Diags->getDiagnostics())
      All += D.Message + "\n";
    return All;
  }

  KeepSeedsFacts Facts;
};

TEST_F(SeedResetsTest, KeptSeedsLoseTheirResets) {
  ASSERT_TRUE(prepare("__global__ void k(int n, const double *x, double *y) {\n"
                      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                      "  if (i < n)\n"
                      "    y[i] = x[i] * x[i];\n"
                      "}\n",
                      "y", 1));
  ASSERT_EQ(resets(), 1u);
  EXPECT_TRUE(keepSeeds(*Kernel, Facts, *Diags)) << errors();
  EXPECT_EQ(resets(), 0u);
  EXPECT_EQ(errors(), "");
}

TEST_F(SeedResetsTest, ScatterKeepsItsResetsAndIsAnError) {
  ASSERT_TRUE(prepare("__global__ void k(int n, const int *to, "
                      "const double *x, double *y) {\n"
                      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                      "  if (i < n)\n"
                      "    y[to[i]] = x[i];\n"
                      "}\n",
                      "y", 1));
  EXPECT_FALSE(keepSeeds(*Kernel, Facts, *Diags));
  EXPECT_EQ(resets(), 1u);
  EXPECT_NE(errors().find("meshad::KeepSeeds: the seed of 'y' cannot be "
                          "kept: no proof that two threads never store to "
                          "the same element"),
            std::string::npos)
      << errors();
}

TEST_F(SeedResetsTest, StoresInALoopOrTwiceAreOneError) {
  ASSERT_TRUE(prepare("__global__ void k(int n, const double *x, double *y) {\n"
                      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                      "  for (int k = 0; k < 3; ++k)\n"
                      "    y[3 * i + k] = x[i];\n"
                      "  y[i] = x[i];\n"
                      "}\n",
                      "y", 2));
  EXPECT_FALSE(keepSeeds(*Kernel, Facts, *Diags));
  EXPECT_EQ(resets(), 2u);
  // Once per output, at its first store: the one in the loop.
  EXPECT_EQ(errors(), "meshad::KeepSeeds: the seed of 'y' cannot be kept: it "
                      "is stored in a loop; use the default "
                      "(meshad::ResetSeeds)\n");
}

} // namespace
