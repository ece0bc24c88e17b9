// Fuzzer finding (issue 9, tools/fuzz/FINDINGS.md): a const pointer local
// into an array (const double *q = p; and, found by the fuzzer, with an
// offset: const double *q = p + 1;) gets a const adjoint pointer that the
// reverse sweep assigns ("read-only variable is not assignable"), or
// passes to a pullback that takes a double * ("no matching function").
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

double first(const double *a, double k) { return a[0] * k; }

double passOn(double *v, double k) {
  const double *ptr = v;
  return first(ptr, k) * v[1];
}

int main() {
  using meshad::test::centralDifference;
  using meshad::test::centralDifferenceAt;
  meshad::test::RandomInputs Rng;
  auto g = meshad::gradient(alias, "p, x");
  auto g2 = meshad::gradient(passOn, "v, k");
  for (int I = 0; I < 5; ++I) {
    double P[3], DP[3] = {}, X = Rng.uniform(-1.5, 1.5), DX = 0;
    Rng.fill(P, 3, -1.5, 1.5);
    g.execute(P, X, DP, &DX);
    for (int K = 0; K < 3; ++K)
      MESHAD_CHECK_CLOSE("d alias/dp[k]", DP[K],
                         centralDifferenceAt([&] { return alias(P, X); }, P, K));
    MESHAD_CHECK_CLOSE("d alias/dx", DX, P[0]);
    double DV[3] = {}, DK = 0, K = Rng.uniform(0.5, 1.5);
    g2.execute(P, K, DV, &DK);
    MESHAD_CHECK_CLOSE("d passOn/dv[0]", DV[0], K * P[1]);
    MESHAD_CHECK_CLOSE("d passOn/dv[1]", DV[1], P[0] * K);
    MESHAD_CHECK_CLOSE("d passOn/dk", DK, P[0] * P[1]);
  }
  return meshad::test::summary();
}
