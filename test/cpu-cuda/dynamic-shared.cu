// CUDA-on-CPU emulation: dynamic shared memory (MESHAD_DYNAMIC_SHARED, which
// is `extern __shared__ T name[]` under CUDA) sized by the launch, fresh for
// each block, used with a barrier.
//
// RUN: %clangxx %cpu_cuda_flags -I%test_inputs %s -o %t && %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: PASS dynamic shared memory
// CHECK: PASS starts undefined in each block
// CHECK: numeric checks: {{[0-9]+}} passed, 0 failed

#include "NumericCheck.h"

#include <meshad/cpu/Portable.h>

#include <cmath>
#include <vector>

namespace {

/// Out[b][t] = In[b][blockDim - 1 - t] through dynamic shared memory;
/// Fresh[b] = 1 when the buffer held NaN (never written) at block start.
__global__ void reverse(const float *In, float *Out, int *Fresh) {
  MESHAD_DYNAMIC_SHARED(float, Buf);
  unsigned Base = blockIdx.x * blockDim.x;
  if (threadIdx.x == 0)
    Fresh[blockIdx.x] = std::isnan(Buf[blockDim.x - 1]);
  __syncthreads();
  Buf[threadIdx.x] = In[Base + threadIdx.x];
  __syncthreads();
  Out[Base + threadIdx.x] = Buf[blockDim.x - 1 - threadIdx.x];
}

} // namespace

int main() {
  const unsigned Blocks = 4, Threads = 200, N = Blocks * Threads;
  std::vector<float> In(N);
  for (unsigned I = 0; I < N; ++I)
    In[I] = float(I) * 0.5f;
  float *DIn, *DOut;
  int *DFresh;
  cudaMalloc(&DIn, N * sizeof(float));
  cudaMalloc(&DOut, N * sizeof(float));
  cudaMalloc(&DFresh, Blocks * sizeof(int));
  cudaMemcpy(DIn, In.data(), N * sizeof(float), cudaMemcpyHostToDevice);
  MESHAD_LAUNCH(reverse, Blocks, Threads, Threads * sizeof(float))
  (DIn, DOut, DFresh);
  std::vector<float> Out(N);
  int Fresh[Blocks];
  cudaMemcpy(Out.data(), DOut, N * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(Fresh, DFresh, sizeof Fresh, cudaMemcpyDeviceToHost);
  int Bad = 0, Stale = 0;
  for (unsigned I = 0; I < N; ++I)
    Bad += Out[I] != In[I / Threads * Threads + Threads - 1 - I % Threads];
  for (int F : Fresh)
    Stale += F != 1;
  cudaFree(DIn);
  cudaFree(DOut);
  cudaFree(DFresh);
  meshad::test::checker().close("dynamic shared memory", Bad, 0.0, 0.0);
  meshad::test::checker().close("starts undefined in each block", Stale, 0.0,
                                0.0);
  return meshad::test::summary();
}
