// CUDA-on-CPU emulation: blocks of 1024 threads (the CUDA maximum) in 1D, 2D
// and 3D shapes with several barriers, and the launch configurations CUDA
// rejects (cudaErrorInvalidConfiguration, also from cudaGetLastError).
//
// RUN: %clangxx %cpu_cuda_flags -I%test_inputs %s -o %t && %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: PASS 1024x1x1
// CHECK: PASS 32x32x1
// CHECK: PASS 8x8x16
// CHECK: PASS invalid configurations rejected
// CHECK: numeric checks: {{[0-9]+}} passed, 0 failed

#include "NumericCheck.h"

#include <vector>

namespace {

/// Reverses each block's 1024 elements through shared memory, twice with
/// a rotation in between: Out[b][t] = In[b][(t + 1) % 1024].
__global__ void shuffleBlock(const int *In, int *Out) {
  __shared__ int Buf[1024];
  unsigned T =
      (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  unsigned Base = 1024 * (blockIdx.x + gridDim.x * blockIdx.y);
  Buf[1023 - T] = In[Base + T];
  __syncthreads();
  int V = Buf[(1023 - T + 1023) % 1024]; // In[(T + 1) % 1024]
  __syncthreads();
  Buf[T] = V;
  __syncthreads();
  Out[Base + T] = Buf[T];
}

bool runShape(dim3 Block) {
  dim3 Grid(3, 2);
  const unsigned N = 6 * 1024;
  std::vector<int> In(N);
  for (unsigned I = 0; I < N; ++I)
    In[I] = int(I * 2654435761u % 100000);
  int *DIn, *DOut;
  cudaMalloc(&DIn, N * sizeof(int));
  cudaMalloc(&DOut, N * sizeof(int));
  cudaMemcpy(DIn, In.data(), N * sizeof(int), cudaMemcpyHostToDevice);
  bool Ok = MESHAD_LAUNCH(shuffleBlock, Grid, Block)(DIn, DOut) == cudaSuccess;
  std::vector<int> Out(N);
  cudaMemcpy(Out.data(), DOut, N * sizeof(int), cudaMemcpyDeviceToHost);
  for (unsigned I = 0; I < N; ++I)
    Ok = Ok && Out[I] == In[I / 1024 * 1024 + (I % 1024 + 1) % 1024];
  cudaFree(DIn);
  cudaFree(DOut);
  return Ok;
}

__global__ void noop() {}

void check(const char *Name, bool Ok) {
  meshad::test::checker().close(Name, Ok, 1.0, 0.0);
}

} // namespace

int main() {
  check("1024x1x1", runShape(dim3(1024)));
  check("32x32x1", runShape(dim3(32, 32)));
  check("8x8x16", runShape(dim3(8, 8, 16)));
  bool Rejected = true;
  for (auto [Grid, Block] : {std::pair<dim3, dim3>{1, 1025},
                             {1, dim3(32, 33)},
                             {1, dim3(1, 1, 65)},
                             {0, 32},
                             {dim3(1, 65536), 32},
                             {1, 0}}) {
    Rejected =
        Rejected &&
        MESHAD_LAUNCH(noop, Grid, Block)() == cudaErrorInvalidConfiguration &&
        cudaGetLastError() == cudaErrorInvalidConfiguration &&
        cudaGetLastError() == cudaSuccess;
  }
  Rejected = Rejected && meshad::cpu::launch(noop, 1, 32, 228 * 1024) ==
                             cudaErrorInvalidConfiguration;
  cudaGetLastError();
  check("invalid configurations rejected", Rejected);
  return meshad::test::summary();
}
