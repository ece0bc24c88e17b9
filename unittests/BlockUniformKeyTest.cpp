//===- unittests/BlockUniformKeyTest.cpp - One key for uniform adds --------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// findUniformKey (GPU/BlockUniformKey) on the loop of kernels lowered from
/// CUDA snippets, its adds standing for the gradient's uniform adds (the
/// stores `a[index] += v` of the loop's body): the key and each add's Scale
/// and Offset, where its register is set, and why there is no key.
///
//===----------------------------------------------------------------------===//

#include "GPU/BlockUniformKey.h"
#include "IR/Traversal.h"
#include "OwnershipFixture.h"

namespace {

class BlockUniformKeyTest : public OwnershipTest {
protected:
  /// The key of the adds in the first loop of kernel k of \p Code.
  std::optional<UniformKey> keyOf(llvm::StringRef Code,
                                  bool AddressTaken = false) {
    Why.clear();
    if (!analyse(Code))
      return std::nullopt;
    const ForStmt *Loop = nullptr;
    forEachStmt(Kernel->getBody(), [&](const Stmt *S) {
      if (!Loop)
        Loop = llvm::dyn_cast<ForStmt>(S);
    });
    if (!Loop) {
      ADD_FAILURE() << "no loop";
      return std::nullopt;
    }
    std::vector<const AssignStmt *> Adds;
    forEachStmt(Loop->getBody(), [&](const Stmt *S) {
      const auto *A = llvm::dyn_cast<AssignStmt>(S);
      if (A && llvm::isa<IndexExpr>(A->getLHS()))
        Adds.push_back(A);
    });
    return findUniformKey(
        Loop->getBody(), Adds, [&](const Var *) { return AddressTaken; },
        Why);
  }

  /// Expects no key for \p Code, for \p Reason.
  void expectNoKey(const char *Code, const char *Reason) {
    EXPECT_FALSE(keyOf(Code)) << Code;
    EXPECT_NE(Why.find(Reason), std::string::npos)
        << Code << "\nwhy: '" << Why << "' lacks '" << Reason << "'";
  }

  std::string Why;
};

const char *Affine = R"(
__global__ void k(int n, const int *order, const float *x, float *p,
                  float *q, float *r) {
  for (int i = 0; i < n; ++i) {
    int j = order[i];
    p[2 * j + 1] += x[i];
    q[j] += x[i];
    r[3 * j - 2] += x[i];
    r[-j + 4 * 2] += x[i];
  }
})";

TEST_F(BlockUniformKeyTest, AffineInOneVariable) {
  std::optional<UniformKey> K = keyOf(Affine);
  ASSERT_TRUE(K) << Why;
  EXPECT_EQ(K->Key->getName(), "j");
  ASSERT_NE(K->After, nullptr);
  ASSERT_EQ(K->Forms.size(), 4u);
  EXPECT_EQ(K->Forms[0].Scale, 2);
  EXPECT_EQ(K->Forms[0].Offset, 1);
  EXPECT_EQ(K->Forms[1].Scale, 1);
  EXPECT_EQ(K->Forms[1].Offset, 0);
  EXPECT_EQ(K->Forms[2].Scale, 3);
  EXPECT_EQ(K->Forms[2].Offset, -2);
  EXPECT_EQ(K->Forms[3].Scale, -1);
  EXPECT_EQ(K->Forms[3].Offset, 8);
}

TEST_F(BlockUniformKeyTest, KeyNeverAssignedInTheBody) {
  std::optional<UniformKey> K = keyOf(R"(
__global__ void k(int n, const int *order, const float *x, float *p) {
  int s = order[0];
  for (int i = 0; i < n; ++i)
    p[4 * s + 3] += x[i];
})");
  ASSERT_TRUE(K) << Why;
  EXPECT_EQ(K->Key->getName(), "s");
  EXPECT_EQ(K->After, nullptr);
}

TEST_F(BlockUniformKeyTest, KeyAssignedInABranch) {
  std::optional<UniformKey> K = keyOf(R"(
__global__ void k(int n, const int *order, const float *x, float *p) {
  for (int i = 0; i < n; ++i) {
    if (x[i] > 0) {
      int j = order[i];
      if (x[i] > 1)
        p[2 * j] += x[i];
    }
  }
})");
  ASSERT_TRUE(K) << Why;
  EXPECT_EQ(K->Key->getName(), "j");
  ASSERT_NE(K->After, nullptr);
}

TEST_F(BlockUniformKeyTest, NoKeyTwoVariables) {
  expectNoKey(R"(
__global__ void k(int n, const int *order, const float *x, float *p) {
  for (int i = 0; i < n; ++i) {
    int j = order[i];
    p[2 * j + i] += x[i];
  }
})",
              "not one integer variable");
}

TEST_F(BlockUniformKeyTest, NoKeyProduct) {
  expectNoKey(R"(
__global__ void k(int n, const int *order, const float *x, float *p) {
  for (int i = 0; i < n; ++i) {
    int j = order[i];
    p[j * j] += x[i];
  }
})",
              "not one integer variable");
}

TEST_F(BlockUniformKeyTest, NoKeyConstants) {
  expectNoKey(R"(
__global__ void k(int n, const float *x, float *p) {
  for (int i = 0; i < n; ++i)
    p[3] += x[i];
})",
              "constants");
}

TEST_F(BlockUniformKeyTest, NoKeyAssignedTwice) {
  expectNoKey(R"(
__global__ void k(int n, const int *order, const float *x, float *p) {
  for (int i = 0; i < n; ++i) {
    int j = order[i];
    p[j] += x[i];
    j = order[n - 1 - i];
    p[j] += x[i];
  }
})",
              "changes more than once");
}

TEST_F(BlockUniformKeyTest, NoKeyAddBeforeAssignment) {
  expectNoKey(R"(
__global__ void k(int n, const int *order, const float *x, float *p) {
  int j = 0;
  for (int i = 0; i < n; ++i) {
    p[j] += x[i];
    j = order[i];
  }
})",
              "not after the assignment");
}

TEST_F(BlockUniformKeyTest, NoKeyAssignedTwiceInBranch) {
  expectNoKey(R"(
__global__ void k(int n, const int *order, const float *x, float *p) {
  for (int i = 0; i < n; ++i) {
    int j = 0;
    if (x[i] > 0)
      j = order[i];
    p[j] += x[i];
  }
})",
              "changes more than once");
}

TEST_F(BlockUniformKeyTest, NoKeyAssignedInABranchBeforeAdd) {
  expectNoKey(R"(
__global__ void k(int n, const int *order, const float *x, float *p) {
  int j = 0;
  for (int i = 0; i < n; ++i) {
    if (x[i] > 0)
      j = order[i];
    p[j] += x[i];
  }
})",
              "not after the assignment");
}

TEST_F(BlockUniformKeyTest, NoKeyAssignedInANestedLoop) {
  expectNoKey(R"(
__global__ void k(int n, const int *order, const float *x, float *p) {
  int j = 0;
  for (int i = 0; i < n; ++i) {
    for (int c = 0; c < 2; ++c)
      j = order[i + c];
    p[j] += x[i];
  }
})",
              "nested loop");
}

TEST_F(BlockUniformKeyTest, NoKeyAddressTaken) {
  EXPECT_FALSE(keyOf(Affine, /*AddressTaken=*/true));
  EXPECT_NE(Why.find("address of the key 'j'"), std::string::npos) << Why;
}

} // namespace
