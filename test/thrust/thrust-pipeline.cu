// A small pipeline of Thrust primitives in host code, differentiated in
// reverse mode: transform (square) -> sort_by_key (by depths the gradient
// is not taken for) -> inclusive_scan -> reduce, the shape of a
// rasterizer's per-tile compositing. The reverse sweep calls the adjoints
// in reverse order; the sort's permutation is recorded by the forward
// sweep. Checked against central differences.
//
// REQUIRES: thrust
// RUN: %clangxx %cpu_thrust_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sort.h>
#include <thrust/transform.h>

#include "KernelCheck.h"
#include "NumericCheck.h"
#include <meshad/Differentiator.h>
#include <vector>

/// v = x^2 sorted by depth, c = prefix sums of v, E = (sum c)^2.
double pipeline(const double *xHost, const double *depthHost, int n) {
  double *x, *v, *depth, *c;
  cudaMalloc(&x, n * sizeof(double));
  cudaMalloc(&v, n * sizeof(double));
  cudaMalloc(&depth, n * sizeof(double));
  cudaMalloc(&c, n * sizeof(double));
  cudaMemcpy(x, xHost, n * sizeof(double), cudaMemcpyHostToDevice);
  cudaMemcpy(depth, depthHost, n * sizeof(double), cudaMemcpyHostToDevice);
  thrust::transform(thrust::device, x, x + n, v, thrust::square<double>());
  thrust::sort_by_key(thrust::device, depth, depth + n, v);
  thrust::inclusive_scan(thrust::device, v, v + n, c);
  double s = thrust::reduce(thrust::device, c, c + n, 0.0);
  cudaFree(x);
  cudaFree(v);
  cudaFree(depth);
  cudaFree(c);
  return s * s;
}
// CHECK-LABEL: void pipeline_grad_0(const double *xHost, const double *depthHost, int n, double *_d_xHost) {
// CHECK: meshad::thrust_ad::Saved<double> _t0;
// CHECK-NEXT: meshad::thrust_ad::Saved<int> _t1;
// CHECK: meshad::thrust_ad::save(_t0, x, n);
// CHECK-NEXT: thrust::transform(thrust::device, x, x + n, v, thrust::square<double>());
// CHECK-NEXT: meshad::thrust_ad::sortByKeyRecording(_t1, depth, depth + n, v);
// CHECK-NEXT: thrust::inclusive_scan(thrust::device, v, v + n, c);
// CHECK-NEXT: s = thrust::reduce(thrust::device, c, c + n, 0.0);
// CHECK: meshad::thrust_ad::reduceAdjoint(n, _r0, _d_c);
// CHECK-NEXT: meshad::thrust_ad::inclusiveScanAdjoint(n, _d_v, _d_c);
// CHECK-NEXT: meshad::thrust_ad::sortByKeyAdjoint(n, _d_depth, _d_v, _t1);
// CHECK-NEXT: meshad::thrust_ad::transformAdjoint(n, _d_x, _d_v, thrust::square<double>(), _t0);

namespace mt = meshad::test;

int main() {
  const int N = 41;
  mt::RandomInputs Rng;
  std::vector<double> X(N), Depth(N), DX(N, 0.0);
  Rng.fill(X.data(), N, -1.0, 1.0);
  Rng.fill(Depth.data(), N, 0.0, 10.0);
  auto Loss = [&] { return pipeline(X.data(), Depth.data(), N); };
  std::vector<double> Ref = mt::fdGradient(Loss, X.data(), N);
  auto G = meshad::gradient(pipeline, "xHost");
  G.execute(X.data(), Depth.data(), N, DX.data());
  mt::checkArray("transform -> sort_by_key -> inclusive_scan -> reduce",
                 DX.data(), Ref.data(), N);
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 41 passed, 0 failed
