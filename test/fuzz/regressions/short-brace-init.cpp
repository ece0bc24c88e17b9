// Fuzzer finding (issue 9, tools/fuzz/FINDINGS.md): a local array with a
// brace initialiser shorter than the array (= {x}, = {}) is declared
// without its initialiser in the gradient and read uninitialised.
// (bug: the initialiser of a local array is dropped)
//
// RUN: %clangxx -std=c++17 -fplugin=%meshad_plugin -I%I -I%test_inputs %s -o %t
// RUN: %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
#include "NumericCheck.h"
#include <algorithm>
#include <cmath>
#include <meshad/Differentiator.h>

double partial(double x, double y) {
  double w[4] = {x * y};
  double z[3] = {};
  for (int i = 0; i < 3; ++i)
    z[i] += w[i + 1] + w[0] * sin(y);
  return z[0] + z[2] * x + w[3];
}

// Fills the stack below the caller with NaN, so that whatever the gradient
// reads uninitialised is NaN rather than a lucky zero.
__attribute__((noinline)) static void dirtyStack() {
  volatile double Junk[512];
  for (int I = 0; I < 512; ++I)
    Junk[I] = NAN;
}

int main() {
  using meshad::test::centralDifference;
  meshad::test::RandomInputs Rng;
  auto g = meshad::gradient(partial, "x, y");
  auto d = meshad::differentiate(partial, "x");
  for (int I = 0; I < 5; ++I) {
    double X = Rng.uniform(-1.5, 1.5), Y = Rng.uniform(-1.5, 1.5);
    double DX = 0, DY = 0;
    dirtyStack();
    g.execute(X, Y, &DX, &DY);
    double RefX = centralDifference([&](double V) { return partial(V, Y); }, X);
    MESHAD_CHECK_CLOSE("d partial/dx", DX, RefX);
    MESHAD_CHECK_CLOSE("d partial/dy", DY,
        centralDifference([&](double V) { return partial(X, V); }, Y));
    dirtyStack();
    MESHAD_CHECK_CLOSE("forward d partial/dx", d.execute(X, Y), RefX);
  }
  return meshad::test::summary();
}
