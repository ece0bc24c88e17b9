//===- unittests/OwnershipGuardLocalsTest.cpp - Guards in locals ----------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Ownership proofs on code shaped as reverse mode writes it (issue 10,
/// item 2): a guard saved in a local assigned once (`bool _cond0; ...
/// _cond0 = gx < W && gy < H; ... if (_cond0)`) gives the facts of its
/// value, through `!`; one assigned twice does not; an index assigned once
/// under such a guard has its value where every read is under a later test
/// of the same guard (Analysis/SweepDefs), and no form otherwise.
///
//===----------------------------------------------------------------------===//

#include "OwnershipFixture.h"

namespace {

/// A 2D kernel whose guard is saved in `c` (\p SetGuard), then \p Body.
std::string kernel2D(const std::string &SetGuard, const std::string &Body) {
  return "__global__ void k(const double *x, double *y, int W, int H) {\n"
         "  int gx;\n"
         "  int gy;\n"
         "  int p;\n"
         "  bool c;\n"
         "  gx = blockIdx.x * blockDim.x + threadIdx.x;\n"
         "  gy = blockIdx.y * blockDim.y + threadIdx.y;\n  " +
         SetGuard + "\n  " + Body + "\n}\n";
}

TEST_F(OwnershipTest, OnceAssignedGuardLocalGivesItsFacts) {
  ASSERT_TRUE(analyse(kernel2D("c = gx < W && gy < H;",
                               "if (c) { y[gy * W + gx] += x[gy * W + gx]; }")));
  expectExclusiveIn("y", 2, {"0 <= gx < W"});
  expectExclusiveIn("x", 2, {"0 <= gx < W"});
}

TEST_F(OwnershipTest, NegatedGuardLocalGivesItsFacts) {
  ASSERT_TRUE(analyse(kernel2D("c = gx >= W || gy >= H;",
                               "if (!c) { y[gy * W + gx] += 1.0; }")));
  expectExclusiveIn("y", 2, {"0 <= gx < W"});
}

TEST_F(OwnershipTest, ReassignedGuardLocalGivesNoFact) {
  ASSERT_TRUE(analyse(kernel2D("c = gx < W && gy < H; c = gx < 2 * W;",
                               "if (c) { y[gy * W + gx] += 1.0; }")));
  expectShared("y", {"gx < W not proven"});
}

TEST_F(OwnershipTest, IndexAssignedOnceUnderTheGuard) {
  // Every read of p is under a later `if (!c)`: p is gy * W + gx there.
  ASSERT_TRUE(analyse(kernel2D("c = gx >= W || gy >= H;",
                               "if (!c) { p = gy * W + gx; }\n"
                               "  if (!c) { y[p] += x[p]; }")));
  expectExclusiveIn("y", 2, {"0 <= gx < W"});
}

TEST_F(OwnershipTest, IndexReadOutsideItsGuardHasNoForm) {
  // The read under `if (c)` sees p unassigned.
  ASSERT_TRUE(analyse(kernel2D("c = gx >= W || gy >= H;",
                               "if (!c) { p = gy * W + gx; }\n"
                               "  if (c) { y[p] += 1.0; }")));
  expectShared("y", {"p is assigned more than once or after its declaration"});
  ASSERT_TRUE(analyse(kernel2D("c = gx >= W || gy >= H;",
                               "if (!c) { p = gy * W + gx; }\n"
                               "  y[p] += 1.0;")));
  expectShared("y", {"p is assigned more than once or after its declaration"});
}

TEST_F(OwnershipTest, IndexUnderAReassignedGuardHasNoForm) {
  // c changes between the two tests: the assignment may not have run.
  ASSERT_TRUE(analyse(kernel2D("c = gx >= W || gy >= H;",
                               "if (!c) { p = gy * W + gx; }\n"
                               "  c = gx >= 2 * W;\n"
                               "  if (!c) { y[p] += 1.0; }")));
  expectShared("y", {"p is assigned more than once or after its declaration"});
}

TEST_F(OwnershipTest, IndexAssignedInANestedBranchHasNoForm) {
  // The assignment is not a statement of the guard's branch itself.
  ASSERT_TRUE(analyse(kernel2D("c = gx >= W || gy >= H;",
                               "if (!c) { if (gx > 0) { p = gy * W + gx; } }\n"
                               "  if (!c) { y[p] += 1.0; }")));
  expectShared("y", {"p is assigned more than once or after its declaration"});
}

TEST_F(OwnershipTest, IndexAssignedOnceInALoopIsNotItsValue) {
  ASSERT_TRUE(analyse(kernel2D("c = gx < W && gy < H;",
                               "for (int t = 0; t < 2; ++t) { p = gx + t; }\n"
                               "  if (c) { y[p] += 1.0; }")));
  expectShared("y", {"p is assigned more than once or after its declaration"});
}

} // namespace
