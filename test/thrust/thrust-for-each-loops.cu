// thrust::for_each inside loops (issue 15): the reverse sweep needs each
// iteration's captured buffers as that iteration's call found them, so the
// forward sweep pushes one snapshot per iteration and buffer
// (meshad::thrust_ad::SnapshotStack), and the reverse sweep, running the
// iterations backwards, puts the top back before and after the lambda's
// pullback and pops it. Forward mode needs no snapshots. Checked against
// central differences: the gradient in x, the initial y and c; a tangent
// along x.
//
// REQUIRES: thrust
// RUN: %clangxx %cpu_thrust_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include <thrust/execution_policy.h>
#include <thrust/for_each.h>
#include <thrust/functional.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/transform_reduce.h>

#include "ThrustCheck.h"
#include <meshad/Differentiator.h>

/// k steps of y[i] = y[i] cos(w x[i]) + c x[i] in place, w = 1 + s / 4 at
/// step s; E = the sum of y^2.
double steps(const double *x, double *y, int n, double c, int k) {
  for (int s = 0; s < k; ++s) {
    const double w = 1.0 + 0.25 * s;
    thrust::for_each(thrust::device, thrust::make_counting_iterator(0),
                     thrust::make_counting_iterator(n), [=] HD(int i) {
                       y[i] = y[i] * cos(w * x[i]) + c * x[i];
                     });
  }
  return thrust::transform_reduce(thrust::device, y, y + n,
                                  thrust::square<double>(), 0.0,
                                  thrust::plus<double>());
}

// CHECK-LABEL: void steps_grad(const double *x, double *y, int n, double c, int k, double *_d_x, double *_d_y, double *_d_c) {
// CHECK: meshad::thrust_ad::SnapshotStack _t0;
// CHECK: for (s = 0; s < k; ++s) {
// CHECK: meshad::thrust_ad::snapshotPush(_t0, y);
// CHECK-NEXT: meshad::thrust_ad::snapshotPush(_t1, x);
// CHECK-NEXT: thrust::for_each(thrust::device, thrust::make_counting_iterator(0), thrust::make_counting_iterator(n), [=] MESHAD_THRUST_LAMBDA (int i) { lambda(y, w, x, c, i); });
// CHECK: for (; _cnt0 > 0; --_cnt0) {
// CHECK: meshad::thrust_ad::restoreTop(_t0, y);
// CHECK-NEXT: meshad::thrust_ad::restoreTop(_t1, x);
// CHECK-NEXT: meshad::thrust_ad::forEachAdjointBy(n, 0, [=] MESHAD_THRUST_LAMBDA (int i, double *_d_y, double *_d_x, double *_d_c) { lambda_pullback_0_2_3(y, w, x, c, i, _d_y, _d_x, _d_c); }, _d_y, _d_x, meshad::thrust_ad::sumInto(&_r0, n));
// CHECK-NEXT: *_d_c += _r0;
// CHECK-NEXT: meshad::thrust_ad::restorePop(_t0, y);
// CHECK-NEXT: meshad::thrust_ad::restorePop(_t1, x);
// CHECK-LABEL: inline void lambda_pullback_0_2_3(double *y, double w, const double *x, double c, int i, double *_d_y, double *_d_x, double *_d_c) {
// CHECK-LABEL: double steps_darg0(const double *x, double *y, int n, double c, int k, const double *_d_x, double *_d_y) {
// CHECK-NOT: snapshot
// CHECK: meshad::thrust_ad::forEachTangentBy(n, 0,
// CHECK-LABEL: inline void lambda_pushforward_0_2(double *y, double w, const double *x, double c, int i, double *_d_y, const double *_d_x) {

namespace mt = meshad::test;

int main() {
  const int N = 17, K = 3;
  mt::RandomInputs Rng;
  double *X = mt::managed<double>(N), *Y0 = mt::managed<double>(N);
  double *Y = mt::managed<double>(N), *V = mt::managed<double>(N);
  double *DX = mt::managed<double>(N), *DY = mt::managed<double>(N);
  Rng.fill(X, N, -1.0, 1.0);
  Rng.fill(Y0, N, -1.0, 1.0);
  Rng.fill(V, N, -1.0, 1.0);
  double C = Rng.uniform(0.5, 1.5);
  // The primal at (x, y0, c): y is overwritten, so each run starts from y0.
  auto E = [&](const double *XP, const double *YP, double CP) {
    std::copy(YP, YP + N, Y);
    return steps(XP, Y, N, CP, K);
  };

  std::copy(Y0, Y0 + N, Y);
  std::fill(DX, DX + N, 0.0);
  std::fill(DY, DY + N, 0.0);
  double DC = 0;
  auto G = meshad::gradient(steps, "x, y, c");
  G.execute(X, Y, N, C, K, DX, DY, &DC);
  for (int I = 0; I < N; ++I) {
    MESHAD_CHECK_CLOSE("reverse: dE/dx", DX[I], mt::centralDifferenceAt(
        [&] { return E(X, Y0, C); }, X, I));
    MESHAD_CHECK_CLOSE("reverse: dE/dy0", DY[I], mt::centralDifferenceAt(
        [&] { return E(X, Y0, C); }, Y0, I));
  }
  MESHAD_CHECK_CLOSE("reverse: dE/dc", DC, mt::centralDifference(
      [&](double H) { return E(X, Y0, H); }, C));

  auto FX = meshad::differentiate(steps, "x");
  std::copy(Y0, Y0 + N, Y);
  std::fill(DY, DY + N, 0.0);
  double Got = FX.execute(X, Y, N, C, K, V, DY);
  MESHAD_CHECK_CLOSE("forward: dE/dx . v", Got, mt::directionalDifference(
      [&](const double *P) { return E(P, Y0, C); }, X, V, N));
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 36 passed, 0 failed
