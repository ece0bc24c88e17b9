// Fuzzer finding (issue 9, tools/fuzz/FINDINGS.md): a function in a namespace
// is re-called without its namespace in the generated code ("use of
// undeclared identifier"): issue 9 names function templates; the fuzzer
// finds the same for plain functions, in both modes and in kernels.
// (bug: callee names lose their namespace)
//
// RUN: %clangxx -std=c++17 -fplugin=%meshad_plugin -I%I -I%test_inputs %s -o %t
// RUN: %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
#include "NumericCheck.h"
#include <algorithm>
#include <cmath>
#include <meshad/Differentiator.h>

namespace geo {
double soft(double a, double b) { return sqrt(a * a + b * b + 1.0); }
template <class T> T twice(T a) { return 2 * a * a; }
} // namespace geo

double f(double x, double y) { return geo::soft(x, y) * geo::twice(x); }

int main() {
  using meshad::test::centralDifference;
  meshad::test::RandomInputs Rng;
  auto g = meshad::gradient(f, "x, y");
  auto d = meshad::differentiate(f, "x");
  for (int I = 0; I < 5; ++I) {
    double X = Rng.uniform(-1.5, 1.5), Y = Rng.uniform(-1.5, 1.5);
    double DX = 0, DY = 0;
    g.execute(X, Y, &DX, &DY);
    double RefX = centralDifference([&](double V) { return f(V, Y); }, X);
    MESHAD_CHECK_CLOSE("d f/dx", DX, RefX);
    MESHAD_CHECK_CLOSE("d f/dy", DY,
        centralDifference([&](double V) { return f(X, V); }, Y));
    MESHAD_CHECK_CLOSE("forward d f/dx", d.execute(X, Y), RefX);
  }
  return meshad::test::summary();
}
