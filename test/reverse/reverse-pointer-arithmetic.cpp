// Pointer arithmetic on differentiated pointers, in both modes: p += k,
// p -= k, ++p, p++, --p and p = p + 1 move the tangent or adjoint pointer
// alike, and where the reverse sweep restores a pointer from a tape (a loop
// that walks it) it restores the adjoint pointer with it. Issue 9: p += 1,
// ++a and a++ were not mirrored (silently wrong), and in a loop only the
// primal pointer was restored (out-of-bounds adjoint writes).
//
// RUN: %clangxx -std=c++17 -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%I -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

double steps(double *p) {
  double s = 0;
  double *q = p;
  q += 1;
  s += q[0] * q[0];
  ++q;
  s += 3 * q[0] * p[0];
  q++;
  s += sin(*q);
  q -= 2;
  s += q[0] * q[2];
  --q;
  s += q[0] * q[0] * q[0];
  return s;
}
// CHECK-LABEL: double steps_darg0(double *p, double *_d_p) {
// CHECK: _d_q += 1;
// CHECK: ++_d_q;
// CHECK: _d_q -= 2;
// CHECK-LABEL: void steps_grad(double *p, double *_d_p) {
// CHECK: _d_q += 1;
// CHECK: ++_d_q;

// The parameter itself walked in a loop: a = a + 1 and a++.
double walkParam(double *a, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    s += a[0] * a[0] * (i + 1);
    a = a + 1;
    s += sin(a[0]);
    a++;
  }
  return s;
}
// CHECK-LABEL: void walkParam_grad(double *a, int n, double *_d_a) {
// CHECK: _d_a = meshad::pop(
// CHECK: a = meshad::pop(

int main() {
  using meshad::test::centralDifferenceAt;
  meshad::test::RandomInputs Rng;
  auto fs = meshad::differentiate(steps, "p");
  auto gs = meshad::gradient(steps, "p");
  auto fw = meshad::differentiate(walkParam, "a");
  auto gw = meshad::gradient(walkParam, "a");
  for (int I = 0; I < 5; ++I) {
    double P[4], Dir[4], DP[4] = {};
    Rng.fill(P, 4, -1.5, 1.5);
    Rng.fill(Dir, 4, -1, 1);
    gs.execute(P, DP);
    double Jvp = 0;
    for (int K = 0; K < 4; ++K) {
      double Fd = centralDifferenceAt([&] { return steps(P); }, P, K);
      MESHAD_CHECK_CLOSE("rev steps/dp[k]", DP[K], Fd);
      Jvp += Fd * Dir[K];
    }
    MESHAD_CHECK_CLOSE("fwd steps . dir", fs.execute(P, Dir), Jvp);

    double A[8], DirA[8], DA[8] = {};
    Rng.fill(A, 8, -1.5, 1.5);
    Rng.fill(DirA, 8, -1, 1);
    gw.execute(A, 4, DA);
    Jvp = 0;
    for (int K = 0; K < 8; ++K) {
      double Fd = centralDifferenceAt([&] { return walkParam(A, 4); }, A, K);
      MESHAD_CHECK_CLOSE("rev walkParam/da[k]", DA[K], Fd);
      Jvp += Fd * DirA[K];
    }
    MESHAD_CHECK_CLOSE("fwd walkParam . dir", fw.execute(A, 4, DirA), Jvp);
  }
  return meshad::test::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 70 passed, 0 failed
