// Reverse mode of a kernel staging its block's inputs in DYNAMIC shared
// memory (extern __shared__, written MESHAD_DYNAMIC_SHARED for both CUDA and
// the CPU emulation) and reading neighbours after __syncthreads(): the
// adjoint of the dynamic buffer lives in the upper half of the derived
// kernel's dynamic shared memory (meshad::dynamicSharedShadow), zeroed by
// the block before the sweep; its adds are atomic (the block's threads share
// it). execute_kernel takes the primal's dynamic shared bytes and launches
// the gradient with twice as many. Checked against central differences on
// the CPU emulation; the CUDA spelling is checked to compile. Pointers into
// the buffer: cxx/dynamic-shared-pointers.cu; HVPs: cxx/dynamic-shared-hvp.cu.
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
// RUN: %if cuda %{ %clangxx -x cuda %cuda_flags --cuda-host-only -fsyntax-only -fplugin=%meshad_plugin -I%I -I%test_inputs %s %}
#include "KernelCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>
#include <meshad/cpu/Portable.h>

/// Launch with blockDim.x * sizeof(double) dynamic shared bytes; n is a
/// multiple of blockDim.x.
__global__ void ring(int n, const double *x, double *y) {
  MESHAD_DYNAMIC_SHARED(double, buf);
  int t = threadIdx.x, b = blockDim.x;
  int i = blockIdx.x * b + t;
  buf[t] = x[i];
  __syncthreads();
  y[i] = buf[t] * buf[(t + 1) % b] + sin(buf[(t + b - 1) % b]);
}
// CHECK-LABEL: __global__ void ring_grad(int n, const double *x, double *y, double *_d_x, double *_d_y) {
// CHECK-NEXT:   MESHAD_DYNAMIC_SHARED(double, buf);
// CHECK:        double *_d_buf = meshad::dynamicSharedShadow<double>();
// CHECK:        meshad::zeroDynamicSharedShadow();
// CHECK:        buf[t] = x[i];
// CHECK-NEXT:   __syncthreads();
// CHECK:        atomicAdd(&_d_buf[t], _r1 * buf[(t + 1) % b]);
// CHECK-NEXT:   atomicAdd(&_d_buf[(t + 1) % b], buf[t] * _r1);
// CHECK-NEXT:   atomicAdd(&_d_buf[(t + b - 1) % b], _r1 * cos(buf[(t + b - 1) % b]));
// CHECK:        __syncthreads();
// CHECK:        _d_x[i] += _d_buf[t];

namespace mt = meshad::test;
constexpr int B = 16, N = 3 * B;

int main() {
  mt::RandomInputs Rng;
  auto gr = meshad::gradient(ring, "x, y");
  const size_t Bytes = B * sizeof(double);
  std::vector<double> W(N);
  Rng.fill(W.data(), N, 0.5, 1);
  mt::DeviceArray<double> X(N), Y(N), DX(N), DY(N);
  Rng.fill(X.host(), N, 0.2, 1.2); // positive, cos > 0: no adjoint cancels
  auto Loss = [&] {
    X.upload();
    MESHAD_LAUNCH(ring, dim3(N / B), dim3(B), Bytes)(N, X.device(), Y.device());
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
  mt::checkLaunch("ring_grad");
  DX.download();
  mt::checkArray("d ring/dx", DX.host(), Ref.data(), N);
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 48 passed, 0 failed
