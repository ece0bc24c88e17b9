// Issue 13's false rejections of callees that write through pointers: a
// callee writing a local scalar (`h(x, &v)`), and one writing an array the
// caller never reads afterwards: that memory needs no tangent or adjoint
// (the callee's derivative does not treat it as a result), in both modes.
//
// RUN: %clangxx -std=c++17 -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%I -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

void square(double s, double *o) { *o = s * s; }
void fill(double s, double *o) {
  o[0] = sin(s);
  o[1] = s * o[0];
}

double outputs(double x) {
  double v = 0;
  square(x, &v);
  double dead[2];
  fill(x, dead);
  double live[2];
  fill(v, live);
  return v * x + live[1];
}
// CHECK-LABEL: double outputs_darg0(double x) {
// CHECK: square_pushforward(x, &v, 1., &_d_v);
// CHECK: fill_pushforward_0(x, dead, 1.);
// CHECK-LABEL: void outputs_grad(double x, double *_d_x) {

int main() {
  using meshad::test::centralDifference;
  meshad::test::RandomInputs Rng;
  auto f = meshad::differentiate(outputs, "x");
  auto g = meshad::gradient(outputs, "x");
  for (int I = 0; I < 5; ++I) {
    double X = Rng.uniform(-1.5, 1.5);
    double Fd = centralDifference(outputs, X);
    MESHAD_CHECK_CLOSE("fwd", f.execute(X), Fd);
    double D = 0;
    g.execute(X, &D);
    MESHAD_CHECK_CLOSE("rev", D, Fd);
  }
  return meshad::test::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
