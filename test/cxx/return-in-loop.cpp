// A return inside a loop (issue 13), in both modes: lowered as hand-written
// code would leave the loops, `result = v; returned = true; break;` and
// `if (returned) return result;` after the loop (`if (returned) break;`
// after an inner one), which reverse mode differentiates like any break.
// Against central differences on both sides of each return.
//
// RUN: %clangxx -std=c++17 -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%I -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

double firstLarge(const double *x, int n, double a) {
  double s = 0;
  for (int i = 0; i < n; ++i) {
    s += a * x[i] * x[i];
    for (int j = 0; j < 2; ++j)
      if (s > 2.5 + j)
        return s * sin(a);
    if (s < -1)
      return -s;
  }
  return s + a;
}
// CHECK-LABEL: double firstLarge_darg2(const double *x, int n, double a) {
// CHECK:   bool returned = false;
// CHECK:         returned = true;
// CHECK-NEXT:        break;
// CHECK:     if (returned) {
// CHECK-NEXT:       break;
// CHECK:   if (returned) {
// CHECK-NEXT:     return _d_result;
// CHECK-LABEL: void firstLarge_grad(const double *x, int n, double a, double *_d_x, double *_d_a) {

void scale(double *v, int n, double a) {
  for (int i = 0; i < n; ++i) {
    if (v[i] > 1.5)
      return;
    v[i] *= a;
  }
}
// CHECK-LABEL: void scale_grad(double *v, int n, double a, double *_d_v, double *_d_a) {
// The flag's test after the loop returns nothing in a void function: the
// simplifier drops it, and then the flag.
// CHECK-NOT: returned

int main() {
  using meshad::test::centralDifference;
  meshad::test::RandomInputs Rng;
  const int N = 4;
  auto fa = meshad::differentiate(firstLarge, "a");
  auto g = meshad::gradient(firstLarge, "x, a");
  auto gs = meshad::gradient(scale, "v, a");
  int Checked = 0;
  while (Checked < 10) {
    double X[N], A = Rng.uniform(0.2, 2);
    Rng.fill(X, N, -1.5, 1.5);
    // Away from where the sums cross the thresholds.
    bool Near = false;
    double S = 0;
    for (int I = 0; I < N; ++I) {
      S += A * X[I] * X[I];
      Near |= std::fabs(S - 2.5) < 0.05 || std::fabs(S - 3.5) < 0.05;
    }
    if (Near)
      continue;
    ++Checked;
    double Fd = centralDifference(
        [&](double V) { return firstLarge(X, N, V); }, A);
    MESHAD_CHECK_CLOSE("fwd d/da", fa.execute(X, N, A), Fd);
    double DX[N] = {}, DA = 0;
    g.execute(X, N, A, DX, &DA);
    MESHAD_CHECK_CLOSE("rev d/da", DA, Fd);
    for (int I = 0; I < N; ++I) {
      double FdX = meshad::test::centralDifferenceAt(
          [&] { return firstLarge(X, N, A); }, X, I);
      MESHAD_CHECK_CLOSE("rev d/dx", DX[I], FdX);
    }
    // scale: the gradient of sum_i w_i v_i (after) w.r.t. v and a.
    double V[N], W[N], DV[N];
    Rng.fill(V, N, 0, 2);
    Rng.fill(W, N, 0.5, 1);
    bool NearV = false;
    for (int I = 0; I < N; ++I)
      NearV |= std::fabs(V[I] - 1.5) < 0.05;
    if (NearV)
      continue;
    auto Loss = [&] {
      double Copy[N];
      for (int I = 0; I < N; ++I)
        Copy[I] = V[I];
      scale(Copy, N, A);
      double L = 0;
      for (int I = 0; I < N; ++I)
        L += W[I] * Copy[I];
      return L;
    };
    double FdA = centralDifference(
        [&](double B) {
          double Saved = A;
          A = B;
          double L = Loss();
          A = Saved;
          return L;
        },
        A);
    double Copy[N];
    for (int I = 0; I < N; ++I) {
      Copy[I] = V[I];
      DV[I] = W[I];
    }
    DA = 0;
    gs.execute(Copy, N, A, DV, &DA);
    MESHAD_CHECK_CLOSE("rev scale d/da", DA, FdA);
    for (int I = 0; I < N; ++I)
      MESHAD_CHECK_CLOSE("rev scale d/dv",
                         DV[I], meshad::test::centralDifferenceAt(Loss, V, I));
  }
  return meshad::test::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
