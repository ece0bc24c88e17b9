// The reverse of a data-dependent break (early termination): the forward
// sweep counts the iterations a thread runs, and a break out of the
// outermost loop is recorded by one flag per thread, true only in the last
// iteration, where the reverse sweep starts (cleared once replayed), not on
// a tape per iteration; branches whose conditions the reverse sweep can
// evaluate again are recomputed. A break out of an inner loop keeps its
// taped flag. Threads break at different iterations or not at all; each
// gradient against central differences.
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -fplugin-arg-meshad-remarks -I%test_inputs %s -o %t 2> %t.log
// RUN: FileCheck %s < %t.log
// RUN: FileCheck %s --check-prefix=REMARK < %t.log
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "KernelCheck.h"
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

/// Sums squares of terms until the sum would pass a per-thread limit.
__global__ void untilLimit(int n, int K, const double *x, double *out,
                           int *used) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  double limit = 8 + 10 * i;
  double acc = 0;
  int stop = K;
  for (int k = 0; k < K; ++k) {
    double v = sin(x[i * K + k]) + 1.5;
    if (v < 0.6)
      continue;
    if (acc + v * v > limit) {
      stop = k;
      break;
    }
    acc += v * v;
  }
  out[i] = acc;
  used[i] = stop;
}
// CHECK-LABEL: __global__ void untilLimit_grad(
// CHECK-NOT: meshad::Tape
// CHECK: bool _cond0 = false;
// CHECK: _cond0 = acc + v * v > limit;
// CHECK: for (; _cnt0 > 0; --_cnt0) {
// CHECK-NEXT: k = _cnt0 - 1;
// CHECK-NEXT: v = sin(x[i * K + k]) + 1.5;
// CHECK-NEXT: _cond1 = v < 0.6;
// CHECK: _cond0 = false;
// REMARK: :[[@LINE-18]]:5: remark: early exit of the loop recorded once per thread (the reverse sweep starts at the iteration that left), not taped per iteration

/// The same in an inner loop, run twice: the flag stays on a tape.
__global__ void nested(int n, int K, const double *x, double *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  double total = 0;
  for (int r = 1; r <= 2; ++r) {
    double acc = 0;
    for (int k = 0; k < K; ++k) {
      double v = sin(r * x[i * K + k]) + 1.5;
      if (acc + v * v > 10 + 8 * i)
        break;
      acc += v * v;
    }
    total += r * acc;
  }
  out[i] = total;
}
// CHECK-LABEL: __global__ void nested_grad(
// CHECK: meshad::Tape<bool

namespace mt = meshad::test;

int main() {
  mt::RandomInputs Rng;
  const int N = 8, K = 20;
  mt::DeviceArray<double> X(N * K), Out(N), DX(N * K), DOut(N);
  mt::DeviceArray<int> Used(N);
  std::vector<double> W(N);
  Rng.fill(X.host(), N * K, -3, 3);
  Rng.fill(W.data(), N, 0.5, 1.0);
  for (int Which = 0; Which < 2; ++Which) {
    auto Run = [&] {
      X.upload();
      if (Which == 0)
        MESHAD_LAUNCH(untilLimit, 1, 32)(N, K, X.device(), Out.device(),
                                          Used.device());
      else
        MESHAD_LAUNCH(nested, 1, 32)(N, K, X.device(), Out.device());
      mt::checkLaunch("primal");
      Out.download();
      return mt::weightedSum(W.data(), Out.host(), N);
    };
    std::vector<double> Ref = mt::fdGradient(Run, X.host(), N * K);
    Run();
    for (int I = 0; I < N; ++I)
      DOut[I] = W[I];
    DOut.upload();
    DX.zero();
    if (Which == 0) {
      Used.download();
      int Early = 0;
      for (int I = 0; I < N; ++I)
        Early += Used[I] < K;
      std::printf("untilLimit: %d of %d threads break early\n", Early, N);
      mt::checkClose("some threads break, some do not",
                     Early > 0 && Early < N ? 1.0 : 0.0, 1.0);
      meshad::gradient(untilLimit, "x, out")
          .execute_kernel(dim3(1), dim3(32), N, K, X.device(), Out.device(),
                          Used.device(), DX.device(), DOut.device());
    } else {
      meshad::gradient(nested, "x, out")
          .execute_kernel(dim3(1), dim3(32), N, K, X.device(), Out.device(),
                          DX.device(), DOut.device());
    }
    mt::checkLaunch("gradient");
    DX.download();
    mt::checkArray(Which == 0 ? "untilLimit dx" : "nested dx", DX.host(),
                   Ref.data(), N * K);
  }
  return mt::summary();
}
// NUM: untilLimit: {{[1-7]}} of 8 threads break early
// NUM-NOT: FAIL
// NUM: numeric checks: 321 passed, 0 failed
