// Fuzzer finding (tools/fuzz/FINDINGS.md, "overwritten scalar parameter"):
// a kernel's scalar parameter that each thread overwrites: every thread
// uses the shared *_d_k as the adjoint of its own copy of k and resets it
// to 0 at the overwrite, wiping the other threads' contributions (here dk
// comes out as one thread's share instead of the sum over all threads).
// (bug: the reverse sweep assigns *_d_k = 0. at `k = ...`)
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -I%test_inputs %s -o %t
// RUN: %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
#include "KernelCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

__global__ void scaleShift(int n, const double *x, double k, double *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    y[i] = k * x[i];
    k = 0.5;
    y[i] += k * x[i];
  }
}

namespace mt = meshad::test;
constexpr int N = 20;
const dim3 Grid(3), Block(8);

int main() {
  mt::RandomInputs Rng;
  auto g = meshad::gradient(scaleShift, "x, k, y");
  std::vector<double> W(N);
  Rng.fill(W.data(), N, 0.5, 1);
  mt::DeviceArray<double> X(N), Y(N), DX(N), DY(N), DK(1);
  Rng.fill(X.host(), N, 0.5, 1.5);
  double K = Rng.uniform(0.5, 2);
  auto Loss = [&] {
    X.upload();
    MESHAD_LAUNCH(scaleShift, Grid, Block)(N, X.device(), K, Y.device());
    Y.download();
    return mt::weightedSum(W.data(), Y.host(), N);
  };
  double RefK = mt::fdGradient(Loss, &K, 1)[0];
  X.upload();
  DX.zero();
  DK.zero();
  for (int I = 0; I < N; ++I)
    DY[I] = W[I];
  DY.upload();
  g.execute_kernel(Grid, Block, N, X.device(), K, Y.device(), DX.device(),
                   DK.device(), DY.device());
  mt::checkLaunch("scaleShift_grad");
  DK.download();
  MESHAD_CHECK_CLOSE("d scaleShift/dk", DK[0], RefK);
  return mt::summary();
}
