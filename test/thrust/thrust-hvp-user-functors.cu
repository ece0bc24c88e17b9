// Hessian-vector products through user functors and lambdas passed to
// Thrust (issue 15): forward mode over the gradient meets the adjoint
// helpers that call the operator()'s pullback (transformAdjointBy,
// binaryTransformAdjointBy, transformReduceAdjointBy) and calls, before
// each, its tangent helper with the pullback's pushforward, the saved
// inputs' tangent copies, the tangents of the captures that have one and
// the addresses of the tangents of the captures' adjoints. Through a
// for_each, the snapshots of the captured buffers keep their tangents'
// beside them, and forEachAdjointTangentBy (the pushforward of the
// lambda's pullback, which also does what the pullback does) replaces
// forEachAdjointBy. Each Hv is checked against central differences of the
// gradient along v.
//
// REQUIRES: thrust
// RUN: %clangxx %cpu_thrust_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include <thrust/execution_policy.h>
#include <thrust/for_each.h>
#include <thrust/functional.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/reduce.h>
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

struct Soft {
  double s;
  __host__ __device__ double operator()(double v) const {
    return log(1.0 + exp(s * v));
  }
};

/// Functor structs only: y = Wave(x), E = the sum of Soft(y).
double structs(const double *xHost, int n) {
  double *x, *y;
  cudaMalloc(&x, n * sizeof(double));
  cudaMalloc(&y, n * sizeof(double));
  cudaMemcpy(x, xHost, n * sizeof(double), cudaMemcpyHostToDevice);
  thrust::transform(thrust::device, x, x + n, y, Wave{1.5});
  double e = thrust::transform_reduce(thrust::device, y, y + n, Soft{0.7},
                                      0.0, thrust::plus<double>());
  cudaFree(x);
  cudaFree(y);
  return e;
}

// CHECK-LABEL: void structs_hvp(const double *xHost, int n, const double *_d2_xHost, double *_d2_d_xHost) {
// CHECK: meshad::thrust_ad::save(_t2, x, n);
// CHECK-NEXT: meshad::thrust_ad::save(_d2_t2, _d2_x, n);
// CHECK: meshad::thrust_ad::transformReduceAdjointTangentBy(n, _r0, 0., _d2_d_y, [=] MESHAD_THRUST_LAMBDA (double v, double _d_y, double *_d_v, double _d2_v, double _d2_d_y, double *_d2_d_v) { Soft_call_pullback_pushforward(_t1, v, _d_y, _d_v, _d2_v, _d2_d_y, _d2_d_v); }, meshad::thrust_ad::captureTangents(), thrust::plus<double>(), _t3, _d2_t3);
// CHECK-NEXT: meshad::thrust_ad::transformReduceAdjointBy(n, _r0, _d_y,
// CHECK-NEXT: meshad::thrust_ad::transformAdjointTangentBy(n, _d2_d_x, _d_y, _d2_d_y, [=] MESHAD_THRUST_LAMBDA (double v, double _d_y, double *_d_v, double _d2_v, double _d2_d_y, double *_d2_d_v) { Wave_call_pullback_pushforward(_t0, v, _d_y, _d_v, _d2_v, _d2_d_y, _d2_d_v); }, meshad::thrust_ad::captureTangents(), _t2, _d2_t2);
// CHECK-NEXT: meshad::thrust_ad::transformAdjointBy(n, static_cast<double *>(nullptr), _d_y,
// CHECK-LABEL: __host__ __device__ void Soft_call_pullback_pushforward(Soft self, double v, double _d_y, double *_d_v, double _d2_v, double _d2_d_y, double *_d2_d_v) {
// CHECK-LABEL: __host__ __device__ void Wave_call_pullback_pushforward(Wave self, double v, double _d_y, double *_d_v, double _d2_v, double _d2_d_y, double *_d2_d_v) {

/// Lambdas that capture the inputs a and b and the mean m of x (a capture
/// whose tangent and adjoint come from x): y = Wave(x), y = mix(x, y) in
/// place, E = the sum of term(y).
double lambdas(const double *xHost, int n, double a, double b) {
  double *x, *y;
  cudaMalloc(&x, n * sizeof(double));
  cudaMalloc(&y, n * sizeof(double));
  cudaMemcpy(x, xHost, n * sizeof(double), cudaMemcpyHostToDevice);
  double m = thrust::reduce(thrust::device, x, x + n, 0.0) / n;
  thrust::transform(thrust::device, x, x + n, y, Wave{1.5});
  auto mix = [=] HD(double u, double w) { return w * cos(u) + a * u * w + m; };
  thrust::transform(thrust::device, x, x + n, y, y, mix);
  int k = 2;
  auto term = [=] HD(double v) { return a * v * v + exp(b * v) / k + m * v; };
  double e = thrust::transform_reduce(thrust::device, y, y + n, term, 0.0,
                                      thrust::plus<double>());
  cudaFree(x);
  cudaFree(y);
  return e;
}

// CHECK-LABEL: void lambdas_hvp(const double *xHost, int n, double a, double b, const double *_d2_xHost, double _d2_a, double _d2_b, double *_d2_d_xHost, double *_d2_d_a, double *_d2_d_b) {
// CHECK: meshad::thrust_ad::transformReduceAdjointTangentBy(n, _r4, 0., _d2_d_y, [=] MESHAD_THRUST_LAMBDA (double v, double _d_y, double *_d_a, double *_d_b, double *_d_m, double *_d_v, double _d2_a, double _d2_b, double _d2_m, double _d2_v, double _d2_d_y, double *_d2_d_a, double *_d2_d_b, double *_d2_d_m, double *_d2_d_v) { term_lambda_pullback_pushforward(a, b, k, m, v, _d_y, _d_a, _d_b, _d_m, _d_v, _d2_a, _d2_b, _d2_m, _d2_v, _d2_d_y, _d2_d_a, _d2_d_b, _d2_d_m, _d2_d_v); }, meshad::thrust_ad::captureTangents(_d2_a, _d2_b, _d2_m), thrust::plus<double>(), _t5, _d2_t5, &_d2_r5, &_d2_r6, &_d2_r7);
// CHECK-NEXT: meshad::thrust_ad::transformReduceAdjointBy(n, _r4, _d_y,
// CHECK-NEXT: *_d2_d_a += _d2_r5;
// CHECK-NEXT: *_d2_d_b += _d2_r6;
// CHECK-NEXT: _d2_d_m += _d2_r7;
// CHECK: meshad::thrust_ad::binaryTransformAdjointTangentBy(n, _d2_d_x, _d2_d_y, _d_y, _d2_d_y, [=] MESHAD_THRUST_LAMBDA (double u, double w, double _d_y, double *_d_a, double *_d_m, double *_d_u, double *_d_w, double _d2_a, double _d2_m, double _d2_u, double _d2_w, double _d2_d_y, double *_d2_d_a, double *_d2_d_m, double *_d2_d_u, double *_d2_d_w) { mix_lambda_pullback_pushforward(a, m, u, w, _d_y, _d_a, _d_m, _d_u, _d_w, _d2_a, _d2_m, _d2_u, _d2_w, _d2_d_y, _d2_d_a, _d2_d_m, _d2_d_u, _d2_d_w); }, meshad::thrust_ad::captureTangents(_d2_a, _d2_m), _t3, _d2_t3, _t4, _d2_t4, &_d2_r2, &_d2_r3);
// CHECK-NEXT: meshad::thrust_ad::binaryTransformAdjointBy(n, static_cast<double *>(nullptr), _d_y, _d_y,
// CHECK-NEXT: *_d2_d_a += _d2_r2;
// CHECK-NEXT: _d2_d_m += _d2_r3;
// CHECK-LABEL: inline void term_lambda_pullback_pushforward(double a, double b, int k, double m, double v, double _d_y, double *_d_a, double *_d_b, double *_d_m, double *_d_v, double _d2_a, double _d2_b, double _d2_m, double _d2_v, double _d2_d_y, double *_d2_d_a, double *_d2_d_b, double *_d2_d_m, double *_d2_d_v) {
// CHECK-LABEL: inline void mix_lambda_pullback_pushforward(double a, double m, double u, double w, double _d_y, double *_d_a, double *_d_m, double *_d_u, double *_d_w, double _d2_a, double _d2_m, double _d2_u, double _d2_w, double _d2_d_y, double *_d2_d_a, double *_d2_d_m, double *_d2_d_u, double *_d2_d_w) {

__host__ __device__ double wave(double v) { return sin(v) * v + 0.5 * v; }

/// for_each over counting iterators: y[i] = a wave(x[i]), then
/// y[i] = y[i] cos(x[i]) + a x[i-1]^2 for i >= 1; E = the sum of y^2.
double each(const double *xHost, int n, double a) {
  double *xBuf, *yBuf;
  cudaMalloc(&xBuf, n * sizeof(double));
  cudaMalloc(&yBuf, n * sizeof(double));
  cudaMemcpy(xBuf, xHost, n * sizeof(double), cudaMemcpyHostToDevice);
  // The lambdas capture pointers that the function does not change.
  double *const x = xBuf, *const y = yBuf;
  thrust::for_each(thrust::device, thrust::counting_iterator<int>(0),
                   thrust::counting_iterator<int>(n),
                   [=] HD(int i) { y[i] = a * wave(x[i]); });
  auto couple = [=] HD(int i) {
    y[i] = y[i] * cos(x[i]) + a * x[i - 1] * x[i - 1];
  };
  thrust::for_each(thrust::device, thrust::make_counting_iterator(1),
                   thrust::make_counting_iterator(n), couple);
  double e = thrust::transform_reduce(thrust::device, y, y + n,
                                      thrust::square<double>(), 0.0,
                                      thrust::plus<double>());
  cudaFree(xBuf);
  cudaFree(yBuf);
  return e;
}
// CHECK-LABEL: void each_hvp(const double *xHost, int n, double a, const double *_d2_xHost, double _d2_a, double *_d2_d_xHost, double *_d2_d_a) {
// CHECK: meshad::thrust_ad::Snapshot _d2_t0;
// CHECK: meshad::thrust_ad::snapshot(_t0, y);
// CHECK-NEXT: meshad::thrust_ad::snapshot(_d2_t0, _d2_y);
// CHECK-NEXT: meshad::thrust_ad::snapshot(_t1, x);
// CHECK-NEXT: meshad::thrust_ad::snapshot(_d2_t1, _d2_x);
// CHECK-NEXT: meshad::thrust_ad::forEachTangentBy(n, 0,
// CHECK: meshad::thrust_ad::restore(_t2, y);
// CHECK-NEXT: meshad::thrust_ad::restore(_d2_t2, _d2_y);
// CHECK-NEXT: meshad::thrust_ad::restore(_t3, x);
// CHECK-NEXT: meshad::thrust_ad::restore(_d2_t3, _d2_x);
// CHECK-NEXT: meshad::thrust_ad::forEachAdjointTangentBy(n - 1, 1, [=] MESHAD_THRUST_LAMBDA (int i, double *_d_y, double *_d_x, double *_d_a, double *_d2_y, double *_d2_x, double _d2_a, double *_d2_d_y, double *_d2_d_x, double *_d2_d_a) { couple_lambda_pullback_pushforward(y, x, a, i, _d_y, _d_x, _d_a, _d2_y, _d2_x, _d2_a, _d2_d_y, _d2_d_x, _d2_d_a); }, meshad::thrust_ad::captureTangents(_d2_y, _d2_x, _d2_a), _d_y, _d2_d_y, _d_x, _d2_d_x, meshad::thrust_ad::sumInto(&_r1, n - 1), meshad::thrust_ad::sumInto(&_d2_r1, n - 1));
// CHECK-NEXT: *_d2_d_a += _d2_r1;
// CHECK-NOT: forEachAdjointBy
// CHECK: meshad::thrust_ad::forEachAdjointTangentBy(n, 0, [=] MESHAD_THRUST_LAMBDA (int i, double *_d_y, double *_d_a, double *_d_x, double *_d2_y, double _d2_a, double *_d2_x, double *_d2_d_y, double *_d2_d_a, double *_d2_d_x) { lambda_pullback_pushforward(y, a, x, i, _d_y, _d_a, _d_x, _d2_y, _d2_a, _d2_x, _d2_d_y, _d2_d_a, _d2_d_x); }, meshad::thrust_ad::captureTangents(_d2_y, _d2_a, _d2_x), _d_y, _d2_d_y, meshad::thrust_ad::sumInto(&_r0, n), meshad::thrust_ad::sumInto(&_d2_r0, n), _d_x, _d2_d_x);
// CHECK-NEXT: *_d2_d_a += _d2_r0;
// CHECK-LABEL: inline void couple_lambda_pullback_pushforward(double *y, double *x, double a, int i, double *_d_y, double *_d_x, double *_d_a, double *_d2_y, double *_d2_x, double _d2_a, double *_d2_d_y, double *_d2_d_x, double *_d2_d_a) {
// CHECK-LABEL: inline void lambda_pullback_pushforward(double *y, double a, double *x, int i, double *_d_y, double *_d_a, double *_d_x, double *_d2_y, double _d2_a, double *_d2_x, double *_d2_d_y, double *_d2_d_a, double *_d2_d_x) {

namespace mt = meshad::test;

int main() {
  const int N = 13;
  mt::RandomInputs Rng;
  std::vector<double> X(N);
  Rng.fill(X.data(), N, -1.0, 1.0);
  double A = Rng.uniform(0.5, 1.5), B = Rng.uniform(-0.5, 0.5);
  {
    auto G = meshad::gradient(structs, "xHost");
    auto H = meshad::hvp(structs, "xHost");
    mt::checkHvp(
        "functor structs: Hv", X,
        [&](const double *P, double *GP) { G.execute(P, N, GP); },
        [&](const double *P, const double *V, double *HP) {
          H.execute(P, N, V, HP);
        },
        Rng);
  }
  {
    auto G = meshad::gradient(lambdas, "xHost, a, b");
    auto H = meshad::hvp(lambdas, "xHost, a, b");
    // x, then a and b.
    std::vector<double> XAB(X);
    XAB.push_back(A);
    XAB.push_back(B);
    mt::checkHvp(
        "lambdas: Hv", XAB,
        [&](const double *P, double *GP) {
          G.execute(P, N, P[N], P[N + 1], GP, &GP[N], &GP[N + 1]);
        },
        [&](const double *P, const double *V, double *HP) {
          H.execute(P, N, P[N], P[N + 1], V, V[N], V[N + 1], HP, &HP[N],
                    &HP[N + 1]);
        },
        Rng);
  }
  {
    auto G = meshad::gradient(each, "xHost, a");
    auto H = meshad::hvp(each, "xHost, a");
    std::vector<double> XA(X);
    XA.push_back(A);
    mt::checkHvp(
        "for_each: Hv", XA,
        [&](const double *P, double *GP) { G.execute(P, N, P[N], GP, &GP[N]); },
        [&](const double *P, const double *V, double *HP) {
          H.execute(P, N, P[N], V, V[N], HP, &HP[N]);
        },
        Rng);
  }
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 42 passed, 0 failed
