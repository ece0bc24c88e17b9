// Reverse mode of thrust::reduce with thrust::maximum and thrust::minimum
// (issue 15, item 3) and a constant init: the seed goes to the first element
// equal to the result (ties: the first of the range), none when the init is
// the result. Checked against central differences on random inputs (ties
// have probability zero there), plus an init that wins and an analytic tie.
//
// REQUIRES: thrust
// RUN: %clangxx %cpu_thrust_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/reduce.h>

#include "KernelCheck.h"
#include "NumericCheck.h"
#include <meshad/Differentiator.h>
#include <vector>

/// E = max(x)^2 + 3 min(x) + max(x, init 5) (the init wins when all x < 5).
double spread(const double *xHost, int n) {
  double *x;
  cudaMalloc(&x, n * sizeof(double));
  cudaMemcpy(x, xHost, n * sizeof(double), cudaMemcpyHostToDevice);
  double hi = thrust::reduce(thrust::device, x, x + n, -1e300,
                             thrust::maximum<double>());
  double lo = thrust::reduce(thrust::device, x, x + n, 1e300,
                             thrust::minimum<double>());
  double capped = thrust::reduce(thrust::device, x, x + n, 5.0,
                                 thrust::maximum<double>());
  cudaFree(x);
  return hi * hi + 3 * lo + capped;
}
// CHECK-LABEL: void spread_grad(const double *xHost, int n, double *_d_xHost) {
// CHECK: meshad::thrust_ad::save(_t0, x, n);
// CHECK-NEXT: hi = thrust::reduce(thrust::device, x, x + n, -1e300, thrust::maximum<double>());
// CHECK: meshad::thrust_ad::extremumReduceAdjoint(n, _r2, _d_x, 5.0, thrust::maximum<double>(), _t2);
// CHECK: meshad::thrust_ad::extremumReduceAdjoint(n, {{.*}}, _d_x, 1e300, thrust::minimum<double>(), _t1);
// CHECK: meshad::thrust_ad::extremumReduceAdjoint(n, {{.*}}, _d_x, -1e300, thrust::maximum<double>(), _t0);

namespace mt = meshad::test;

int main() {
  const int N = 13;
  mt::RandomInputs Rng;
  auto G = meshad::gradient(spread, "xHost");
  for (int Trial = 0; Trial < 3; ++Trial) {
    std::vector<double> X(N), DX(N, 0.0);
    // Trial 1: one element above the init 5 (capped's seed goes to it).
    Rng.fill(X.data(), N, -2.0, 2.0);
    if (Trial == 1)
      X[7] = 6.0;
    auto Loss = [&] { return spread(X.data(), N); };
    std::vector<double> Ref = mt::fdGradient(Loss, X.data(), N);
    G.execute(X.data(), N, DX.data());
    mt::checkArray("max/min reduce: dE/dx", DX.data(), Ref.data(), N);
  }
  // A tie: the first maximal element gets the seed.
  std::vector<double> X(N, 1.0), DX(N, 0.0);
  X[3] = X[9] = 2.0;
  G.execute(X.data(), N, DX.data());
  MESHAD_CHECK_CLOSE("tie: first maximum", DX[3], 2 * 2.0 + 3.0 * 0);
  MESHAD_CHECK_CLOSE("tie: later maximum", DX[9], 0.0);
  MESHAD_CHECK_CLOSE("tie: first minimum", DX[0], 3.0);
  MESHAD_CHECK_CLOSE("tie: later minimum", DX[1], 0.0);
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
