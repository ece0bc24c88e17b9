//===- unittests/InvertibleUpdatesTest.cpp - Undo instead of tape ---------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// AD/Analysis/InvertibleUpdates: which updates of a kernel's locals the
/// reverse sweep may undo by their inverse, the interval bounds that prove
/// a factor nonzero, and the reasons given when it may not.
///
//===----------------------------------------------------------------------===//

#include "AD/Analysis/InvertibleUpdates.h"
#include "IR/Traversal.h"
#include "OwnershipFixture.h"

#include <cmath>

namespace {

/// Lowers kernel `k` of \p Body (inside a loop over k < n of the kernel
/// `k(int n, const double *x, double *out)`) and looks at the last update
/// of the local \p Name.
class InvertibleUpdatesTest : public OwnershipTest {
protected:
  bool lowerLoop(const std::string &Decls, const std::string &Body) {
    return analyse("__global__ void k(int n, const double *x, double *out) {\n"
                   "  double T = 1, acc = 0;\n  " +
                   Decls + "\n  for (int i = 0; i < n; ++i) {\n    " + Body +
                   "\n  }\n  out[0] = T + acc;\n}\n");
  }
  /// The last assignment to \p Name in the kernel.
  const AssignStmt *update(llvm::StringRef Name) {
    const AssignStmt *Found = nullptr;
    forEachStmt(Kernel->getBody(), [&](const Stmt *S) {
      const auto *A = llvm::dyn_cast<AssignStmt>(S);
      const auto *R = A ? llvm::dyn_cast<VarRefExpr>(A->getLHS()) : nullptr;
      if (R && R->getVar()->getName() == Name)
        Found = A;
    });
    return Found;
  }
  std::optional<InvertibleUpdates::Inverse> find(llvm::StringRef Name,
                                                 std::string &WhyNot) {
    InvertibleUpdates U(*Kernel->getBody());
    const AssignStmt *A = update(Name);
    EXPECT_TRUE(A) << "no update of " << Name.str();
    if (!A)
      return std::nullopt;
    return U.find(A->getLHS(), A->getOp(), A->getRHS(), WhyNot);
  }
};

TEST_F(InvertibleUpdatesTest, ClampedTransmittanceIsUndone) {
  ASSERT_TRUE(lowerLoop("", "double alpha = fmin(0.99, x[i]);\n"
                            "    T *= 1 - alpha;"));
  std::string WhyNot;
  auto Inv = find("T", WhyNot);
  ASSERT_TRUE(Inv) << WhyNot;
  EXPECT_EQ(Inv->Undo, AssignOp::DivAssign);
  EXPECT_EQ(Inv->Why, "the factor lies in [0.01, inf]");
  ASSERT_EQ(Inv->Reads.size(), 1u);
  EXPECT_EQ(Inv->Reads[0]->getName(), "alpha");
}

TEST_F(InvertibleUpdatesTest, NextValueThroughALocalIsUndone) {
  ASSERT_TRUE(lowerLoop("", "double alpha = fmin(0.9, x[i]);\n"
                            "    double nextT = T * (1 - alpha);\n"
                            "    T = nextT;"));
  std::string WhyNot;
  auto Inv = find("T", WhyNot);
  ASSERT_TRUE(Inv) << WhyNot;
  EXPECT_EQ(Inv->Undo, AssignOp::DivAssign);
  EXPECT_EQ(Inv->Why, "the factor lies in [0.1, inf]");
}

TEST_F(InvertibleUpdatesTest, QuotientIsUndoneByAProduct) {
  ASSERT_TRUE(lowerLoop("", "double s = fmax(0.5, x[i]);\n    T /= s;"));
  std::string WhyNot;
  auto Inv = find("T", WhyNot);
  ASSERT_TRUE(Inv) << WhyNot;
  EXPECT_EQ(Inv->Undo, AssignOp::MulAssign);
  EXPECT_EQ(Inv->Why, "the factor lies in [0.5, inf]");
}

TEST_F(InvertibleUpdatesTest, FactorThatMayBeZeroIsTaped) {
  ASSERT_TRUE(lowerLoop("", "double a = x[i];\n    T *= a;"));
  std::string WhyNot;
  EXPECT_FALSE(find("T", WhyNot));
  EXPECT_EQ(WhyNot, "its factor is not proven nonzero (bound [-inf, inf])");
}

TEST_F(InvertibleUpdatesTest, FactorReadingMemoryIsTaped) {
  ASSERT_TRUE(lowerLoop("", "T *= 1 + exp(x[i]);"));
  std::string WhyNot;
  EXPECT_FALSE(find("T", WhyNot));
  EXPECT_EQ(WhyNot,
            "its factor may change before the reverse sweep would undo it");
}

TEST_F(InvertibleUpdatesTest, SumsAreNotUndone) {
  ASSERT_TRUE(lowerLoop("", "acc += x[i];"));
  std::string WhyNot;
  EXPECT_FALSE(find("acc", WhyNot));
  EXPECT_EQ(WhyNot,
            "an additive update is not undone exactly in floating point");
}

TEST_F(InvertibleUpdatesTest, OtherAssignmentsAreNoUpdates) {
  ASSERT_TRUE(lowerLoop("", "T = x[i] * 2;"));
  std::string WhyNot;
  EXPECT_FALSE(find("T", WhyNot));
  EXPECT_EQ(WhyNot, "");
}

TEST_F(InvertibleUpdatesTest, Bounds) {
  ASSERT_TRUE(lowerLoop("double e = exp(x[0]);\n"
                        "  double m = fmin(0.9, x[1]) * -2;",
                        "acc += e + m;"));
  InvertibleUpdates U(*Kernel->getBody());
  const AssignStmt *A = update("acc");
  ASSERT_TRUE(A);
  // acc += e + m: e = exp(...) in [0, inf], m = -2 fmin(0.9, ...) >= -1.8.
  ValueRange R = U.bound(A->getRHS());
  EXPECT_EQ(R.Lo, -1.8);
  EXPECT_TRUE(std::isinf(R.Hi));
  EXPECT_FALSE(R.excludesZero());
}

} // namespace
