// Fuzzer finding (issue 9, tools/fuzz/FINDINGS.md): generated names collide
// with user names: a callee parameter named y against the pullback's return
// seed _d_y ("redefinition of parameter '_d_y'"), user locals named _d_x
// and _t0 against meshad's own (generated code that does not compile).
// (bug: generated names are not made unique against user names)
//
// RUN: %clangxx -std=c++17 -fplugin=%meshad_plugin -I%I -I%test_inputs %s -o %t
// RUN: %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
#include "NumericCheck.h"
#include <algorithm>
#include <cmath>
#include <meshad/Differentiator.h>

double damp(double y, double k) { return y * exp(-k * y * y); }

double f(double x, double k) {
  double _d_x = x * k;
  double _t0 = sin(_d_x);
  double _r0 = _t0 * damp(x, k);
  return _r0 + _d_x * _t0;
}

int main() {
  using meshad::test::centralDifference;
  meshad::test::RandomInputs Rng;
  auto g = meshad::gradient(f, "x, k");
  auto d = meshad::differentiate(f, "x");
  for (int I = 0; I < 5; ++I) {
    double X = Rng.uniform(-1.5, 1.5), K = Rng.uniform(0.5, 1.5);
    double DX = 0, DK = 0;
    g.execute(X, K, &DX, &DK);
    double RefX = centralDifference([&](double V) { return f(V, K); }, X);
    MESHAD_CHECK_CLOSE("d f/dx", DX, RefX);
    MESHAD_CHECK_CLOSE("d f/dk", DK,
        centralDifference([&](double V) { return f(X, V); }, K));
    MESHAD_CHECK_CLOSE("forward d f/dx", d.execute(X, K), RefX);
  }
  return meshad::test::summary();
}
