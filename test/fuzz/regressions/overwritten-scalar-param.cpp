// Fuzzer finding (tools/fuzz/FINDINGS.md, "overwritten scalar parameter"):
// a by-value scalar parameter that the function overwrites has its
// adjoint kept in the caller's adjoint (*_d_k) and reset to 0 at the
// overwrite, so that the adjoint the caller passed in is lost (adjoints
// accumulate: dk must end as its initial value plus dL/dk).
// (bug: the reverse sweep assigns *_d_k = 0. at `k = ...`)
//
// RUN: %clangxx -std=c++17 -fplugin=%meshad_plugin -I%I -I%test_inputs %s -o %t
// RUN: %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

double f(double x, double k) {
  double y = k * x;
  k = 0.5 * sin(x);
  return y + k * k;
}

int main() {
  using meshad::test::centralDifference;
  meshad::test::RandomInputs Rng;
  auto g = meshad::gradient(f, "x, k");
  for (int I = 0; I < 5; ++I) {
    double X = Rng.uniform(-1, 1), K = Rng.uniform(-1, 1);
    double DX = 0.25, DK = 0.75; // adjoints accumulate
    g.execute(X, K, &DX, &DK);
    MESHAD_CHECK_CLOSE("d f/dx", DX - 0.25,
        centralDifference([&](double V) { return f(V, K); }, X));
    MESHAD_CHECK_CLOSE("d f/dk", DK - 0.75,
        centralDifference([&](double V) { return f(X, V); }, K));
  }
  return meshad::test::summary();
}
