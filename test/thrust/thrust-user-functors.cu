// User functors and lambdas passed to Thrust primitives (issue 15): the
// unary operation of thrust::transform and thrust::transform_reduce may be
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

#include "KernelCheck.h"
#include "NumericCheck.h"
#include <meshad/Differentiator.h>
#include <vector>

// The lambdas run on the device: __host__ __device__ there (CUDA), nothing
// under the CPU emulation.
#if defined(__CUDACC__)
#define HD __host__ __device__
#else
#define HD
#endif

struct Wave {
  double w;
  __host__ __device__ double operator()(double v) const {
    return sin(w * v) + v * v;
  }
};

/// y = Wave(x), then E = sum of a y^2 + exp(b y) over y (a lambda that
/// captures a, b and the integer k), plus c.
double energy(const double *xHost, int n, double a, double b, double c) {
  double *x, *y;
  cudaMalloc(&x, n * sizeof(double));
  cudaMalloc(&y, n * sizeof(double));
  cudaMemcpy(x, xHost, n * sizeof(double), cudaMemcpyHostToDevice);
  thrust::transform(thrust::device, x, x + n, y, Wave{1.5});
  int k = 2;
  auto term = [=] HD(double v) { return a * v * v + exp(b * v) / k; };
  double s = thrust::transform_reduce(thrust::device, y, y + n, term, c,
                                      thrust::plus<double>());
  cudaFree(x);
  cudaFree(y);
  return s;
}
// CHECK-LABEL: void energy_grad(const double *xHost, int n, double a, double b, double c, double *_d_xHost, double *_d_a, double *_d_b, double *_d_c) {
// CHECK: thrust::transform(thrust::device, x, x + n, y, _t1);
// CHECK: s = thrust::transform_reduce(thrust::device, y, y + n, [=] MESHAD_THRUST_LAMBDA (double v) { return term_lambda(a, b, k, v); }, c, thrust::plus<double>());
// CHECK: *_d_c += meshad::thrust_ad::transformReduceAdjointBy(n, _d_s, _d_y, [=] MESHAD_THRUST_LAMBDA (double v, double _d_y_1, double *_d_a, double *_d_b, double *_d_v) { term_lambda_pullback(a, b, k, v, _d_y_1, _d_a, _d_b, _d_v); }, thrust::plus<double>(), _t3, &_r0, &_r1);
// CHECK: meshad::thrust_ad::transformAdjointBy(n, _d_x, _d_y, [=] MESHAD_THRUST_LAMBDA (double v, double _d_y_1, double *_d_v) { Wave_call_pullback(_t1, v, _d_y_1, _d_v); }, _t0);
// CHECK-LABEL: double energy_darg0(const double *xHost, int n, double a, double b, double c, const double *_d_xHost) {
// CHECK: meshad::thrust_ad::transformTangentBy(n, x, _d_x, _d_y, [=] MESHAD_THRUST_LAMBDA (double v, double _d_v) { return Wave_call_pushforward(_t0, v, _d_v); });
// CHECK-NEXT: thrust::transform(thrust::device, x, x + n, y, _t0);
// CHECK: double _d_s = meshad::thrust_ad::transformReduceTangentBy(n, y, _d_y, [=] MESHAD_THRUST_LAMBDA (double v, double _d_v) { return term_lambda_pushforward(a, b, k, v, _d_v); }, 0., thrust::plus<double>());
// CHECK-LABEL: double energy_darg2(const double *xHost, int n, double a, double b, double c) {
// CHECK: double _d_s = meshad::thrust_ad::transformReduceTangentBy(n, y, nullptr, [=] MESHAD_THRUST_LAMBDA (double v, double _d_a, double _d_v) { return term_lambda_pushforward_1(a, b, k, v, _d_a, _d_v); }, 0., thrust::plus<double>(), 1.);

namespace mt = meshad::test;

int main() {
  const int N = 23;
  mt::RandomInputs Rng;
  std::vector<double> X(N), V(N), DX(N, 0.0);
  Rng.fill(X.data(), N, -1.0, 1.0);
  Rng.fill(V.data(), N, -1.0, 1.0);
  double A = Rng.uniform(0.5, 1.5), B = Rng.uniform(-0.5, 0.5);
  double C = Rng.uniform(-1.0, 1.0);

  auto Loss = [&] { return energy(X.data(), N, A, B, C); };
  std::vector<double> Ref = mt::fdGradient(Loss, X.data(), N);
  double DA = 0, DB = 0, DC = 0;
  auto G = meshad::gradient(energy, "xHost, a, b, c");
  G.execute(X.data(), N, A, B, C, DX.data(), &DA, &DB, &DC);
  mt::checkArray("reverse: dE/dx", DX.data(), Ref.data(), N);
  MESHAD_CHECK_CLOSE("reverse: dE/da", DA, mt::centralDifference(
      [&](double H) { return energy(X.data(), N, H, B, C); }, A));
  MESHAD_CHECK_CLOSE("reverse: dE/db", DB, mt::centralDifference(
      [&](double H) { return energy(X.data(), N, A, H, C); }, B));
  MESHAD_CHECK_CLOSE("reverse: dE/dc", DC, 1.0);

  auto FX = meshad::differentiate(energy, "xHost");
  double Got = FX.execute(X.data(), N, A, B, C, V.data());
  std::vector<double> Xh(N);
  double Fd = mt::centralDifference(
      [&](double H) {
        for (int I = 0; I < N; ++I)
          Xh[I] = X[I] + H * V[I];
        return energy(Xh.data(), N, A, B, C);
      },
      0.0);
  MESHAD_CHECK_CLOSE("forward: dE/dx . v", Got, Fd);
  auto FA = meshad::differentiate(energy, "a");
  MESHAD_CHECK_CLOSE("forward: dE/da", FA.execute(X.data(), N, A, B, C), DA);
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 27 passed, 0 failed
