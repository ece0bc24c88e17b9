//===- unittests/LowerAccumulationsTest.cpp - Accumulation lowering -------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The lowering of Accumulates into a kernel's scalar results: summed per
/// thread and reduced per block when every thread reaches the end of the
/// kernel, atomics with a remark otherwise. The kernels come from CUDA
/// snippets whose `+=` into pointer parameters become Accumulates.
///
//===----------------------------------------------------------------------===//

#include "GPU/LowerAccumulations.h"
#include "IR/Traversal.h"
#include "OwnershipFixture.h"

namespace {

class LowerAccumulationsTest : public OwnershipTest {
protected:
  /// Lowers kernel k of \p Code with its `+=` into parameters as
  /// Accumulates; false on errors.
  bool lower(llvm::StringRef Code) {
    if (!analyse(Code))
      return false;
    Diags->setRemarksEnabled(true);
    Blocks.push_back(Kernel->getBody());
    forEachStmt(Kernel->getBody(), [&](const Stmt *S) {
      if (const auto *B = llvm::dyn_cast<BlockStmt>(S);
          B && B != Kernel->getBody())
        Blocks.push_back(const_cast<BlockStmt *>(B));
    });
    for (BlockStmt *B : Blocks) {
      std::vector<const Stmt *> Body;
      for (const Stmt *S : B->getBody())
        Body.push_back(toAccumulate(S));
      B->setBody(std::move(Body));
    }
    lowerAccumulations(M, *Kernel, *Diags, /*ForceAtomics=*/false, {});
    return !hasAccumulations(*Kernel);
  }

  const Stmt *toAccumulate(const Stmt *S) {
    const auto *A = llvm::dyn_cast<AssignStmt>(S);
    if (!A || A->getOp() != AssignOp::AddAssign ||
        llvm::isa<VarRefExpr>(A->getLHS()))
      return S;
    auto *Acc =
        M.create<AssignStmt>(A->getLHS(), AssignOp::Accumulate, A->getRHS());
    Acc->setLoc(A->getLoc());
    return Acc;
  }

  /// The name of the call of the top-level statement \p S, or "".
  static std::string callName(const Stmt *S) {
    const auto *E = llvm::dyn_cast<ExprStmt>(S);
    const auto *C = E ? llvm::dyn_cast<CallExpr>(E->getExpr()) : nullptr;
    return C ? C->getName() : "";
  }

  /// The remarks, one per line.
  std::string remarks() const {
    std::string All;
    for (const Diagnostic &D : Diags->getDiagnostics())
      All += D.Message + "\n";
    return All;
  }

  std::vector<BlockStmt *> Blocks;
};

TEST_F(LowerAccumulationsTest, ScalarResultReducedPerBlock) {
  ASSERT_TRUE(lower("__global__ void k(const double *x, double *dk, "
                    "double *dm, int n) {\n"
                    "  for (int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                    "       i < n; i += blockDim.x * gridDim.x) {\n"
                    "    *dk += x[i];\n"
                    "    dm[0] += 2 * x[i];\n"
                    "  }\n"
                    "}\n"));
  const std::vector<const Stmt *> &Body = Kernel->getBody()->getBody();
  ASSERT_GE(Body.size(), 4u);
  EXPECT_EQ(callName(Body[Body.size() - 2]), "meshad::blockReduceAtomicAdd");
  EXPECT_EQ(callName(Body.back()), "meshad::blockReduceAtomicAdd");
  EXPECT_TRUE(llvm::isa<DeclStmt>(Body[0]));
  EXPECT_NE(remarks().find("adjoint store to 'dk': plain += (uniform: every "
                           "thread adds to it; summed in a register"),
            std::string::npos)
      << remarks();
  EXPECT_NE(remarks().find("adjoint store to 'dm': plain += (uniform"),
            std::string::npos)
      << remarks();
}

TEST_F(LowerAccumulationsTest, ReturnKeepsAtomics) {
  ASSERT_TRUE(lower("__global__ void k(const double *x, double *dk, int n) {\n"
                    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                    "  if (i >= n)\n"
                    "    return;\n"
                    "  *dk += x[i];\n"
                    "}\n"));
  for (const Stmt *S : Kernel->getBody()->getBody())
    EXPECT_NE(callName(S), "meshad::blockReduceAtomicAdd");
  EXPECT_NE(remarks().find("not summed per block: the function has a return "
                           "statement"),
            std::string::npos)
      << remarks();
}

TEST_F(LowerAccumulationsTest, ReadResultIsNotAScalarResult) {
  ASSERT_TRUE(lower("__global__ void k(const double *x, double *dk, int n) {\n"
                    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                    "  *dk += x[i % n] * *dk;\n"
                    "}\n"));
  for (const Stmt *S : Kernel->getBody()->getBody())
    EXPECT_NE(callName(S), "meshad::blockReduceAtomicAdd");
}

} // namespace
