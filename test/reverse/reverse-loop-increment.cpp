// For-loops whose increment or initializer updates a derivative-carrying
// value or a pointer, in both modes: the increment becomes the body's last
// statement (and runs before each continue), the initializer runs before
// the loop. Issue 9: reverse mode dropped the increment's adjoint (gradient
// 0) and forward mode rejected the loop.
//
// RUN: %clangxx -std=c++17 -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%I -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
// The code as the transformer builds it (before the simplifier):
// RUN: %clangxx -std=c++17 -fsyntax-only -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -fplugin-arg-meshad-no-simplify -I%I -I%test_inputs %s 2> %t.raw.dump
// RUN: FileCheck %s --check-prefix=RAW < %t.raw.dump
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

// The case: t *= x in the increment, the counter in the body.
double incProduct(double x) {
  double t = 1;
  for (int i = 0; i < 3; t *= x)
    i++;
  return t;
}
// CHECK-LABEL: double incProduct_darg0(double x) {
// CHECK: _d_t = _d_t * x + t;
// RAW-LABEL: double incProduct_darg0(double x) {
// RAW: _d_t = _d_t * x + t * _d_x;
// CHECK-LABEL: void incProduct_grad(double x, double *_d_x) {
// CHECK: meshad::push(

// continue must still run the increment; break must not.
double incContinue(double x, double y, int n) {
  double s = 0, t = x;
  int i = 0;
  for (; i < n; t = sin(t) * y + x) {
    ++i;
    if (i % 3 == 0)
      continue;
    s += t * t;
    if (i > 7)
      break;
  }
  return s + t;
}
// CHECK-LABEL: double incContinue_darg1(double x, double y, int n) {
// CHECK-LABEL: void incContinue_grad(double x, double y, int n, double *_d_x, double *_d_y) {

// An active initializer.
double initActive(double x, double y) {
  double t, s = 0;
  int k = 0;
  for (t = x * y; k < 4; t = t * x + y) {
    s += t;
    ++k;
  }
  return s;
}
// CHECK-LABEL: double initActive_darg0(double x, double y) {
// CHECK-LABEL: void initActive_grad(double x, double y, double *_d_x, double *_d_y) {

// A pointer walked by the increment.
double walk(double *p, int n) {
  double s = 0;
  for (double *q = p; q < p + n; ++q)
    s += q[0] * q[0] * p[0];
  return s;
}
// CHECK-LABEL: double walk_darg0(double *p, int n, double *_d_p) {
// CHECK: ++_d_q;
// CHECK-LABEL: void walk_grad(double *p, int n, double *_d_p) {

int main() {
  using meshad::test::centralDifference;
  using meshad::test::centralDifferenceAt;
  meshad::test::RandomInputs Rng;
  auto fp = meshad::differentiate(incProduct, "x");
  auto gp = meshad::gradient(incProduct, "x");
  auto fc = meshad::differentiate(incContinue, "y");
  auto gc = meshad::gradient(incContinue, "x, y");
  auto fi = meshad::differentiate(initActive, "x");
  auto gi = meshad::gradient(initActive, "x, y");
  auto fw = meshad::differentiate(walk, "p");
  auto gw = meshad::gradient(walk, "p");
  for (int I = 0; I < 5; ++I) {
    double X = Rng.uniform(-1.5, 1.5), Y = Rng.uniform(-1, 1);
    int N = 3 + 2 * I;
    double Fd = centralDifference([&](double V) { return incProduct(V); }, X);
    MESHAD_CHECK_CLOSE("fwd incProduct/dx", fp.execute(X), Fd);
    double DX = 0, DY = 0;
    gp.execute(X, &DX);
    MESHAD_CHECK_CLOSE("rev incProduct/dx", DX, Fd);

    double FdX = centralDifference(
        [&](double V) { return incContinue(V, Y, N); }, X);
    double FdY = centralDifference(
        [&](double V) { return incContinue(X, V, N); }, Y);
    MESHAD_CHECK_CLOSE("fwd incContinue/dy", fc.execute(X, Y, N), FdY);
    DX = DY = 0;
    gc.execute(X, Y, N, &DX, &DY);
    MESHAD_CHECK_CLOSE("rev incContinue/dx", DX, FdX);
    MESHAD_CHECK_CLOSE("rev incContinue/dy", DY, FdY);

    FdX = centralDifference([&](double V) { return initActive(V, Y); }, X);
    FdY = centralDifference([&](double V) { return initActive(X, V); }, Y);
    MESHAD_CHECK_CLOSE("fwd initActive/dx", fi.execute(X, Y), FdX);
    DX = DY = 0;
    gi.execute(X, Y, &DX, &DY);
    MESHAD_CHECK_CLOSE("rev initActive/dx", DX, FdX);
    MESHAD_CHECK_CLOSE("rev initActive/dy", DY, FdY);

    double P[6], Dir[6], DP[6] = {};
    Rng.fill(P, 6, -1, 1);
    Rng.fill(Dir, 6, -1, 1);
    gw.execute(P, 5, DP);
    double Jvp = 0;
    for (int K = 0; K < 6; ++K) {
      double Fd = centralDifferenceAt([&] { return walk(P, 5); }, P, K);
      MESHAD_CHECK_CLOSE("rev walk/dp[k]", DP[K], Fd);
      Jvp += Fd * Dir[K];
    }
    MESHAD_CHECK_CLOSE("fwd walk . dir", fw.execute(P, 5, Dir), Jvp);
  }
  return meshad::test::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 75 passed, 0 failed
