// Pointer locals into a kernel's dynamic shared memory in reverse mode
// (issue 13): `double *q = buf + 1;` takes the adjoint pointer `_d_q =
// _d_buf + 1` into the buffer's shadow (the upper half of the derived
// kernel's dynamic shared memory), and the adds through it are atomic (the
// block shares it: GPU/LowerAccumulations::markSharedPointers); a pointer
// chosen per thread (`buf + t`) and moved (`++p`) too. Checked against
// central differences on the CPU emulation.
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "KernelCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>
#include <meshad/cpu/Portable.h>

/// Launch with 2 * blockDim.x * sizeof(double) dynamic shared bytes.
__global__ void pairs(int n, const double *x, double *y) {
  MESHAD_DYNAMIC_SHARED(double, buf);
  int t = threadIdx.x, b = blockDim.x;
  int i = blockIdx.x * b + t;
  double *sq = buf + b; // the second half: squares
  buf[t] = x[i];
  sq[t] = x[i] * x[i];
  __syncthreads();
  double *p = buf + t;
  double v = p[0] * sq[(t + 1) % b];
  ++p;
  if (t + 1 < b)
    v += sin(p[0]);
  y[i] = v;
}
// CHECK-LABEL: __global__ void pairs_grad(int n, const double *x, double *y, double *_d_x, double *_d_y) {
// CHECK:        double *_d_buf = meshad::dynamicSharedShadow<double>();
// CHECK:        _d_sq = _d_buf + b;
// CHECK:        atomicAdd(&_d_sq[

namespace mt = meshad::test;
constexpr int B = 8, N = 3 * B;

int main() {
  mt::RandomInputs Rng;
  auto gr = meshad::gradient(pairs, "x, y");
  const size_t Bytes = 2 * B * sizeof(double);
  std::vector<double> W(N);
  Rng.fill(W.data(), N, 0.5, 1);
  mt::DeviceArray<double> X(N), Y(N), DX(N), DY(N);
  Rng.fill(X.host(), N, -1, 1);
  auto Loss = [&] {
    X.upload();
    MESHAD_LAUNCH(pairs, dim3(N / B), dim3(B), Bytes)(N, X.device(), Y.device());
    Y.download();
    return mt::weightedSum(W.data(), Y.host(), N);
  };
  std::vector<double> Ref = mt::fdGradient(Loss, X.host(), N);
  X.upload();
  DX.zero();
  for (int I = 0; I < N; ++I)
    DY[I] = W[I];
  DY.upload();
  cudaStream_t Stream = nullptr;
  gr.execute_kernel(dim3(N / B), dim3(B), Bytes, Stream, N, X.device(),
                    Y.device(), DX.device(), DY.device());
  mt::checkLaunch("pairs_grad");
  DX.download();
  mt::checkArray("d pairs/dx", DX.host(), Ref.data(), N);
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 24 passed, 0 failed
