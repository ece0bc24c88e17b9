// thrust::for_each over counting iterators with a lambda that writes
// through the pointers it captures (issue 15): y[i] = a f(x[i]) for every
// index, then an in-place update of y over [1, n) that reads a neighbour
// of x, then a reduction. Reverse mode snapshots the captured buffers
// before each for_each, puts them back around the adjoint and calls the
// lambda's pullback for every index with the captured pointers' adjoints
// (the captured number a: one slot per index, summed);
// forward mode replaces each for_each by its lambda's pushforward (values
// and tangents). Both are checked against central differences.
//
// REQUIRES: thrust
// RUN: %clangxx %cpu_thrust_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include <thrust/execution_policy.h>
#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/reduce.h>

#include "ThrustCheck.h"
#include <meshad/Differentiator.h>


__host__ __device__ double wave(double v) { return sin(v) * v + 0.5 * v; }

/// y[i] = a wave(x[i]); y[i] = y[i] cos(x[i]) + x[i-1]^2 for i >= 1;
/// E = the sum of y.
double energy(const double *x, double *y, int n, double a) {
  thrust::for_each(thrust::device, thrust::counting_iterator<int>(0),
                   thrust::counting_iterator<int>(n),
                   [=] HD(int i) { y[i] = a * wave(x[i]); });
  auto couple = [=] HD(int i) {
    y[i] = y[i] * cos(x[i]) + x[i - 1] * x[i - 1];
  };
  thrust::for_each(thrust::device, thrust::make_counting_iterator(1),
                   thrust::make_counting_iterator(n), couple);
  return thrust::reduce(thrust::device, y, y + n, 0.0);
}
// CHECK-LABEL: void energy_grad(const double *x, double *y, int n, double a, double *_d_x, double *_d_y, double *_d_a) {
// CHECK: meshad::thrust_ad::snapshot(_t0, y);
// CHECK-NEXT: meshad::thrust_ad::snapshot(_t1, x);
// CHECK-NEXT: thrust::for_each(thrust::device, thrust::make_counting_iterator(0), thrust::make_counting_iterator(n), [=] MESHAD_THRUST_LAMBDA (int i) { lambda(y, a, x, i); });
// CHECK-NEXT: meshad::thrust_ad::snapshot(_t2, y);
// CHECK-NEXT: meshad::thrust_ad::snapshot(_t3, x);
// CHECK-NEXT: thrust::for_each(thrust::device, thrust::make_counting_iterator(1), thrust::make_counting_iterator(n), [=] MESHAD_THRUST_LAMBDA (int i) { couple_lambda(y, x, i); });
// CHECK-NEXT: meshad::thrust_ad::reduceAdjoint(n, 1., _d_y);
// CHECK-NEXT: meshad::thrust_ad::restore(_t2, y);
// CHECK-NEXT: meshad::thrust_ad::restore(_t3, x);
// CHECK-NEXT: meshad::thrust_ad::forEachAdjointBy(n - 1, 1, [=] MESHAD_THRUST_LAMBDA (int i, double *_d_y, double *_d_x) { couple_lambda_pullback(y, x, i, _d_y, _d_x); }, _d_y, _d_x);
// CHECK-NEXT: meshad::thrust_ad::restore(_t2, y);
// CHECK-NEXT: meshad::thrust_ad::restore(_t3, x);
// CHECK-NEXT: double _r0 = 0.;
// CHECK-NEXT: meshad::thrust_ad::restore(_t0, y);
// CHECK-NEXT: meshad::thrust_ad::restore(_t1, x);
// CHECK-NEXT: meshad::thrust_ad::forEachAdjointBy(n, 0, [=] MESHAD_THRUST_LAMBDA (int i, double *_d_y, double *_d_a, double *_d_x) { lambda_pullback(y, a, x, i, _d_y, _d_a, _d_x); }, _d_y, meshad::thrust_ad::sumInto(&_r0, n), _d_x);
// CHECK-NEXT: *_d_a += _r0;
// CHECK-NEXT: meshad::thrust_ad::restore(_t0, y);
// CHECK-NEXT: meshad::thrust_ad::restore(_t1, x);
// CHECK-LABEL: inline void lambda_pullback(double *y, double a, const double *x, int i, double *_d_y, double *_d_a, double *_d_x) {
// CHECK: *_d_a += _r2 * _t0;
// CHECK: _d_y[i] = 0.;
// CHECK-LABEL: __host__ __device__ void wave_pullback(double v, double _d_y, double *_d_v) {
// CHECK-LABEL: inline void couple_lambda_pullback(double *y, const double *x, int i, double *_d_y, double *_d_x) {
// CHECK-LABEL: double energy_darg0(const double *x, double *y, int n, double a, const double *_d_x, double *_d_y) {
// CHECK-NEXT: meshad::thrust_ad::forEachTangentBy(n, 0, [=] MESHAD_THRUST_LAMBDA (int i, double *_d_y, const double *_d_x) { lambda_pushforward_0_2(y, a, x, i, _d_y, _d_x); }, _d_y, _d_x);
// CHECK-NEXT: meshad::thrust_ad::forEachTangentBy(n - 1, 1, [=] MESHAD_THRUST_LAMBDA (int i, double *_d_y, const double *_d_x) { couple_lambda_pushforward(y, x, i, _d_y, _d_x); }, _d_y, _d_x);
// CHECK-NEXT: return thrust::reduce(thrust::device, _d_y, _d_y + n, 0.);
// CHECK-LABEL: inline void lambda_pushforward_0_2(double *y, double a, const double *x, int i, double *_d_y, const double *_d_x) {
// CHECK-LABEL: __host__ __device__ meshad::ValueAndPushforward<double, double> wave_pushforward(double v, double _d_v) {
// CHECK-LABEL: inline void couple_lambda_pushforward(double *y, const double *x, int i, double *_d_y, const double *_d_x) {
// CHECK-NEXT: double _t0 = cos(x[i]);
// CHECK-NEXT: _d_y[i] = _d_y[i] * _t0 + y[i] * (-sin(x[i]) * _d_x[i]) + (double)(2. * _d_x[i - 1] * x[i - 1]);
// CHECK-NEXT: y[i] = y[i] * _t0 + x[i - 1] * x[i - 1];
// CHECK-LABEL: double energy_darg3(const double *x, double *y, int n, double a, double *_d_y) {
// CHECK: meshad::thrust_ad::forEachTangentBy(n, 0, [=] MESHAD_THRUST_LAMBDA (int i, double *_d_y, double _d_a) { lambda_pushforward_0_1(y, a, x, i, _d_y, _d_a); }, _d_y, _d_a);
// CHECK-LABEL: inline void lambda_pushforward_0_1(double *y, double a, const double *x, int i, double *_d_y, double _d_a) {
// CHECK-LABEL: inline void couple_lambda_pushforward_0(double *y, const double *x, int i, double *_d_y) {
// CHECK-LABEL: inline void lambda(double *y, double a, const double *x, int i) {
// CHECK-LABEL: inline void couple_lambda(double *y, const double *x, int i) {

namespace mt = meshad::test;

int main() {
  const int N = 29;
  mt::RandomInputs Rng;
  double *X = mt::managed<double>(N), *V = mt::managed<double>(N);
  double *Y = mt::managed<double>(N), *DX = mt::managed<double>(N);
  double *DY = mt::managed<double>(N);
  Rng.fill(X, N, -1.0, 1.0);
  Rng.fill(V, N, -1.0, 1.0);
  double A = Rng.uniform(0.5, 1.5);

  for (int I = 0; I < N; ++I)
    DX[I] = DY[I] = 0;
  double DA = 0;
  auto G = meshad::gradient(energy, "x, y, a");
  G.execute(X, Y, N, A, DX, DY, &DA);
  for (int I = 0; I < N; ++I)
    MESHAD_CHECK_CLOSE("reverse: dE/dx", DX[I],
                       mt::centralDifferenceAt(
                           [&] { return energy(X, Y, N, A); }, X, I));
  MESHAD_CHECK_CLOSE("reverse: dE/da", DA, mt::centralDifference(
      [&](double H) { return energy(X, Y, N, H); }, A));
  // y is overwritten before it is read: no derivative in its contents.
  int Nonzero = 0;
  for (int I = 0; I < N; ++I)
    Nonzero += DY[I] != 0;
  MESHAD_CHECK_CLOSE("reverse: dE/dy is zero", double(Nonzero), 0.0);

  auto F = meshad::differentiate(energy, "x");
  double Got = F.execute(X, Y, N, A, V, DY);
  double Fd = mt::directionalDifference(
      [&](const double *P) { return energy(P, Y, N, A); }, X, V, N);
  MESHAD_CHECK_CLOSE("forward: dE/dx . v", Got, Fd);
  auto FA = meshad::differentiate(energy, "a");
  MESHAD_CHECK_CLOSE("forward: dE/da", FA.execute(X, Y, N, A, DY), DA);
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 33 passed, 0 failed
