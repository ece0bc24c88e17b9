// A local pointer to const aliasing active memory (`const double *p = arr;`)
// gets an adjoint pointer to non-const (`double *_d_p = _d_arr;`): the
// reverse sweep adds through it. Also a pointer to an element, one made by
// pointer arithmetic, one reassigned and incremented, and one in a callee
// (its pullback). Both modes, checked
// against central finite differences.
//
// RUN: %clangxx -std=c++17 -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%I -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

double sumSquares(const double *arr, int n) {
  const double *p = arr;
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += p[i] * p[i];
  return s;
}

double tail(const double *v) {
  const double *q = &v[1];
  return q[0] * sin(q[1]);
}

double energy(const double *arr, double k) {
  const double *p = arr;
  const double *r = p + 1;
  double e = k * p[0] * tail(p) + r[0] * r[2];
  p = arr + 1;
  ++p;
  return e + p[0] * p[1];
}

// CHECK-LABEL: void sumSquares_grad(const double *arr, int n, double *_d_arr) {
// CHECK-DAG: const double *p;
// CHECK-DAG: double *_d_p;
// CHECK: _d_p = _d_arr;
// CHECK: _d_p[i] +=
// CHECK-LABEL: void energy_grad(const double *arr, double k, double *_d_arr, double *_d_k) {
// CHECK-DAG: double *_d_p;
// CHECK-DAG: double *_d_r;
// CHECK: _d_r = _d_p + 1;
// CHECK: tail_pullback(p, {{.*}}, _d_p);
// CHECK-LABEL: void tail_pullback(const double *v, double _d_y, double *_d_v) {
// CHECK: double *_d_q;
// CHECK: _d_q = &_d_v[1];
// CHECK-LABEL: double sumSquares_darg0(const double *arr, int n, const double *_d_arr) {

int main() {
  using meshad::test::centralDifferenceAt;
  meshad::test::RandomInputs Rng;
  constexpr int N = 4;
  auto gs = meshad::gradient(sumSquares, "arr");
  auto ge = meshad::gradient(energy, "arr, k");
  auto ds = meshad::differentiate(sumSquares, "arr");
  auto de = meshad::differentiate(energy, "arr");
  for (int Round = 0; Round < 5; ++Round) {
    double A[N], DA[N] = {0, 0, 0, 0}, DE[N] = {0, 0, 0, 0}, DK = 0;
    Rng.fill(A, N, -1.5, 1.5);
    double K = Rng.uniform(0.5, 2);
    gs.execute(A, N, DA);
    ge.execute(A, K, DE, &DK);
    for (int I = 0; I < N; ++I) {
      MESHAD_CHECK_CLOSE("gradient d sumSquares/darr[i]", DA[I],
                         centralDifferenceAt([&] { return sumSquares(A, N); },
                                             A, I));
      double RefE =
          centralDifferenceAt([&] { return energy(A, K); }, A, I);
      MESHAD_CHECK_CLOSE("gradient d energy/darr[i]", DE[I], RefE);
      double Dir[N] = {0, 0, 0, 0};
      Dir[I] = 1;
      MESHAD_CHECK_CLOSE("forward d sumSquares/darr[i]",
                         ds.execute(A, N, Dir), 2 * A[I]);
      MESHAD_CHECK_CLOSE("forward d energy/darr[i]", de.execute(A, K, Dir),
                         RefE);
    }
    MESHAD_CHECK_CLOSE("gradient d energy/dk", DK,
                       meshad::test::centralDifference(
                           [&](double V) { return energy(A, V); }, K));
  }
  return meshad::test::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 85 passed, 0 failed
