// CUDA-on-CPU emulation: a shared-memory tree reduction per block (a
// __syncthreads in a loop), summed over the blocks on the host, with
// integer-valued doubles so that the expected sum is exact; and the
// __syncthreads_count/_and/_or barriers.
//
// RUN: %clangxx %cpu_cuda_flags -I%test_inputs %s -o %t && %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: PASS block sums
// CHECK: PASS total
// CHECK: PASS __syncthreads_count
// CHECK: PASS __syncthreads_and
// CHECK: PASS __syncthreads_or
// CHECK: numeric checks: {{[0-9]+}} passed, 0 failed

#include "NumericCheck.h"

#include <vector>

namespace {

constexpr unsigned BlockSize = 256;

/// Partial[blockIdx.x] = sum of the block's elements of In.
__global__ void blockSum(const double *In, double *Partial, int N) {
  __shared__ double Buf[BlockSize];
  unsigned I = blockIdx.x * blockDim.x + threadIdx.x;
  Buf[threadIdx.x] = I < unsigned(N) ? In[I] : 0.0;
  __syncthreads();
  for (unsigned S = blockDim.x / 2; S > 0; S >>= 1) {
    if (threadIdx.x < S)
      Buf[threadIdx.x] += Buf[threadIdx.x + S];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    Partial[blockIdx.x] = Buf[0];
}

/// Out[3 * b + 0..2]: count, and, or of (threadIdx.x % Mod == 0).
__global__ void votes(int *Out, int Mod) {
  int P = threadIdx.x % Mod == 0;
  int Count = __syncthreads_count(P);
  int All = __syncthreads_and(P);
  int Any = __syncthreads_or(P);
  if (threadIdx.x == 0) {
    Out[3 * blockIdx.x] = Count;
    Out[3 * blockIdx.x + 1] = All;
    Out[3 * blockIdx.x + 2] = Any;
  }
}

void check(const char *Name, double Got, double Expected) {
  meshad::test::checker().close(Name, Got, Expected, 0.0);
}

void checkSums() {
  const int N = 10000;
  const unsigned Blocks = (N + BlockSize - 1) / BlockSize;
  std::vector<double> In(N);
  for (int I = 0; I < N; ++I)
    In[I] = double(I % 101) - 50.0;
  double *DIn, *DPartial;
  cudaMalloc(&DIn, N * sizeof(double));
  cudaMalloc(&DPartial, Blocks * sizeof(double));
  cudaMemcpy(DIn, In.data(), N * sizeof(double), cudaMemcpyHostToDevice);
  MESHAD_LAUNCH(blockSum, Blocks, BlockSize)(DIn, DPartial, N);
  std::vector<double> Partial(Blocks);
  cudaMemcpy(Partial.data(), DPartial, Blocks * sizeof(double),
             cudaMemcpyDeviceToHost);
  int Bad = 0;
  double Total = 0.0, Expected = 0.0;
  for (unsigned B = 0; B < Blocks; ++B) {
    double Sum = 0.0;
    for (unsigned I = B * BlockSize; I < (B + 1) * BlockSize && I < N; ++I)
      Sum += In[I];
    Bad += Partial[B] != Sum;
    Total += Partial[B];
    Expected += Sum;
  }
  check("block sums", Bad, 0.0);
  check("total", Total, Expected);
  cudaFree(DIn);
  cudaFree(DPartial);
}

void checkVotes() {
  int *DOut;
  cudaMalloc(&DOut, 6 * sizeof(int));
  MESHAD_LAUNCH(votes, 1, 96)(DOut, 5);     // 20 of 96 pass
  MESHAD_LAUNCH(votes, 1, 96)(DOut + 3, 1); // all pass
  int Out[6];
  cudaMemcpy(Out, DOut, sizeof Out, cudaMemcpyDeviceToHost);
  check("__syncthreads_count", Out[0] == 20 && Out[3] == 96, 1.0);
  check("__syncthreads_and", Out[1] == 0 && Out[4] == 1, 1.0);
  check("__syncthreads_or", Out[2] == 1 && Out[5] == 1, 1.0);
  cudaFree(DOut);
}

} // namespace

int main() {
  checkSums();
  checkVotes();
  return meshad::test::summary();
}
