// Reverse mode of host code calling Thrust reductions and scans on device
// buffers (thrust::device with raw pointers; under the CPU emulation
// Thrust's CPP system runs them): reduce, transform_reduce (square, with an
// active init), inclusive_scan, exclusive_scan (with and without an active
// init, in place). An output whose contents the reverse sweep of an earlier
// statement reads (a callee's pullback reads them) is saved before the call
// and restored after its adjoint. Each gradient is checked against central
// differences.
//
// REQUIRES: thrust
// RUN: %clangxx %cpu_thrust_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/transform_reduce.h>

#include "KernelCheck.h"
#include "NumericCheck.h"
#include <meshad/Differentiator.h>
#include <vector>

/// The sum of squares of the device buffer y[0, n), plus c.
double sumSquares(const double *y, int n, double c) {
  return thrust::transform_reduce(thrust::device, y, y + n,
                                  thrust::square<double>(), c,
                                  thrust::plus<double>());
}

/// E = (sum x)^2 + sum x^2 + c.
double reduceEnergy(const double *xHost, int n, double c) {
  double *x;
  cudaMalloc(&x, n * sizeof(double));
  cudaMemcpy(x, xHost, n * sizeof(double), cudaMemcpyHostToDevice);
  double s = thrust::reduce(thrust::device, x, x + n, 0.0);
  double q = thrust::transform_reduce(thrust::device, x, x + n,
                                      thrust::square<double>(), c,
                                      thrust::plus<double>());
  cudaFree(x);
  return s * s + q;
}
// CHECK-LABEL: void reduceEnergy_grad(const double *xHost, int n, double c, double *_d_xHost, double *_d_c) {
// CHECK: meshad::thrust_ad::Saved<double> _t0;
// CHECK: s = thrust::reduce(thrust::device, x, x + n, 0.0);
// CHECK-NEXT: meshad::thrust_ad::save(_t0, x, n);
// CHECK-NEXT: q = thrust::transform_reduce(thrust::device, x, x + n, thrust::square<double>(), c, thrust::plus<double>());
// CHECK: *_d_c += meshad::thrust_ad::transformReduceAdjoint(n, _r1, _d_x, thrust::square<double>(), thrust::plus<double>(), _t0);
// CHECK: meshad::thrust_ad::reduceAdjoint(n, _r0, _d_x);

/// y = inclusive_scan(x); E = sum y^2.
double inclusiveEnergy(const double *xHost, int n) {
  double *x, *y;
  cudaMalloc(&x, n * sizeof(double));
  cudaMalloc(&y, n * sizeof(double));
  cudaMemcpy(x, xHost, n * sizeof(double), cudaMemcpyHostToDevice);
  thrust::inclusive_scan(thrust::device, x, x + n, y);
  double e = sumSquares(y, n, 0.0);
  cudaFree(x);
  cudaFree(y);
  return e;
}
// CHECK-LABEL: void inclusiveEnergy_grad(const double *xHost, int n, double *_d_xHost) {
// CHECK: meshad::thrust_ad::save(_t0, y, n);
// CHECK-NEXT: thrust::inclusive_scan(thrust::device, x, x + n, y);
// CHECK: sumSquares_pullback_0(y, n, 0.0, _d_e, _d_y);
// CHECK-NEXT: meshad::thrust_ad::inclusiveScanAdjoint(n, _d_x, _d_y);
// CHECK-NEXT: meshad::thrust_ad::restore(_t0, y);
// CHECK-LABEL: void sumSquares_pullback_0(const double *y, int n, double c, double _d_y_1, double *_d_y) {
// CHECK-NEXT: meshad::thrust_ad::Saved<double> _t0;
// CHECK-NEXT: meshad::thrust_ad::save(_t0, y, n);
// CHECK-NEXT: meshad::thrust_ad::transformReduceAdjoint(n, _d_y_1, _d_y, thrust::square<double>(), thrust::plus<double>(), _t0);
// CHECK-NEXT: }

/// x = exclusive_scan(x, c) in place, then y = exclusive_scan(x) (init 0);
/// E = sum x^2 + sum y^2.
double exclusiveEnergy(const double *xHost, int n, double c) {
  double *x, *y;
  cudaMalloc(&x, n * sizeof(double));
  cudaMalloc(&y, n * sizeof(double));
  cudaMemcpy(x, xHost, n * sizeof(double), cudaMemcpyHostToDevice);
  thrust::exclusive_scan(thrust::device, x, x + n, x, c);
  thrust::exclusive_scan(thrust::device, x, x + n, y);
  double e = sumSquares(x, n, 0.0) + sumSquares(y, n, 0.0);
  cudaFree(x);
  cudaFree(y);
  return e;
}
// CHECK-LABEL: void exclusiveEnergy_grad(const double *xHost, int n, double c, double *_d_xHost, double *_d_c) {
// CHECK: meshad::thrust_ad::save(_t2, x, n);
// CHECK-NEXT: thrust::exclusive_scan(thrust::device, x, x + n, x, c);
// CHECK: sumSquares_pullback_0(x, n, 0.0, _d__t0, _d_x);
// CHECK-NEXT: meshad::thrust_ad::exclusiveScanAdjoint(n, _d_x, _d_y);
// CHECK-NEXT: meshad::thrust_ad::restore(_t3, y);
// CHECK-NEXT: *_d_c += meshad::thrust_ad::exclusiveScanAdjoint(n, _d_x, _d_x);
// CHECK-NEXT: meshad::thrust_ad::restore(_t2, x);

namespace mt = meshad::test;

int main() {
  const int N = 37;
  mt::RandomInputs Rng;
  std::vector<double> X(N);
  Rng.fill(X.data(), N, -1.0, 1.0);
  double C = Rng.uniform(-1.0, 1.0);

  {
    auto Loss = [&] { return reduceEnergy(X.data(), N, C); };
    std::vector<double> Ref = mt::fdGradient(Loss, X.data(), N);
    double RefC = mt::centralDifference(
        [&](double V) { return reduceEnergy(X.data(), N, V); }, C);
    std::vector<double> DX(N, 0.0);
    double DC = 0;
    auto G = meshad::gradient(reduceEnergy, "xHost, c");
    G.execute(X.data(), N, C, DX.data(), &DC);
    mt::checkArray("reduce, transform_reduce: dE/dx", DX.data(), Ref.data(),
                   N);
    MESHAD_CHECK_CLOSE("transform_reduce: dE/dinit", DC, RefC);
  }
  {
    auto Loss = [&] { return inclusiveEnergy(X.data(), N); };
    std::vector<double> Ref = mt::fdGradient(Loss, X.data(), N);
    std::vector<double> DX(N, 0.0);
    auto G = meshad::gradient(inclusiveEnergy, "xHost");
    G.execute(X.data(), N, DX.data());
    mt::checkArray("inclusive_scan: dE/dx", DX.data(), Ref.data(), N);
  }
  {
    auto Loss = [&] { return exclusiveEnergy(X.data(), N, C); };
    std::vector<double> Ref = mt::fdGradient(Loss, X.data(), N);
    double RefC = mt::centralDifference(
        [&](double V) { return exclusiveEnergy(X.data(), N, V); }, C);
    std::vector<double> DX(N, 0.0);
    double DC = 0;
    auto G = meshad::gradient(exclusiveEnergy, "xHost, c");
    G.execute(X.data(), N, C, DX.data(), &DC);
    mt::checkArray("exclusive_scan: dE/dx", DX.data(), Ref.data(), N);
    MESHAD_CHECK_CLOSE("exclusive_scan: dE/dinit", DC, RefC);
  }
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 113 passed, 0 failed
