// Reverse mode of host code calling Thrust's element-wise and permuting
// primitives on device buffers (thrust::device with raw pointers): copy,
// fill and sequence (with active values), transform (negate, square; plus,
// minus, multiplies, in place too), gather (a map with repeats: its adjoint
// adds atomically), scatter (a permutation) and sort_by_key (double keys
// and values: the forward sweep records the permutation, the adjoint
// scatters through it). Index maps are saved by the forward sweep. Each
// gradient is checked against central differences.
//
// REQUIRES: thrust
// RUN: %clangxx %cpu_thrust_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include <thrust/copy.h>
#include <thrust/execution_policy.h>
#include <thrust/fill.h>
#include <thrust/functional.h>
#include <thrust/gather.h>
#include <thrust/scatter.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/transform.h>
#include <thrust/transform_reduce.h>

#include "KernelCheck.h"
#include "NumericCheck.h"
#include <meshad/Differentiator.h>
#include <vector>

// w = [1, 2, ...] * y: weights make the order of y's elements matter.
#define WEIGHT(y, w, n)                                                        \
  thrust::sequence(thrust::device, w, w + n, 1.0);                             \
  thrust::transform(thrust::device, y, y + n, w, w,                            \
                    thrust::multiplies<double>())
// The sum of squares of w[0, n).
#define SQUARES(w, n)                                                          \
  thrust::transform_reduce(thrust::device, w, w + n,                           \
                           thrust::square<double>(), 0.0,                      \
                           thrust::plus<double>())

/// y = copy(x); y[2, 5) = c; z = c + [0, 1, ...]; x[0, 3) = [0, 1, 2];
/// E = weighted squares of y, z and x (sums of squares of [1, 2, ...] * v).
double fillEnergy(const double *xHost, int n, double c) {
  double *x, *y, *z, *w;
  cudaMalloc(&x, n * sizeof(double));
  cudaMalloc(&y, n * sizeof(double));
  cudaMalloc(&z, n * sizeof(double));
  cudaMalloc(&w, n * sizeof(double));
  cudaMemcpy(x, xHost, n * sizeof(double), cudaMemcpyHostToDevice);
  thrust::copy(thrust::device, x, x + n, y);
  thrust::fill(thrust::device, y + 2, y + 5, c);
  thrust::sequence(thrust::device, z, z + n, c);
  thrust::sequence(thrust::device, x, x + 3);
  WEIGHT(y, w, n);
  double e = SQUARES(w, n);
  WEIGHT(z, w, n);
  e += SQUARES(w, n);
  WEIGHT(x, w, n);
  e += SQUARES(w, n);
  cudaFree(x);
  cudaFree(y);
  cudaFree(z);
  cudaFree(w);
  return e;
}
// CHECK-LABEL: void fillEnergy_grad(const double *xHost, int n, double c, double *_d_xHost, double *_d_c) {
// CHECK: thrust::copy(thrust::device, x, x + n, y);
// CHECK-NEXT: thrust::fill(thrust::device, y + 2, y + 5, c);
// CHECK-NEXT: thrust::sequence(thrust::device, z, z + n, c);
// CHECK-NEXT: thrust::sequence(thrust::device, x, x + 3);
// CHECK: meshad::thrust_ad::zeroAdjoint(3, _d_x);
// CHECK-NEXT: *_d_c += meshad::thrust_ad::fillAdjoint(n, _d_z);
// CHECK-NEXT: *_d_c += meshad::thrust_ad::fillAdjoint(3, _d_y + 2);
// CHECK-NEXT: meshad::thrust_ad::copyAdjoint(n, _d_x, _d_y);

/// y = -x; y = y^2 (in place); z = y + x; z = z - x; E = weighted squares
/// of z.
double transformEnergy(const double *xHost, int n) {
  double *x, *y, *z, *w;
  cudaMalloc(&x, n * sizeof(double));
  cudaMalloc(&y, n * sizeof(double));
  cudaMalloc(&z, n * sizeof(double));
  cudaMalloc(&w, n * sizeof(double));
  cudaMemcpy(x, xHost, n * sizeof(double), cudaMemcpyHostToDevice);
  thrust::transform(thrust::device, x, x + n, y, thrust::negate<double>());
  thrust::transform(thrust::device, y, y + n, y, thrust::square<double>());
  thrust::transform(thrust::device, y, y + n, x, z, thrust::plus<double>());
  thrust::transform(thrust::device, z, z + n, x, z, thrust::minus<double>());
  WEIGHT(z, w, n);
  double e = SQUARES(w, n);
  cudaFree(x);
  cudaFree(y);
  cudaFree(z);
  cudaFree(w);
  return e;
}
// CHECK-LABEL: void transformEnergy_grad(const double *xHost, int n, double *_d_xHost) {
// CHECK: meshad::thrust_ad::save(_t0, x, n);
// CHECK-NEXT: thrust::transform(thrust::device, x, x + n, y, thrust::negate<double>());
// CHECK-NEXT: meshad::thrust_ad::save(_t1, y, n);
// CHECK-NEXT: thrust::transform(thrust::device, y, y + n, y, thrust::square<double>());
// CHECK: meshad::thrust_ad::transformAdjoint(n, _d_z, _d_x, _d_z, thrust::minus<double>(), _t4, _t5);
// CHECK-NEXT: meshad::thrust_ad::transformAdjoint(n, _d_y, _d_x, _d_z, thrust::plus<double>(), _t2, _t3);
// CHECK-NEXT: meshad::thrust_ad::transformAdjoint(n, _d_y, _d_y, thrust::square<double>(), _t1);
// CHECK-NEXT: meshad::thrust_ad::transformAdjoint(n, _d_x, _d_y, thrust::negate<double>(), _t0);

/// y = x[map] (repeats), z[perm] = y; E = weighted squares of z.
double gatherScatterEnergy(const double *xHost, const int *mapHost,
                           const int *permHost, int n) {
  double *x, *y, *z, *w;
  int *map, *perm;
  cudaMalloc(&x, n * sizeof(double));
  cudaMalloc(&y, n * sizeof(double));
  cudaMalloc(&z, n * sizeof(double));
  cudaMalloc(&w, n * sizeof(double));
  cudaMalloc(&map, n * sizeof(int));
  cudaMalloc(&perm, n * sizeof(int));
  cudaMemcpy(x, xHost, n * sizeof(double), cudaMemcpyHostToDevice);
  cudaMemcpy(map, mapHost, n * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(perm, permHost, n * sizeof(int), cudaMemcpyHostToDevice);
  thrust::gather(thrust::device, map, map + n, x, y);
  thrust::scatter(thrust::device, y, y + n, perm, z);
  WEIGHT(z, w, n);
  double e = SQUARES(w, n);
  cudaFree(x);
  cudaFree(y);
  cudaFree(z);
  cudaFree(w);
  cudaFree(map);
  cudaFree(perm);
  return e;
}
// CHECK-LABEL: void gatherScatterEnergy_grad(const double *xHost, const int *mapHost, const int *permHost, int n, double *_d_xHost) {
// CHECK: meshad::thrust_ad::Saved<int> _t0;
// CHECK: meshad::thrust_ad::save(_t0, map, n);
// CHECK-NEXT: thrust::gather(thrust::device, map, map + n, x, y);
// CHECK-NEXT: meshad::thrust_ad::save(_t1, perm, n);
// CHECK-NEXT: thrust::scatter(thrust::device, y, y + n, perm, z);
// CHECK: meshad::thrust_ad::scatterAdjoint(n, _d_y, _t1, _d_z);
// CHECK-NEXT: meshad::thrust_ad::gatherAdjoint(n, _t0, _d_x, _d_y);

/// Sorts (keys, values) = (x, y = x^2 + i) by key; E = weighted squares of
/// the sorted keys and values.
double sortEnergy(const double *xHost, int n) {
  double *x, *y, *w;
  cudaMalloc(&x, n * sizeof(double));
  cudaMalloc(&y, n * sizeof(double));
  cudaMalloc(&w, n * sizeof(double));
  cudaMemcpy(x, xHost, n * sizeof(double), cudaMemcpyHostToDevice);
  thrust::sequence(thrust::device, y, y + n);
  thrust::transform(thrust::device, x, x + n, w, thrust::square<double>());
  thrust::transform(thrust::device, w, w + n, y, y, thrust::plus<double>());
  thrust::sort_by_key(thrust::device, x, x + n, y);
  WEIGHT(x, w, n);
  double e = SQUARES(w, n);
  WEIGHT(y, w, n);
  e += SQUARES(w, n);
  cudaFree(x);
  cudaFree(y);
  cudaFree(w);
  return e;
}
// CHECK-LABEL: void sortEnergy_grad(const double *xHost, int n, double *_d_xHost) {
// CHECK: meshad::thrust_ad::Saved<int> _t3;
// CHECK: meshad::thrust_ad::sortByKeyRecording(_t3, x, x + n, y);
// CHECK: meshad::thrust_ad::sortByKeyAdjoint(n, _d_x, _d_y, _t3);

namespace mt = meshad::test;

int main() {
  const int N = 23;
  mt::RandomInputs Rng;
  std::vector<double> X(N);
  Rng.fill(X.data(), N, -1.0, 1.0);
  double C = Rng.uniform(-1.0, 1.0);
  std::vector<int> Map(N), Perm(N);
  for (int I = 0; I < N; ++I) {
    Map[I] = (7 * I) % 11;      // repeats: several outputs read x[j]
    Perm[I] = (5 * I + 3) % N;  // a permutation (gcd(5, 23) = 1)
  }

  {
    auto Loss = [&] { return fillEnergy(X.data(), N, C); };
    std::vector<double> Ref = mt::fdGradient(Loss, X.data(), N);
    double RefC = mt::centralDifference(
        [&](double V) { return fillEnergy(X.data(), N, V); }, C);
    std::vector<double> DX(N, 0.0);
    double DC = 0;
    auto G = meshad::gradient(fillEnergy, "xHost, c");
    G.execute(X.data(), N, C, DX.data(), &DC);
    mt::checkArray("copy, fill, sequence: dE/dx", DX.data(), Ref.data(), N);
    MESHAD_CHECK_CLOSE("fill, sequence: dE/dc", DC, RefC);
  }
  {
    auto Loss = [&] { return transformEnergy(X.data(), N); };
    std::vector<double> Ref = mt::fdGradient(Loss, X.data(), N);
    std::vector<double> DX(N, 0.0);
    auto G = meshad::gradient(transformEnergy, "xHost");
    G.execute(X.data(), N, DX.data());
    mt::checkArray("transform: dE/dx", DX.data(), Ref.data(), N);
  }
  {
    auto Loss = [&] {
      return gatherScatterEnergy(X.data(), Map.data(), Perm.data(), N);
    };
    std::vector<double> Ref = mt::fdGradient(Loss, X.data(), N);
    std::vector<double> DX(N, 0.0);
    auto G = meshad::gradient(gatherScatterEnergy, "xHost");
    G.execute(X.data(), Map.data(), Perm.data(), N, DX.data());
    mt::checkArray("gather, scatter: dE/dx", DX.data(), Ref.data(), N);
  }
  {
    auto Loss = [&] { return sortEnergy(X.data(), N); };
    std::vector<double> Ref = mt::fdGradient(Loss, X.data(), N);
    std::vector<double> DX(N, 0.0);
    auto G = meshad::gradient(sortEnergy, "xHost");
    G.execute(X.data(), N, DX.data());
    mt::checkArray("sort_by_key: dE/dx", DX.data(), Ref.data(), N);
  }
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 93 passed, 0 failed
