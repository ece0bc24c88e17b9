// Reverse mode when values are overwritten: a variable reassigned in a loop
// (x = sin(x) * y, n times: the reverse sweep needs every old x, from a tape
// or by recomputation), a parameter overwritten in place, and array
// elements overwritten several times.
//
// RUN: %clangxx -std=c++17 -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%I -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

double iterate(double x, double y, int n) {
  for (int i = 0; i < n; ++i)
    x = 0.2 * sin(x) * y + x;
  return x * x;
}
// CHECK-LABEL: void iterate_grad(double x, double y, int n, double *_d_x, double *_d_y) {
// CHECK: meshad::push(
// CHECK: x = meshad::pop(

// Overwrites in straight-line code and in a while loop with a run-time
// trip count: each old value of t is needed once.
double chain(double x, double y, int n) {
  double t = x * y;
  t = t * t + x;
  t = exp(-t * t) + y;
  int k = 0;
  while (k < n) {
    t = t * (1.1 + 0.1 * sin(y));
    ++k;
  }
  return t;
}
// CHECK-LABEL: void chain_grad(double x, double y, int n, double *_d_x, double *_d_y) {

// Array elements overwritten: a local array updated in place several times
// (a prefix-product sweep), then reduced.
double prefix(const double *p, int n) {
  double a[8];
  for (int i = 0; i < n; ++i)
    a[i] = p[i];
  for (int pass = 0; pass < 3; ++pass)
    for (int i = 1; i < n; ++i)
      a[i] = a[i] * a[i - 1] + sin(a[i]);
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += a[i] * p[i];
  return s;
}
// CHECK-LABEL: void prefix_grad(const double *p, int n, double *_d_p) {

// A void function overwriting its own array parameter: the adjoint array
// is the seed on entry and the adjoint of the initial contents on exit.
void smoothInPlace(double *v, int n, double w) {
  for (int it = 0; it < 2; ++it)
    for (int i = 1; i < n; ++i)
      v[i] = (1 - w) * v[i] + w * sin(v[i - 1]);
}
// CHECK-LABEL: void smoothInPlace_grad(double *v, int n, double w, double *_d_v, double *_d_w) {

int main() {
  using meshad::test::centralDifference;
  using meshad::test::centralDifferenceAt;
  meshad::test::RandomInputs Rng;
  auto gi = meshad::gradient(iterate, "x, y");
  auto gc = meshad::gradient(chain, "x, y");
  auto gp = meshad::gradient(prefix, "p");
  auto gs = meshad::gradient(smoothInPlace, "v, w");
  for (int I = 0; I < 10; ++I) {
    double X = Rng.uniform(-1, 1), Y = Rng.uniform(0.5, 1.5);
    int N = 1 + 2 * I; // up to 19 overwrites of x
    double DX = 0, DY = 0;
    gi.execute(X, Y, N, &DX, &DY);
    MESHAD_CHECK_CLOSE("d iterate/dx", DX,
        centralDifference([&](double V) { return iterate(V, Y, N); }, X));
    MESHAD_CHECK_CLOSE("d iterate/dy", DY,
        centralDifference([&](double V) { return iterate(X, V, N); }, Y));

    DX = 0, DY = 0;
    gc.execute(X, Y, N, &DX, &DY);
    MESHAD_CHECK_CLOSE("d chain/dx", DX,
        centralDifference([&](double V) { return chain(V, Y, N); }, X));
    MESHAD_CHECK_CLOSE("d chain/dy", DY,
        centralDifference([&](double V) { return chain(X, V, N); }, Y));

    double P[8], DP[8] = {};
    Rng.fill(P, 8, 0.2, 0.9);
    gp.execute(P, 8, DP);
    for (int K = 0; K < 8; ++K)
      MESHAD_CHECK_CLOSE("d prefix/dp[k]", DP[K],
          centralDifferenceAt([&] { return prefix(P, 8); }, P, K));

    // L = sum_i Wt[i] v_final[i]; seed d_v = Wt.
    double V0[6], Wt[6], DV[6], DW = 0, W = Rng.uniform(0.2, 0.8);
    Rng.fill(V0, 6, -1, 1);
    Rng.fill(Wt, 6, -1, 1);
    for (int K = 0; K < 6; ++K)
      DV[K] = Wt[K];
    double VRun[6];
    for (int K = 0; K < 6; ++K)
      VRun[K] = V0[K];
    gs.execute(VRun, 6, W, DV, &DW);
    auto Loss = [&] {
      double T[6];
      for (int K = 0; K < 6; ++K)
        T[K] = V0[K];
      smoothInPlace(T, 6, W);
      double S = 0;
      for (int K = 0; K < 6; ++K)
        S += Wt[K] * T[K];
      return S;
    };
    for (int K = 0; K < 6; ++K)
      MESHAD_CHECK_CLOSE("d smoothInPlace/dv[k]", DV[K],
                         centralDifferenceAt(Loss, V0, K));
    MESHAD_CHECK_CLOSE("d smoothInPlace/dw", DW,
        centralDifference([&](double V) { double S = W; W = V; double R = Loss(); W = S; return R; }, W));
  }
  return meshad::test::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 190 passed, 0 failed
