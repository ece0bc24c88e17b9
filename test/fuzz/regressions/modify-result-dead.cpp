// Fuzzer finding (issue 9, tools/fuzz/FINDINGS.md): a call that modifies an
// array, whose result initialises (or is assigned to) a local that is never
// read, is dropped from the reverse sweep; as a plain call statement it is
// right.
// (bug: the pullback of a call with a dead result is dropped)
//
// RUN: %clangxx -std=c++17 -fplugin=%meshad_plugin -I%I -I%test_inputs %s -o %t
// RUN: %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
#include "NumericCheck.h"
#include <algorithm>
#include <cmath>
#include <meshad/Differentiator.h>

double modify(double *a) {
  a[0] = a[0] * a[0];
  return a[0];
}

double initDead(double x) {
  double arr[1] = {x};
  double temp = modify(arr);
  return arr[0];
}

double assignDead(double x) {
  double arr[1] = {sin(x)};
  double temp = x;
  temp = 0.5 * modify(arr);
  return arr[0];
}

int main() {
  using meshad::test::centralDifference;
  meshad::test::RandomInputs Rng;
  auto g1 = meshad::gradient(initDead, "x");
  auto g2 = meshad::gradient(assignDead, "x");
  for (int I = 0; I < 5; ++I) {
    double X = Rng.uniform(-1.5, 1.5), DX = 0;
    g1.execute(X, &DX);
    MESHAD_CHECK_CLOSE("d initDead/dx", DX, 2 * X);
    DX = 0;
    g2.execute(X, &DX);
    MESHAD_CHECK_CLOSE("d assignDead/dx", DX,
        centralDifference([&](double V) { return assignDead(V); }, X));
  }
  return meshad::test::summary();
}
