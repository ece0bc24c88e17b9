// Forward mode of arithmetic: + - * /, unary minus, compound assignments and
// local variables, w.r.t. each parameter in turn; checked against central
// finite differences on random inputs.
//
// RUN: %clangxx -std=c++17 -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%I -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
// The code as the transformer builds it (before the simplifier):
// RUN: %clangxx -std=c++17 -fsyntax-only -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -fplugin-arg-meshad-no-simplify -I%I -I%test_inputs %s 2> %t.raw.dump
// RUN: FileCheck %s --check-prefix=RAW < %t.raw.dump
#include "NumericCheck.h"
#include <meshad/Differentiator.h>

double poly(double x, double y) {
  double a = x * x - 3.0 * y;
  double b = -a / (y + 2.5);
  a += b * x;
  a -= y;
  a *= x - y;
  a /= 1.5 + x * x;
  return a + b;
}

// The seed _d_x = 1 is propagated by the simplifier: d a/dx = 2 x.
// CHECK-LABEL: double poly_darg0(double x, double y) {
// CHECK: double _d_a = 2. * x;
// CHECK-NOT: _d_y
// CHECK: return
// CHECK-LABEL: double poly_darg1(double x, double y) {
// CHECK: double _d_a = -3.0;
// RAW-LABEL: double poly_darg0(double x, double y) {
// RAW: double _d_x = 1
// RAW-LABEL: double poly_darg1(double x, double y) {
// RAW: double _d_y = 1

int main() {
  meshad::test::RandomInputs Rng;
  auto dx = meshad::differentiate(poly, "x");
  auto dy = meshad::differentiate(poly, "y");
  for (int I = 0; I < 20; ++I) {
    double X = Rng.uniform(-2, 2), Y = Rng.uniform(-1, 2);
    MESHAD_CHECK_CLOSE("d poly/dx",  dx.execute(X, Y),
        meshad::test::centralDifference([&](double V) { return poly(V, Y); }, X));
    MESHAD_CHECK_CLOSE("d poly/dy", dy.execute(X, Y),
        meshad::test::centralDifference([&](double V) { return poly(X, V); }, Y));
  }
  return meshad::test::summary();
}
// NUM-NOT: FAIL
// NUM: PASS d poly/dx
// NUM: PASS d poly/dy
