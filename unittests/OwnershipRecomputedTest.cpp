//===- unittests/OwnershipRecomputedTest.cpp - Recomputed indices ---------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Ownership proofs for index variables assigned several times, as reverse
/// mode writes them (a grid-stride loop run forwards to count iterations,
/// then backwards with i = gid + (_cnt0 - 1)*T): every value is gid + c*T
/// with T = blockDim.x*gridDim.x, so congruent to gid modulo T.
///
//===----------------------------------------------------------------------===//

#include "OwnershipFixture.h"

namespace {

/// The HVP kernel's sweeps around a body \p Body that uses i.
std::string sweeps(const std::string &Recompute, const std::string &Body) {
  return "__global__ void k(const double *x, double *y, int n) {\n"
         "  int i;\n"
         "  int _cnt0 = 0;\n"
         "  for (i = (int)(blockIdx.x * blockDim.x + threadIdx.x); i < n;\n"
         "       i += blockDim.x * gridDim.x) {\n"
         "    ++_cnt0;\n"
         "  }\n"
         "  for (; _cnt0 > 0; --_cnt0) {\n"
         "    " +
         Recompute + "\n    " + Body +
         "\n"
         "  }\n"
         "}\n";
}

TEST_F(OwnershipTest, ReverseSweepOfGridStrideLoop) {
  ASSERT_TRUE(analyse(
      sweeps("i = (int)(blockIdx.x * blockDim.x + threadIdx.x) + (_cnt0 - 1) * "
             "(blockDim.x * gridDim.x);",
             "y[2 * i] += x[i]; y[2 * i + 1] += x[i];")));
  expectExclusiveIn("x", 1, {"i + {0}", "grid-stride"});
  expectExclusiveIn("y", 1, {"2*i + {0, 1}"});
}

TEST_F(OwnershipTest, RecomputedWithThreadCountEitherOrder) {
  ASSERT_TRUE(analyse("__global__ void k(double *y, int n, int m) {\n"
                      "  int T = gridDim.x * blockDim.x;\n"
                      "  int g = blockIdx.x * blockDim.x + threadIdx.x;\n"
                      "  int i = g;\n"
                      "  y[i] = 1.0;\n"
                      "  for (int c = 0; c < m; ++c) {\n"
                      "    i = g + c * T;\n"
                      "    y[i] += 2.0;\n"
                      "    i -= 3 * T;\n"
                      "    y[i] += 3.0;\n"
                      "  }\n"
                      "}\n"));
  expectExclusiveIn("y", 1, {"grid-stride"});
}

TEST_F(OwnershipTest, RecomputedWithThreadDependentFactorIsShared) {
  ASSERT_TRUE(analyse(
      sweeps("i = (int)(blockIdx.x * blockDim.x + threadIdx.x) + threadIdx.x * "
             "(blockDim.x * gridDim.x);",
             "y[i] += x[i];")));
  expectShared("y", {"i is assigned more than once"});
}

TEST_F(OwnershipTest, RecomputedWithBlockDimOnlyIsShared) {
  ASSERT_TRUE(analyse(
      sweeps("i = (int)(blockIdx.x * blockDim.x + threadIdx.x) + (_cnt0 - 1) * "
             "blockDim.x;",
             "y[i] += x[i];")));
  expectShared("y", {"i is assigned more than once"});
}

TEST_F(OwnershipTest, RecomputedPlusOffsetIsShared) {
  ASSERT_TRUE(analyse(
      sweeps("i = (int)(blockIdx.x * blockDim.x + threadIdx.x) + (_cnt0 - 1) * "
             "(blockDim.x * gridDim.x) + 1;",
             "y[i] += x[i];")));
  expectShared("y", {"i is assigned more than once"});
}

TEST_F(OwnershipTest, OneAssignmentNotExclusiveIsShared) {
  ASSERT_TRUE(analyse(
      sweeps("i = (int)(blockIdx.x * blockDim.x + threadIdx.x) + (_cnt0 - 1) * "
             "(blockDim.x * gridDim.x);",
             "y[i] += x[i]; i = threadIdx.x; y[0] += x[i];")));
  expectShared("x", {"i is assigned more than once"});
}

TEST_F(OwnershipTest, StepNotThreadCountIsShared) {
  ASSERT_TRUE(analyse("__global__ void k(double *y, int n) {\n"
                      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                      "  while (i < n) {\n"
                      "    y[i] += 1.0;\n"
                      "    i += blockDim.x;\n"
                      "  }\n"
                      "}\n"));
  expectShared("y", {"i is assigned more than once"});
}

TEST_F(OwnershipTest, WhileLoopStepByThreadCount) {
  ASSERT_TRUE(analyse("__global__ void k(double *y, int n) {\n"
                      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                      "  while (i < n) {\n"
                      "    y[i] += 1.0;\n"
                      "    i += blockDim.x * gridDim.x;\n"
                      "  }\n"
                      "}\n"));
  expectExclusiveIn("y", 1, {"grid-stride"});
}

TEST_F(OwnershipTest, NarrowRecomputedIndexIsShared) {
  ASSERT_TRUE(analyse("__global__ void k(double *y, int n) {\n"
                      "  short i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                      "  while (i < n) {\n"
                      "    y[i] += 1.0;\n"
                      "    i += blockDim.x * gridDim.x;\n"
                      "  }\n"
                      "}\n"));
  expectShared("y", {"i is assigned more than once"});
}

TEST_F(OwnershipTest, RecomputedIn2DKernelIsShared) {
  ASSERT_TRUE(analyse(
      sweeps("i = (int)(blockIdx.x * blockDim.x + threadIdx.x) + (_cnt0 - 1) * "
             "(blockDim.x * gridDim.x);",
             "y[i] += x[i] * threadIdx.y;")));
  expectShared("y", {"threadIdx.y"});
}

TEST_F(OwnershipTest, UsedBeforeSetIsShared) {
  // The first access reads i before any assignment: no form.
  ASSERT_TRUE(analyse("__global__ void k(double *y, int n) {\n"
                      "  int i;\n"
                      "  y[i] = 1.0;\n"
                      "  i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                      "  y[i] += 1.0;\n"
                      "  i += blockDim.x * gridDim.x;\n"
                      "  y[i] += 2.0;\n"
                      "}\n"));
  expectShared("y", {"i is assigned more than once"});
}

} // namespace
