// Hessian-vector products through Thrust calls (issue 15): forward mode
// over the gradient meets the adjoint helpers, whose tangents come from the
// AdjointTangent column of the recipe table: the same helper on the
// tangents for the linear ones (reduce, scans, copy, gather, scatter,
// sort_by_key, an extremum reduce), a tangent helper with the second
// partials for transform and transform_reduce with square or multiplies.
// The forward sweep's saved copies keep the tangent range's copy beside
// them, and a sort's recorded permutation is applied to the tangents. A
// first-order adjoint buffer that nothing reads (only added to) is left
// out. Each Hv is checked against central differences of the gradient
// along v.
//
// REQUIRES: thrust
// RUN: %clangxx %cpu_thrust_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include <thrust/copy.h>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/gather.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/scatter.h>
#include <thrust/sort.h>
#include <thrust/transform.h>
#include <thrust/transform_reduce.h>

#include "KernelCheck.h"
#include "ThrustCheck.h"
#include <meshad/Differentiator.h>
#include <vector>

/// E = s * q + c * s with s = sum x, q = c + sum x^2.
double reductions(const double *xHost, int n, double c) {
  double *x;
  cudaMalloc(&x, n * sizeof(double));
  cudaMemcpy(x, xHost, n * sizeof(double), cudaMemcpyHostToDevice);
  double s = thrust::reduce(thrust::device, x, x + n, 0.0);
  double q = thrust::transform_reduce(thrust::device, x, x + n,
                                      thrust::square<double>(), c,
                                      thrust::plus<double>());
  cudaFree(x);
  return s * q + c * s;
}
// CHECK-LABEL: void reductions_hvp(const double *xHost, int n, double c, const double *_d2_xHost, double _d2_c, double *_d2_d_xHost, double *_d2_d_c) {
// CHECK-NOT: {{[( ]}}_d_x{{[,;)]}}
// CHECK: meshad::thrust_ad::save(_t0, x, n);
// CHECK-NEXT: meshad::thrust_ad::save(_d2_t0, _d2_x, n);
// CHECK: meshad::thrust_ad::transformReduceAdjointTangent(n, _r1, _d2_r1, _d2_d_x, thrust::square<double>(), thrust::plus<double>(), _t0, _d2_t0);
// CHECK: meshad::thrust_ad::reduceAdjoint(n, _d2_r0, _d2_d_x);

/// y = x^2 (transform), z = inclusive_scan(y), u = exclusive_scan(z);
/// E = sum z^2 + sum u.
double scans(const double *xHost, int n) {
  double *x, *y, *z, *u;
  cudaMalloc(&x, n * sizeof(double));
  cudaMalloc(&y, n * sizeof(double));
  cudaMalloc(&z, n * sizeof(double));
  cudaMalloc(&u, n * sizeof(double));
  cudaMemcpy(x, xHost, n * sizeof(double), cudaMemcpyHostToDevice);
  thrust::transform(thrust::device, x, x + n, y, thrust::square<double>());
  thrust::inclusive_scan(thrust::device, y, y + n, z);
  thrust::exclusive_scan(thrust::device, z, z + n, u);
  double e = thrust::transform_reduce(thrust::device, z, z + n,
                                      thrust::square<double>(), 0.0,
                                      thrust::plus<double>()) +
             thrust::reduce(thrust::device, u, u + n, 0.0);
  cudaFree(x);
  cudaFree(y);
  cudaFree(z);
  cudaFree(u);
  return e;
}
// CHECK-LABEL: void scans_hvp(const double *xHost, int n, const double *_d2_xHost, double *_d2_d_xHost) {
// CHECK: meshad::thrust_ad::exclusiveScanAdjoint(n, _d2_d_z, _d2_d_u);
// CHECK: meshad::thrust_ad::inclusiveScanAdjoint(n, _d2_d_y, _d2_d_z);
// CHECK: meshad::thrust_ad::transformAdjointTangent(n, _d2_d_x, _d_y, _d2_d_y, thrust::square<double>(), _t{{[0-9]+}}, _d2_t{{[0-9]+}});
// CHECK-NEXT: meshad::thrust_ad::transformAdjoint(n, static_cast<double *>(nullptr), _d_y, thrust::square<double>(), _t{{[0-9]+}});

/// y = x * w (binary transform), z = copy(y), m = max(z);
/// E = sum z^2 * (1 + sum x) + m^2.
double products(const double *xHost, const double *wHost, int n) {
  double *x, *w, *y, *z;
  cudaMalloc(&x, n * sizeof(double));
  cudaMalloc(&w, n * sizeof(double));
  cudaMalloc(&y, n * sizeof(double));
  cudaMalloc(&z, n * sizeof(double));
  cudaMemcpy(x, xHost, n * sizeof(double), cudaMemcpyHostToDevice);
  cudaMemcpy(w, wHost, n * sizeof(double), cudaMemcpyHostToDevice);
  thrust::transform(thrust::device, x, x + n, w, y,
                    thrust::multiplies<double>());
  thrust::copy(thrust::device, y, y + n, z);
  double m = thrust::reduce(thrust::device, z, z + n, -1.0e30,
                            thrust::maximum<double>());
  double q = thrust::transform_reduce(thrust::device, z, z + n,
                                      thrust::square<double>(), 0.0,
                                      thrust::plus<double>());
  double s = thrust::reduce(thrust::device, x, x + n, 1.0);
  cudaFree(x);
  cudaFree(w);
  cudaFree(y);
  cudaFree(z);
  return q * s + m * m;
}
// CHECK-LABEL: void products_hvp(const double *xHost, const double *wHost, int n, const double *_d2_xHost, const double *_d2_wHost, double *_d2_d_xHost, double *_d2_d_wHost) {
// CHECK: meshad::thrust_ad::extremumReduceAdjoint(n, _d2_r0, _d2_d_z, -1.0e30, thrust::maximum<double>(), _t{{[0-9]+}});
// CHECK: meshad::thrust_ad::copyAdjoint(n, _d2_d_y, _d2_d_z);
// CHECK: meshad::thrust_ad::transformAdjointTangent(n, _d2_d_x, _d2_d_w, _d_y, _d2_d_y, thrust::multiplies<double>(), _t{{[0-9]+}}, _d2_t{{[0-9]+}}, _t{{[0-9]+}}, _d2_t{{[0-9]+}});

/// y = gather(x, map), sort y by its keys, u = scatter(y, map);
/// E = sum (k * u_k)^2 weighted through a transform with w, squared.
double permuted(const double *xHost, const double *kHost,
                    const int *mapHost, const double *wHost, int n) {
  double *x, *keys, *y, *u, *w, *z;
  int *map;
  cudaMalloc(&x, n * sizeof(double));
  cudaMalloc(&keys, n * sizeof(double));
  cudaMalloc(&y, n * sizeof(double));
  cudaMalloc(&u, n * sizeof(double));
  cudaMalloc(&w, n * sizeof(double));
  cudaMalloc(&z, n * sizeof(double));
  cudaMalloc(&map, n * sizeof(int));
  cudaMemcpy(x, xHost, n * sizeof(double), cudaMemcpyHostToDevice);
  cudaMemcpy(keys, kHost, n * sizeof(double), cudaMemcpyHostToDevice);
  cudaMemcpy(w, wHost, n * sizeof(double), cudaMemcpyHostToDevice);
  cudaMemcpy(map, mapHost, n * sizeof(int), cudaMemcpyHostToDevice);
  thrust::gather(thrust::device, map, map + n, x, y);
  thrust::sort_by_key(thrust::device, keys, keys + n, y);
  thrust::scatter(thrust::device, y, y + n, map, u);
  thrust::transform(thrust::device, u, u + n, w, z,
                    thrust::multiplies<double>());
  double e = thrust::transform_reduce(thrust::device, z, z + n,
                                      thrust::square<double>(), 0.0,
                                      thrust::plus<double>());
  cudaFree(x);
  cudaFree(keys);
  cudaFree(y);
  cudaFree(u);
  cudaFree(w);
  cudaFree(z);
  cudaFree(map);
  return e * e;
}
// CHECK-LABEL: void permuted_hvp_0(const double *xHost, const double *kHost, const int *mapHost, const double *wHost, int n, const double *_d2_xHost, double *_d2_d_xHost) {
// CHECK: meshad::thrust_ad::sortByKeyRecording(_t{{[0-9]+}}, keys, keys + n, y);
// CHECK-NEXT: meshad::thrust_ad::permuteTangents(_t{{[0-9]+}}, _d2_keys, _d2_y);
// CHECK: meshad::thrust_ad::scatterAdjoint(n, _d2_d_y, _t{{[0-9]+}}, _d2_d_u);
// CHECK: meshad::thrust_ad::sortByKeyAdjoint(n, _d2_d_keys, _d2_d_y, _t{{[0-9]+}});
// CHECK: meshad::thrust_ad::gatherAdjoint(n, _t{{[0-9]+}}, _d2_d_x, _d2_d_y);

namespace mt = meshad::test;

int main() {
  const int N = 11;
  mt::RandomInputs Rng;
  std::vector<double> X(N), W(N), K(N);
  Rng.fill(X.data(), N, -1.0, 1.0);
  Rng.fill(W.data(), N, 0.5, 1.5);
  Rng.fill(K.data(), N, -1.0, 1.0);
  std::vector<int> Map(N);
  for (int I = 0; I < N; ++I)
    Map[I] = (5 * I + 3) % N; // A permutation: 5 and 11 are coprime.
  double C = Rng.uniform(-1.0, 1.0);

  {
    auto G = meshad::gradient(reductions, "xHost, c");
    auto H = meshad::hvp(reductions, "xHost, c");
    // x and c together: the last entry is c.
    std::vector<double> XC(X);
    XC.push_back(C);
    mt::checkHvp(
        "reduce, transform_reduce: Hv", XC,
        [&](const double *P, double *GP) {
          G.execute(P, N, P[N], GP, &GP[N]);
        },
        [&](const double *P, const double *V, double *HP) {
          H.execute(P, N, P[N], V, V[N], HP, &HP[N]);
        },
        Rng);
  }
  {
    auto G = meshad::gradient(scans, "xHost");
    auto H = meshad::hvp(scans, "xHost");
    mt::checkHvp(
        "transform, scans: Hv", X,
        [&](const double *P, double *GP) { G.execute(P, N, GP); },
        [&](const double *P, const double *V, double *HP) {
          H.execute(P, N, V, HP);
        },
        Rng);
  }
  {
    auto G = meshad::gradient(products, "xHost, wHost");
    auto H = meshad::hvp(products, "xHost, wHost");
    std::vector<double> XW(X);
    XW.insert(XW.end(), W.begin(), W.end());
    mt::checkHvp(
        "multiplies, copy, maximum: Hv", XW,
        [&](const double *P, double *GP) {
          G.execute(P, P + N, N, GP, GP + N);
        },
        [&](const double *P, const double *V, double *HP) {
          H.execute(P, P + N, N, V, V + N, HP, HP + N);
        },
        Rng);
  }
  {
    auto G = meshad::gradient(permuted, "xHost");
    auto H = meshad::hvp(permuted, "xHost");
    mt::checkHvp(
        "gather, sort_by_key, scatter: Hv", X,
        [&](const double *P, double *GP) {
          G.execute(P, K.data(), Map.data(), W.data(), N, GP);
        },
        [&](const double *P, const double *V, double *HP) {
          H.execute(P, K.data(), Map.data(), W.data(), N, V, HP);
        },
        Rng);
  }
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 56 passed, 0 failed
