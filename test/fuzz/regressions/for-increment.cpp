// Fuzzer finding (issue 9, tools/fuzz/FINDINGS.md): an active update in a
// for increment is dropped by reverse mode (gradient 0); forward mode
// rejects it with a clear error, so only reverse mode is checked here. The
// fuzzer also finds it as code that does not compile: when the statements
// around the loop are not repeated in the forward sweep, the increment
// still names their variable ("use of undeclared identifier 'r'").
// (bug: reverse mode drops the update in the increment)
//
// RUN: %clangxx -std=c++17 -fplugin=%meshad_plugin -I%I -I%test_inputs %s -o %t
// RUN: %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
#include "NumericCheck.h"
#include <algorithm>
#include <cmath>
#include <meshad/Differentiator.h>

double powLoop(double x) {
  double t = 1;
  for (int i = 0; i < 3; t *= x)
    i++;
  return t;
}

double decay(double x, double y) {
  double t = y;
  for (int i = 0; i < 4; t *= (0.6 + 0.3 * sin(x))) {
    ++i;
    t += 0.1 * y;
  }
  return t;
}

double insideBranch(double s) {
  double t = 0;
  if (s > 0) {
    double r = s;
    for (int m = 0; m < 3; r *= 0.5)
      ++m;
    t = r;
  }
  return t;
}

int main() {
  using meshad::test::centralDifference;
  meshad::test::RandomInputs Rng;
  auto g1 = meshad::gradient(powLoop, "x");
  auto g2 = meshad::gradient(decay, "x, y");
  auto g3 = meshad::gradient(insideBranch, "s");
  for (int I = 0; I < 5; ++I) {
    double X = Rng.uniform(0.5, 1.5), Y = Rng.uniform(0.5, 1.5);
    double DX = 0, DY = 0;
    g1.execute(X, &DX);
    MESHAD_CHECK_CLOSE("d powLoop/dx", DX, 3 * X * X);
    DX = 0;
    g2.execute(X, Y, &DX, &DY);
    MESHAD_CHECK_CLOSE("d decay/dx", DX,
        centralDifference([&](double V) { return decay(V, Y); }, X));
    MESHAD_CHECK_CLOSE("d decay/dy", DY,
        centralDifference([&](double V) { return decay(X, V); }, Y));
    DX = 0;
    g3.execute(X, &DX); // X > 0: r = X / 8
    MESHAD_CHECK_CLOSE("d insideBranch/ds", DX, 0.125);
  }
  return meshad::test::summary();
}
