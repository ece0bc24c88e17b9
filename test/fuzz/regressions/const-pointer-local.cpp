// Fuzzer finding (issue 9, tools/fuzz/FINDINGS.md): a const pointer local
// into an array (const double *q = p; and, found by the fuzzer, with an
// offset: const double *q = p + 1;) gets a const adjoint pointer that the
// reverse sweep assigns ("read-only variable is not assignable").
// XFAIL: *
// (bug: const adjoint pointer of a const pointer local)
//
// RUN: %clangxx -std=c++17 -fplugin=%meshad_plugin -I%I -I%test_inputs %s -o %t
// RUN: %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
#include "NumericCheck.h"
#include <algorithm>
#include <cmath>
#include <meshad/Differentiator.h>

double alias(const double *p, double x) {
  const double *q = p;
  const double *r = p + 1;
  return q[0] * x + sin(r[0]) * r[1];
}

int main() {
  using meshad::test::centralDifference;
  using meshad::test::centralDifferenceAt;
  meshad::test::RandomInputs Rng;
  auto g = meshad::gradient(alias, "p, x");
  for (int I = 0; I < 5; ++I) {
    double P[3], DP[3] = {}, X = Rng.uniform(-1.5, 1.5), DX = 0;
    Rng.fill(P, 3, -1.5, 1.5);
    g.execute(P, X, DP, &DX);
    for (int K = 0; K < 3; ++K)
      MESHAD_CHECK_CLOSE("d alias/dp[k]", DP[K],
                         centralDifferenceAt([&] { return alias(P, X); }, P, K));
    MESHAD_CHECK_CLOSE("d alias/dx", DX, P[0]);
  }
  return meshad::test::summary();
}
