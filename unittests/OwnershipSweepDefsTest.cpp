//===- unittests/OwnershipSweepDefsTest.cpp - Recomputed counters ---------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Ownership proofs on loops shaped as reverse mode writes them (issue 10,
/// item 2; Analysis/SweepDefs): a counter that the reverse loop recomputes
/// from the trip count, `for (k = 0; k < 3; ++k) { ++_cnt0; ... }` then
/// `for (; _cnt0 > 0; --_cnt0) { k = _cnt0 - 1; ... }`, takes only the
/// forward loop's values: its range and uniformity hold in both loops. Not
/// when the recomputation differs, the trip counter is reset elsewhere or the
/// forward loop may run more than once from a count that is not reset, or
/// the counter is read elsewhere. A loop that only fills __shared__ memory
/// shows no thread dimension (threadDimsOf).
///
//===----------------------------------------------------------------------===//

#include "OwnershipFixture.h"

namespace {

/// A 1D kernel: a guard `c`, the forward loop with \p Forward in its body
/// after the count, \p Between, and the reverse loop recomputing `k` by
/// \p Recompute, then \p Reverse.
std::string sweeps(const std::string &Forward, const std::string &Recompute,
                   const std::string &Reverse,
                   const std::string &Between = "",
                   const std::string &Bound = "3") {
  return "__global__ void k(const double *x, double *y, double *p, int n, "
         "int K) {\n"
         "  int i;\n"
         "  int k;\n"
         "  int _cnt0 = 0;\n"
         "  bool c;\n"
         "  i = blockIdx.x * blockDim.x + threadIdx.x;\n"
         "  c = i < n;\n"
         "  if (c) {\n"
         "    for (k = 0; k < " +
         Bound + "; ++k) {\n      ++_cnt0;\n      " + Forward +
         "\n    }\n  }\n  " + Between +
         "\n  if (c) {\n    for (; _cnt0 > 0; --_cnt0) {\n      k = " +
         Recompute + ";\n      " + Reverse + "\n    }\n  }\n}\n";
}

TEST_F(OwnershipTest, RecomputedCounterKeepsItsRange) {
  ASSERT_TRUE(analyse(sweeps("y[3 * i + k] += x[3 * i + k];", "_cnt0 - 1",
                             "y[3 * i + k] += 1.0;")));
  expectExclusive("y", {"k in [0, 2]"});
  expectExclusive("x", {"k in [0, 2]"});
}

TEST_F(OwnershipTest, RecomputedCounterWithSymbolicBoundIsUniform) {
  ASSERT_TRUE(analyse(sweeps("y[i] += p[2 * k];", "_cnt0 - 1",
                             "p[2 * k + 1] += y[i];", "", "K")));
  expectUniform("p", std::nullopt, {});
}

TEST_F(OwnershipTest, OtherRecomputationIsNotTheCounter) {
  ASSERT_TRUE(analyse(sweeps("", "2 * (_cnt0 - 1)", "y[3 * i + k] += 1.0;")));
  expectShared("y", {});
  ASSERT_TRUE(analyse(sweeps("", "_cnt0", "y[3 * i + k] += 1.0;")));
  expectShared("y", {});
}

TEST_F(OwnershipTest, ResetTripCounterIsNotCounted) {
  ASSERT_TRUE(analyse(sweeps("", "_cnt0 - 1", "y[3 * i + k] += 1.0;",
                             "_cnt0 = 0;")));
  expectShared("y", {});
}

TEST_F(OwnershipTest, CounterReadAfterItsLoopIsNotInRange) {
  // After the forward loop k is 3.
  ASSERT_TRUE(analyse(sweeps("", "_cnt0 - 1", "", "y[3 * i + k] += 1.0;")));
  expectShared("y", {});
}

TEST_F(OwnershipTest, ForwardLoopInALoopIsNotCounted) {
  // Two runs of the forward loop count _cnt0 up to 6: k reaches 5.
  std::string Code = sweeps("", "_cnt0 - 1", "y[3 * i + k] += 1.0;");
  size_t At = Code.find("    for (k = 0;");
  Code.insert(At, "    for (int t = 0; t < 2; ++t)\n");
  ASSERT_TRUE(analyse(Code));
  expectShared("y", {});
}

TEST_F(OwnershipTest, LoopThatStepsAnotherCounterIsNotCounted) {
  // k stays 0 in the forward loop: the recomputed 0, 1, 2 are not its values.
  std::string Code = sweeps("", "_cnt0 - 1", "y[3 * i + k] += 1.0;");
  size_t At = Code.find("for (k = 0; k < 3; ++k)");
  Code.replace(At, 23, "for (k = 0; j < 3; ++j)");
  Code.insert(Code.find("  bool c;"), "  int j = 0;\n");
  ASSERT_TRUE(analyse(Code));
  expectShared("y", {});
}

TEST_F(OwnershipTest, SharedFillLoopShowsNoThreadDimension) {
  // Reverse mode zeroes a __shared__ adjoint from the block's linear thread
  // id, for any launch shape: not a sign that the threads differ in y.
  ASSERT_TRUE(analyse(
      "__global__ void k(const double *x, double *y, int n) {\n"
      "  __shared__ double s[64];\n"
      "  for (int j = threadIdx.x + blockDim.x * threadIdx.y; j < 64;\n"
      "       j += blockDim.x * blockDim.y)\n"
      "    s[j] = 0;\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (i < n)\n"
      "    y[i] += x[i] + s[threadIdx.x];\n"
      "}\n"));
  expectExclusiveIn("y", 1, {});
  // threadIdx.y read elsewhere: y-threads share y[i].
  ASSERT_TRUE(analyse(
      "__global__ void k(const double *x, double *y, int n) {\n"
      "  __shared__ double s[64];\n"
      "  s[threadIdx.y] = 0;\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (i < n)\n"
      "    y[i] += x[i] + s[threadIdx.x];\n"
      "}\n"));
  expectShared("y", {"threadIdx.y"});
}

} // namespace
