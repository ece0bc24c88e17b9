// User functors and lambdas passed to Thrust primitives (issue 15): the
// operation of thrust::transform (unary or binary) and the unary one of
// thrust::transform_reduce may be
// a functor struct with a __host__ __device__ operator() or a lambda that
// captures numbers. Reverse mode calls the operator()'s pullback, generated
// like any callee's, over the saved inputs and the seed, and sums the
// captures' adjoints over the elements; forward mode calls its pushforward
// with the captures' tangents. Each derivative is checked against central
// differences: gradients in every input and capture, tangents along x and
// in a capture.
//
// REQUIRES: thrust
// RUN: %clangxx %cpu_thrust_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/transform.h>
#include <thrust/transform_reduce.h>

#include "ThrustCheck.h"
#include <meshad/Differentiator.h>


struct Wave {
  double w;
  __host__ __device__ double operator()(double v) const {
    return sin(w * v) + v * v;
  }
};

/// y = Wave(x) (y: a work buffer), y = mix(x, y) in place (a binary lambda
/// that captures a), then E = the sum of a y^2 + exp(b y) / k over y (a
/// lambda that captures a, b and the integer k), plus c.
double energy(const double *x, double *y, int n, double a, double b,
              double c) {
  thrust::transform(thrust::device, x, x + n, y, Wave{1.5});
  auto mix = [=] HD(double u, double w) { return w * cos(u) + a * u; };
  thrust::transform(thrust::device, x, x + n, y, y, mix);
  int k = 2;
  auto term = [=] HD(double v) { return a * v * v + exp(b * v) / k; };
  return thrust::transform_reduce(thrust::device, y, y + n, term, c,
                                  thrust::plus<double>());
}
// CHECK-LABEL: void energy_grad(const double *x, double *y, int n, double a, double b, double c, double *_d_x, double *_d_y, double *_d_a, double *_d_b, double *_d_c) {
// CHECK: meshad::thrust_ad::save(_t1, x, n);
// CHECK-NEXT: thrust::transform(thrust::device, x, x + n, y, _t0);
// CHECK-NEXT: meshad::thrust_ad::save(_t2, x, n);
// CHECK-NEXT: meshad::thrust_ad::save(_t3, y, n);
// CHECK-NEXT: thrust::transform(thrust::device, x, x + n, y, y, [=] MESHAD_THRUST_LAMBDA (double u, double w) { return mix_lambda(a, u, w); });
// CHECK: double _r1 = 0.;
// CHECK-NEXT: double _r2 = 0.;
// CHECK-NEXT: *_d_c += meshad::thrust_ad::transformReduceAdjointBy(n, 1., _d_y, [=] MESHAD_THRUST_LAMBDA (double v, double _d_y, double *_d_a, double *_d_b, double *_d_v) { term_lambda_pullback(a, b, k, v, _d_y, _d_a, _d_b, _d_v); }, thrust::plus<double>(), _t4, &_r1, &_r2);
// CHECK-NEXT: *_d_a += _r1;
// CHECK-NEXT: *_d_b += _r2;
// CHECK-NEXT: double _r0 = 0.;
// CHECK-NEXT: meshad::thrust_ad::binaryTransformAdjointBy(n, _d_x, _d_y, _d_y, [=] MESHAD_THRUST_LAMBDA (double u, double w, double _d_y, double *_d_a, double *_d_u, double *_d_w) { mix_lambda_pullback(a, u, w, _d_y, _d_a, _d_u, _d_w); }, _t2, _t3, &_r0);
// CHECK-NEXT: *_d_a += _r0;
// CHECK-NEXT: meshad::thrust_ad::transformAdjointBy(n, _d_x, _d_y, [=] MESHAD_THRUST_LAMBDA (double v, double _d_y, double *_d_v) { Wave_call_pullback(_t0, v, _d_y, _d_v); }, _t1);
// CHECK-LABEL: __host__ __device__ void Wave_call_pullback(Wave self, double v, double _d_y, double *_d_v) {
// CHECK-LABEL: inline void mix_lambda_pullback(double a, double u, double w, double _d_y, double *_d_a, double *_d_u, double *_d_w) {
// CHECK-LABEL: inline void term_lambda_pullback(double a, double b, int k, double v, double _d_y, double *_d_a, double *_d_b, double *_d_v) {
// CHECK-LABEL: double energy_darg0(const double *x, double *y, int n, double a, double b, double c, const double *_d_x, double *_d_y) {
// CHECK: meshad::thrust_ad::transformTangentBy(n, x, _d_x, _d_y, [=] MESHAD_THRUST_LAMBDA (double v, double _d_v) { return Wave_call_pushforward(_t0, v, _d_v); });
// CHECK-NEXT: thrust::transform(thrust::device, x, x + n, y, _t0);
// CHECK-NEXT: meshad::thrust_ad::binaryTransformTangentBy(n, x, _d_x, y, _d_y, _d_y, [=] MESHAD_THRUST_LAMBDA (double u, double w, double _d_u, double _d_w) { return mix_lambda_pushforward_1_2(a, u, w, _d_u, _d_w); });
// CHECK-NEXT: thrust::transform(thrust::device, x, x + n, y, y, [=] MESHAD_THRUST_LAMBDA (double u, double w) { return mix_lambda(a, u, w); });
// CHECK: return meshad::thrust_ad::transformReduceTangentBy(n, y, _d_y, [=] MESHAD_THRUST_LAMBDA (double v, double _d_v) { return term_lambda_pushforward_3(a, b, k, v, _d_v); }, 0., thrust::plus<double>());
// CHECK-LABEL: __host__ __device__ meshad::ValueAndPushforward<double, double> Wave_call_pushforward(Wave self, double v, double _d_v) {
// CHECK-LABEL: inline meshad::ValueAndPushforward<double, double> mix_lambda_pushforward_1_2(double a, double u, double w, double _d_u, double _d_w) {
// CHECK-LABEL: inline meshad::ValueAndPushforward<double, double> term_lambda_pushforward_3(double a, double b, int k, double v, double _d_v) {
// CHECK-LABEL: double energy_darg3(const double *x, double *y, int n, double a, double b, double c, double *_d_y) {
// CHECK: thrust::transform(thrust::device, x, x + n, y, _t0);
// CHECK-NEXT: thrust::fill(thrust::device, _d_y, _d_y + n, 0.);
// CHECK-NEXT: meshad::thrust_ad::binaryTransformTangentBy(n, x, nullptr, y, _d_y, _d_y, [=] MESHAD_THRUST_LAMBDA (double u, double w, double _d_a, double _d_u, double _d_w) { return mix_lambda_pushforward(a, u, w, _d_a, _d_u, _d_w); }, _d_a);
// CHECK: return meshad::thrust_ad::transformReduceTangentBy(n, y, _d_y, [=] MESHAD_THRUST_LAMBDA (double v, double _d_a, double _d_v) { return term_lambda_pushforward_0_3(a, b, k, v, _d_a, _d_v); }, 0., thrust::plus<double>(), _d_a);
// CHECK-LABEL: inline meshad::ValueAndPushforward<double, double> mix_lambda_pushforward(double a, double u, double w, double _d_a, double _d_u, double _d_w) {
// CHECK-LABEL: inline meshad::ValueAndPushforward<double, double> term_lambda_pushforward_0_3(double a, double b, int k, double v, double _d_a, double _d_v) {
// CHECK-LABEL: inline double mix_lambda(double a, double u, double w) {
// CHECK-LABEL: inline double term_lambda(double a, double b, int k, double v) {

namespace mt = meshad::test;

int main() {
  const int N = 23;
  mt::RandomInputs Rng;
  double *X = mt::managed<double>(N), *V = mt::managed<double>(N);
  double *Y = mt::managed<double>(N), *DX = mt::managed<double>(N);
  double *DY = mt::managed<double>(N);
  Rng.fill(X, N, -1.0, 1.0);
  Rng.fill(V, N, -1.0, 1.0);
  double A = Rng.uniform(0.5, 1.5), B = Rng.uniform(-0.5, 0.5);
  double C = Rng.uniform(-1.0, 1.0);

  for (int I = 0; I < N; ++I)
    DX[I] = DY[I] = 0;
  double DA = 0, DB = 0, DC = 0;
  auto G = meshad::gradient(energy, "x, y, a, b, c");
  G.execute(X, Y, N, A, B, C, DX, DY, &DA, &DB, &DC);
  for (int I = 0; I < N; ++I)
    MESHAD_CHECK_CLOSE("reverse: dE/dx", DX[I],
                       mt::centralDifferenceAt(
                           [&] { return energy(X, Y, N, A, B, C); }, X, I));
  MESHAD_CHECK_CLOSE("reverse: dE/da", DA, mt::centralDifference(
      [&](double H) { return energy(X, Y, N, H, B, C); }, A));
  MESHAD_CHECK_CLOSE("reverse: dE/db", DB, mt::centralDifference(
      [&](double H) { return energy(X, Y, N, A, H, C); }, B));
  MESHAD_CHECK_CLOSE("reverse: dE/dc", DC, 1.0);

  auto FX = meshad::differentiate(energy, "x");
  double Got = FX.execute(X, Y, N, A, B, C, V, DY);
  double Fd = mt::directionalDifference(
      [&](const double *P) { return energy(P, Y, N, A, B, C); }, X, V, N);
  MESHAD_CHECK_CLOSE("forward: dE/dx . v", Got, Fd);
  auto FA = meshad::differentiate(energy, "a");
  MESHAD_CHECK_CLOSE("forward: dE/da", FA.execute(X, Y, N, A, B, C, DY), DA);
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 28 passed, 0 failed
