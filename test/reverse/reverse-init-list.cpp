// Local arrays with brace initializers shorter than the array (`= {}`,
// `= {1.0}`, `= {x}`), nested arrays, inside and outside loops, in both
// modes: the elements without an initializer are zero. Issue 9: the
// gradient declared such arrays without their initializer and read them
// uninitialized.
//
// RUN: %clangxx -std=c++17 -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%I -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

double partial(double x, double y) {
  double w[4] = {1.0};
  double z[3] = {};
  double v[5] = {x, y * x};
  w[1] = x * y;
  z[2] = sin(y);
  double s = 0;
  for (int i = 0; i < 4; i++)
    s += w[i] * x + z[i % 3] * y + v[i + 1] * v[i];
  return s;
}
// CHECK-LABEL: double partial_darg0(double x, double y) {
// CHECK-LABEL: void partial_grad(double x, double y, double *_d_x, double *_d_y) {
// CHECK: for (int _k{{[0-9]+}} = 1; _k{{[0-9]+}} < 4; ++_k{{[0-9]+}}) {
// CHECK-NEXT: w[_k{{[0-9]+}}] = 0.;

// In a loop the array is initialized again on every iteration, after the
// previous iteration wrote to it.
double inLoop(double x, int n) {
  double s = 0;
  for (int k = 0; k < n; ++k) {
    double acc[3] = {x};
    acc[k % 3] += x * x * k;
    for (int i = 0; i < 3; ++i)
      s += acc[i] * acc[i];
  }
  return s;
}
// CHECK-LABEL: void inLoop_grad(double x, int n, double *_d_x) {

// Nested arrays.
double nested(double x) {
  double m[2][3] = {{x}, {1.0, x * x}};
  double s = 0;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      s += m[i][j] * (i + j + 1);
  return s * x;
}
// CHECK-LABEL: void nested_grad(double x, double *_d_x) {

int main() {
  using meshad::test::centralDifference;
  meshad::test::RandomInputs Rng;
  auto fp = meshad::differentiate(partial, "x");
  auto gp = meshad::gradient(partial, "x, y");
  auto fl = meshad::differentiate(inLoop, "x");
  auto gl = meshad::gradient(inLoop, "x");
  auto fn = meshad::differentiate(nested, "x");
  auto gn = meshad::gradient(nested, "x");
  for (int I = 0; I < 5; ++I) {
    double X = Rng.uniform(-1.5, 1.5), Y = Rng.uniform(-1.5, 1.5);
    double FdX = centralDifference([&](double V) { return partial(V, Y); }, X);
    double FdY = centralDifference([&](double V) { return partial(X, V); }, Y);
    MESHAD_CHECK_CLOSE("fwd partial/dx", fp.execute(X, Y), FdX);
    double DX = 0, DY = 0;
    gp.execute(X, Y, &DX, &DY);
    MESHAD_CHECK_CLOSE("rev partial/dx", DX, FdX);
    MESHAD_CHECK_CLOSE("rev partial/dy", DY, FdY);

    FdX = centralDifference([&](double V) { return inLoop(V, 5); }, X);
    MESHAD_CHECK_CLOSE("fwd inLoop/dx", fl.execute(X, 5), FdX);
    DX = 0;
    gl.execute(X, 5, &DX);
    MESHAD_CHECK_CLOSE("rev inLoop/dx", DX, FdX);

    FdX = centralDifference([&](double V) { return nested(V); }, X);
    MESHAD_CHECK_CLOSE("fwd nested/dx", fn.execute(X), FdX);
    DX = 0;
    gn.execute(X, &DX);
    MESHAD_CHECK_CLOSE("rev nested/dx", DX, FdX);
  }
  return meshad::test::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 35 passed, 0 failed
