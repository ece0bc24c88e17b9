// Variables declared in conditions and if/switch with initializers (issue
// 13): `if (T v = e)`, `if (init; cond)`, `switch (init; v)`, `while (T v =
// e)`. The declarations go into a block around the statement (a loop's
// into its body, before the test), so the names stay local. Forward and
// reverse mode against central differences.
//
// RUN: %clangxx -std=c++17 -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%I -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

double sq(double t) { return t * t; }

double declared(double x, int m) {
  double r = 0;
  if (double t = x * x; t > 0.25)
    r = t;
  else
    r = x;
  if (double u = sin(x))
    r += u * x;
  switch (int k = m + 1; k) {
  case 1:
    r += sq(x);
    break;
  default:
    r += x;
  }
  int n = 3;
  while (int left = n--)
    r += left * 0.25 * x;
  return r;
}
// CHECK-LABEL: double declared_darg0(double x, int m) {
// CHECK:   {
// CHECK-NEXT:     double _d_t = 2. * x;
// CHECK-NEXT:     double t = x * x;
// CHECK-NEXT:     if (t > 0.25) {
// CHECK-LABEL: void declared_grad(double x, int m, double *_d_x) {

int main() {
  using meshad::test::centralDifference;
  meshad::test::RandomInputs Rng;
  auto f = meshad::differentiate(declared, "x");
  auto g = meshad::gradient(declared, "x");
  for (int I = 0; I < 8; ++I) {
    double X = Rng.uniform(-1.5, 1.5);
    int M = I % 3 - 1;
    // Away from x * x = 0.25 and sin(x) = 0.
    if (std::fabs(std::fabs(X) - 0.5) < 0.05 || std::fabs(X) < 0.05)
      continue;
    double Fd = centralDifference([&](double V) { return declared(V, M); }, X);
    MESHAD_CHECK_CLOSE("fwd declared", f.execute(X, M), Fd);
    double D = 0;
    g.execute(X, M, &D);
    MESHAD_CHECK_CLOSE("rev declared", D, Fd);
  }
  return meshad::test::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
