// assert and printf in a function whose derivative does not depend on them
// (issue 13): the derivatives leave them out (before, assert gave four
// errors starting with "cast to void"). A printf whose arguments have side
// effects, or whose result is used, is still an error.
//
// RUN: %clangxx -std=c++17 -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%I -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "NumericCheck.h"
#include <cassert>
#include <cmath>
#include <cstdio>
#include <meshad/Differentiator.h>

double checked(double x, double y) {
  assert(y > -10 && "y in range");
  double r = x * sin(y);
  if (r > 100)
    printf("large: %g\n", r);
  assert(std::isfinite(r));
  fprintf(stderr, "%s", "");
  return r * x;
}
// CHECK-LABEL: double checked_darg0(double x, double y) {
// CHECK-NOT: assert
// CHECK-NOT: printf
// CHECK-LABEL: void checked_grad(double x, double y, double *_d_x, double *_d_y) {
// CHECK-NOT: assert
// CHECK-NOT: printf
// CHECK: }

int main() {
  using meshad::test::centralDifference;
  meshad::test::RandomInputs Rng;
  auto fx = meshad::differentiate(checked, "x");
  auto g = meshad::gradient(checked, "x, y");
  for (int I = 0; I < 5; ++I) {
    double X = Rng.uniform(-1.5, 1.5), Y = Rng.uniform(-1.5, 1.5);
    double FdX = centralDifference([&](double V) { return checked(V, Y); }, X);
    double FdY = centralDifference([&](double V) { return checked(X, V); }, Y);
    MESHAD_CHECK_CLOSE("fwd d/dx", fx.execute(X, Y), FdX);
    MESHAD_CHECK_CLOSE("fwd d/dx analytic", fx.execute(X, Y),
                       2 * X * std::sin(Y));
    double DX = 0, DY = 0;
    g.execute(X, Y, &DX, &DY);
    MESHAD_CHECK_CLOSE("rev d/dx", DX, FdX);
    MESHAD_CHECK_CLOSE("rev d/dy", DY, FdY);
  }
  return meshad::test::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
