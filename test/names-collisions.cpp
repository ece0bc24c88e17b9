// Generated names never collide with the user's, whatever the user calls
// things: locals, parameters and globals named like meshad's own names
// (_d_x, _t0, _r1, _cond0, _cnt0, _k0, _d_y), a callee parameter y (the
// pullback's seed is _d_y) and a callee parameter _d_y, a local shadowing a
// parameter next to a local named like its renamed copy (x_1), a call
// hoisted into a temporary next to a user's _t0, and user functions named
// like generated ones (f_grad, h_pullback). The usual names stay where they
// are free; a taken one gets the next free variant (_d_x_1, _t2, f_grad_1).
// Both modes, checked against central finite differences.
//
// RUN: %clangxx -std=c++17 -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%I -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s --check-prefix=SIMP < %t.dump
// The transformers' names are checked on the code before the simplifier:
// RUN: %clangxx -std=c++17 -fsyntax-only -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -fplugin-arg-meshad-no-simplify -I%I -I%test_inputs %s 2> %t.raw.dump
// RUN: FileCheck %s < %t.raw.dump
// RUN: sed -n '/^void f_grad_1(/,/^}/p' %t.raw.dump | FileCheck %s --check-prefix=TEMPS
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

double _r1 = 0.75; // A global the function reads.

double h(double y) { return y * y * 3.0; }
double h2(double _d_y, double z) { return _d_y * z + sin(_d_y); }
double h3(double y, double _d_y) { return y * _d_y + y; }

double f(double x, double _d_y) {
  double _d_x = x * 2.0;
  double _t0 = sin(_d_x) * x;
  double _r0 = h(_t0) + h2(x, _d_y) * _r1;
  int _cond0 = x > 0;
  if (_cond0)
    _r0 = _r0 * x;
  double _cnt0 = 0;
  for (int _k0 = 0; _k0 < 3; ++_k0)
    _cnt0 += _r0 * _d_y;
  double x_1 = x * 0.5;
  {
    double x = x_1 * _d_y; // shadows the parameter x
    _r0 += x * x;
  }
  double _t1 = h(h3(x, _d_y));
  return _r0 + _d_x * _t0 + _t1 + _cnt0;
}

// User functions with the names (and signatures) of generated ones.
void f_grad(double, double, double *, double *) {}
double h_pullback = 1;

// The simplifier's temporary for sin(_d_x), computed twice in f_darg0,
// skips the user's _t0 and _t1 and the generated _t2 to _t4:
// SIMP-LABEL: double f_darg0(double x, double _d_y) {
// SIMP: double _t5 = sin(_d_x);
// SIMP-NEXT: double _d__t0 = cos(_d_x) * _d__d_x * x + _t5;
// SIMP-NEXT: double _t0 = _t5 * x;
// CHECK-LABEL: void f_grad_1(double x, double _d_y, double *_d_x_1, double *_d__d_y) {
// CHECK-DAG: double _d_x;
// CHECK-DAG: double _t0;
// CHECK-DAG: double _t2;
// CHECK-DAG: double x_1;
// CHECK-DAG: double x_2;
// CHECK-DAG: double _d_x_2 = 0.;
// CHECK-DAG: double _d_x_1_1 = 0.;
// CHECK-DAG: int _cnt1 = 0;
// CHECK: h_pullback_1(_t0, {{.*}});
// CHECK: *_d_x_1 +=
// CHECK-LABEL: void h_pullback_1(double y, double _d_y_1, double *_d_y) {
// CHECK-NEXT: double _r0 = _d_y_1 * 3.0;
// CHECK-LABEL: void h2_pullback(double _d_y, double z, double _d_y_1, double *_d__d_y, double *_d_z) {
// CHECK-LABEL: void h3_pullback(double y, double _d_y, double _d_y_2, double *_d_y_1, double *_d__d_y) {
// CHECK-LABEL: double f_darg0(double x, double _d_y) {
// CHECK-NEXT: double _d_x_1 = 1.;
// CHECK-NEXT: double _d__d_x = _d_x_1 * 2.0;
// CHECK-NEXT: double _d_x = x * 2.0;
// CHECK: double _d_x_1_1 = _d_x_1 * 0.5;
// CHECK: double _d_x_2 = _d_x_1_1 * _d_y;
// CHECK-NEXT: double x_2 = x_1 * _d_y;
// CHECK-LABEL: meshad::ValueAndPushforward<double, double> h2_pushforward_0(double _d_y, double z, double _d__d_y) {
// CHECK-LABEL: meshad::ValueAndPushforward<double, double> h3_pushforward_0(double y, double _d_y, double _d_y_1) {
// CHECK-LABEL: double f_darg1(double x, double _d_y) {
// CHECK-NEXT: double _d__d_y = 1.;
//
// The gradient's temporaries skip the user's _r0 and the global _r1:
// TEMPS-NOT: double _r0 =
// TEMPS-NOT: double _r1 =
// TEMPS: double _r2 = _d__d_x;

int main() {
  using meshad::test::centralDifference;
  meshad::test::RandomInputs Rng;
  auto g = meshad::gradient(f, "x, _d_y");
  auto dx = meshad::differentiate(f, "x");
  auto dy = meshad::differentiate(f, "_d_y");
  for (int I = 0; I < 10; ++I) {
    // x away from 0, where the branch on _cond0 switches.
    double X = Rng.uniform(0.2, 1.5) * (I % 2 ? 1 : -1);
    double Y = Rng.uniform(-1, 1);
    double RefX = centralDifference([&](double V) { return f(V, Y); }, X);
    double RefY = centralDifference([&](double V) { return f(X, V); }, Y);
    double GX = 0, GY = 0;
    g.execute(X, Y, &GX, &GY);
    MESHAD_CHECK_CLOSE("gradient d f/dx", GX, RefX);
    MESHAD_CHECK_CLOSE("gradient d f/d_d_y", GY, RefY);
    MESHAD_CHECK_CLOSE("forward d f/dx", dx.execute(X, Y), RefX);
    MESHAD_CHECK_CLOSE("forward d f/d_d_y", dy.execute(X, Y), RefY);
  }
  return meshad::test::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 40 passed, 0 failed
