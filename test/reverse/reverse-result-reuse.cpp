// Partials that read the primal result (d exp = r, d sqrt = 0.5 / r,
// d(a / b)/db = -r / b) read the local that holds it, in forward and reverse
// mode (Rules/DerivativeRules.def, AD/Analysis/ReverseNeeds.h); where no local
// holds it in the reverse sweep (inside a loop, a local assigned twice) the
// result is recomputed, and what that reads is saved. Every derivative is
// checked against central finite differences.
//
// RUN: %clangxx -std=c++17 -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%I -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

double held(double x, double y) {
  double e = exp(x * y);
  double s = sqrt(x + 2.0);
  double q = y / s;
  return e * q + s;
}
// Forward mode: the tangent of s reads s, declared first.
// CHECK-LABEL: double held_darg0(double x, double y) {
// CHECK: double s = sqrt(x + 2.0);
// CHECK-NEXT: double _d_s = 0.5 / s;
// CHECK-LABEL: double held_darg1(double x, double y) {
// Reverse mode: e, s and q hold their results; nothing is recomputed.
// CHECK-LABEL: void held_grad(double x, double y, double *_d_x, double *_d_y) {
// CHECK: e = exp(x * y);
// CHECK-NEXT: s = sqrt(x + 2.0);
// CHECK-NEXT: q = y / s;
// CHECK-NOT: exp(
// CHECK-NOT: sqrt(
// CHECK: _d_s += -(q * _r{{[0-9]+}} / s);
// CHECK-NOT: sqrt(
// CHECK: *_d_x += 0.5 * _d_s / s;
// CHECK-NOT: exp(
// CHECK: double _r{{[0-9]+}} = _d_e * e;

double inLoop(const double *w, double x, int n) {
  double acc = 0;
  for (int i = 0; i < n; ++i) {
    double t = exp(w[i] * x);
    acc += t * w[i];
  }
  return acc;
}
// A loop local is not kept for the reverse sweep: exp is recomputed.
// CHECK-LABEL: void inLoop_grad_1(const double *w, double x, int n, double *_d_x) {
// CHECK: *_d_x += w[i] * (_r0 * exp(w[i] * x));

double overwritten(double x) {
  double e = exp(x);
  e = e * e + x;
  x = 2.0 * x;
  return e * x;
}
// e is assigned twice: exp(x) is recomputed, from the x saved before
// x = 2.0 * x and restored.
// CHECK-LABEL: void overwritten_grad(double x, double *_d_x) {
// CHECK: _t1 = x;
// CHECK-NEXT: x = 2.0 * x;
// CHECK: x = _t1;
// CHECK: _d_x_local += _r1 + _d_e * exp(x);
// CHECK-LABEL: double overwritten_darg0(double x) {
// CHECK: double e = exp(x);
// CHECK-NEXT: double _d_e = e * _d_x;

int main() {
  meshad::test::RandomInputs Rng;
  auto dhx = meshad::differentiate(held, "x");
  auto dhy = meshad::differentiate(held, "y");
  auto gh = meshad::gradient(held, "x, y");
  auto gl = meshad::gradient(inLoop, "x");
  auto go = meshad::gradient(overwritten, "x");
  auto dox = meshad::differentiate(overwritten, "x");
  for (int I = 0; I < 10; ++I) {
    double X = Rng.uniform(-1, 1), Y = Rng.uniform(0.5, 1.5);
    double FX = meshad::test::centralDifference(
        [&](double V) { return held(V, Y); }, X);
    double FY = meshad::test::centralDifference(
        [&](double V) { return held(X, V); }, Y);
    MESHAD_CHECK_CLOSE("d held/dx forward", dhx.execute(X, Y), FX);
    MESHAD_CHECK_CLOSE("d held/dy forward", dhy.execute(X, Y), FY);
    double GX = 0, GY = 0;
    gh.execute(X, Y, &GX, &GY);
    MESHAD_CHECK_CLOSE("d held/dx reverse", GX, FX);
    MESHAD_CHECK_CLOSE("d held/dy reverse", GY, FY);

    double W[4];
    Rng.fill(W, 4, -1, 1);
    double GL = 0;
    gl.execute(W, X, 4, &GL);
    MESHAD_CHECK_CLOSE("d inLoop/dx", GL,
        meshad::test::centralDifference(
            [&](double V) { return inLoop(W, V, 4); }, X));

    double FO = meshad::test::centralDifference(
        [&](double V) { return overwritten(V); }, X);
    double GO = 0;
    go.execute(X, &GO);
    MESHAD_CHECK_CLOSE("d overwritten/dx reverse", GO, FO);
    MESHAD_CHECK_CLOSE("d overwritten/dx forward", dox.execute(X), FO);
  }
  return meshad::test::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 70 passed, 0 failed
