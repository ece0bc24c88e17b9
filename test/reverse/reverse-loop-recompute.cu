// Locals of a counted loop that depend only on values the loop does not
// change (the counter, unassigned parameters, memory the kernel never
// writes) are recomputed at the start of each reverse iteration instead of
// being saved on a per-thread tape: a loop of K = 200 iterations (more than
// the tape's 64 values) needs no tape at all. A loop-carried value (prod)
// still uses a tape. Locals that nothing in the gradient reads (the
// accumulator of a write-only output) are not computed again. Checked
// against central finite differences.
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.log
// RUN: FileCheck %s < %t.log
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "KernelCheck.h"
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

__global__ void blend(const double *p, double *out, int n, int K) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    double acc = 0;
    for (int k = 0; k < K; ++k) {
      double d = (i - p[2 * k]) * 0.1;
      double g = exp(-d * d);
      acc += p[2 * k + 1] * g;
    }
    out[i] = acc;
  }
}
// CHECK-LABEL: __global__ void blend_grad(
// CHECK-NOT: meshad::Tape
// CHECK-NOT: {{^ *(double )?acc}}
// The reverse loop runs in step across each warp (the adds into p summed
// per warp, GPU/BlockUniformReduce, their addresses through the key k).
// CHECK: for (int _step = meshad::warpMaxSteps(_steps); _step > 0; --_step) {
// CHECK: if (_step <= _steps) {
// CHECK-NEXT: k = _cnt0 - 1;
// CHECK-NEXT: _key = k;
// CHECK-NEXT: d = ((double)i - p[2 * k]) * 0.1;
// CHECK-NEXT: double _t0 = exp(-d * d);
// CHECK-NEXT: g = _t0;

__global__ void product(const double *x, double *out, int K) {
  double prod = 1;
  for (int k = 0; k < K; ++k) {
    double v = sin(x[k]);
    prod = prod * (0.9 + 0.1 * v) + v;
  }
  out[0] = prod;
}
// CHECK-LABEL: __global__ void product_grad(
// CHECK: meshad::Tape<double> _t0;
// CHECK: meshad::push(_t0, prod);
// CHECK-NOT: meshad::push(_t{{[0-9]+}}, v);
// CHECK: v = sin(x[k]);

int main() {
  meshad::test::RandomInputs Rng;
  {
    const int N = 40, K = 200;
    meshad::test::DeviceArray<double> P(2 * K), Out(N), W(N), DP(2 * K), DOut(N);
    for (int k = 0; k < K; ++k) {
      Rng.fill(&P[2 * k], 1, 0, N);
      Rng.fill(&P[2 * k + 1], 1, -1, 1);
    }
    Rng.fill(W.host(), N, -1, 1);
    auto Loss = [&] {
      P.upload();
      MESHAD_LAUNCH(blend, 2, 32)(P.device(), Out.device(), N, K);
      meshad::test::checkLaunch("blend");
      Out.download();
      return meshad::test::weightedSum(W.host(), Out.host(), N);
    };
    std::vector<double> Expected = meshad::test::fdGradient(Loss, P.host(), 2 * K);
    P.upload();
    for (int I = 0; I < N; ++I)
      DOut[I] = W[I];
    DOut.upload();
    DP.zero();
    meshad::gradient(blend, "p, out")
        .execute_kernel(dim3(2), dim3(32), P.device(), Out.device(), N, K,
                        DP.device(), DOut.device());
    meshad::test::checkLaunch("blend_grad");
    DP.download();
    meshad::test::checkArray("blend dp", DP.host(), Expected.data(), 2 * K);
  }
  {
    const int K = 20;
    meshad::test::DeviceArray<double> X(K), Out(1), DX(K), DOut(1);
    Rng.fill(X.host(), K, -1, 1);
    auto Loss = [&] {
      X.upload();
      MESHAD_LAUNCH(product, 1, 1)(X.device(), Out.device(), K);
      meshad::test::checkLaunch("product");
      Out.download();
      return Out[0];
    };
    std::vector<double> Expected = meshad::test::fdGradient(Loss, X.host(), K);
    X.upload();
    DOut[0] = 1;
    DOut.upload();
    DX.zero();
    meshad::gradient(product, "x, out")
        .execute_kernel(dim3(1), dim3(1), X.device(), Out.device(), K,
                        DX.device(), DOut.device());
    meshad::test::checkLaunch("product_grad");
    DX.download();
    meshad::test::checkArray("product dx", DX.host(), Expected.data(), K);
  }
  return meshad::test::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 420 passed, 0 failed
