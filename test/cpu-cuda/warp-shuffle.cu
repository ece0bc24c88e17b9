// CUDA-on-CPU emulation: warp shuffles and votes among the 32 lanes of a
// warp: __shfl_down_sync reductions (float, double, int), a __shfl_xor_sync
// butterfly, __shfl_sync broadcasts in segments of 8 lanes, a __shfl_up_sync
// scan, a half-warp mask, ballots, and a block reduction of warp sums
// through shared memory as generated reduction code does it.
//
// RUN: %clangxx %cpu_cuda_flags -I%test_inputs %s -o %t && %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: PASS shfl_down float
// CHECK: PASS shfl_down double
// CHECK: PASS shfl_down int
// CHECK: PASS shfl_xor butterfly
// CHECK: PASS shfl width 8
// CHECK: PASS shfl_up scan
// CHECK: PASS half-warp mask
// CHECK: PASS ballot any all
// CHECK: PASS block reduction of warp sums
// CHECK: numeric checks: {{[0-9]+}} passed, 0 failed

#include "NumericCheck.h"

#include <vector>

namespace {

constexpr unsigned Full = 0xffffffffu;

template <class T> __device__ T warpSum(T V) {
  for (int Offset = warpSize / 2; Offset > 0; Offset /= 2)
    V += __shfl_down_sync(Full, V, Offset);
  return V;
}

/// Out[warp] = sum of In over the warp (lane 0 writes).
template <class T> __global__ void warpSums(const T *In, T *Out) {
  unsigned I = blockIdx.x * blockDim.x + threadIdx.x;
  T Sum = warpSum(In[I]);
  if (threadIdx.x % 32 == 0)
    Out[I / 32] = Sum;
}

/// Every lane gets its warp's sum; Out[I] per thread.
__global__ void butterfly(const int *In, int *Out) {
  unsigned I = blockIdx.x * blockDim.x + threadIdx.x;
  int V = In[I];
  for (int Mask = 16; Mask > 0; Mask /= 2)
    V += __shfl_xor_sync(Full, V, Mask);
  Out[I] = V;
}

/// Out[I] = In of lane 5 of I's segment of 8 lanes.
__global__ void broadcast8(const int *In, int *Out) {
  Out[threadIdx.x] = __shfl_sync(Full, In[threadIdx.x], 5, 8);
}

/// Inclusive prefix sum within each warp.
__global__ void scan(const int *In, int *Out) {
  int V = In[threadIdx.x];
  unsigned Lane = threadIdx.x % 32;
  for (unsigned D = 1; D < 32; D *= 2) {
    int N = __shfl_up_sync(Full, V, D);
    if (Lane >= D)
      V += N;
  }
  Out[threadIdx.x] = V;
}

/// Lanes 0-15 reduce among themselves; lanes 16-31 do not take part.
__global__ void halfWarp(const int *In, int *Out) {
  int V = In[threadIdx.x];
  if (threadIdx.x < 16)
    for (int Offset = 8; Offset > 0; Offset /= 2)
      V += __shfl_down_sync(0x0000ffffu, V, Offset, 16);
  Out[threadIdx.x] = V;
}

/// Out[0..3] per warp: ballot(lane % 3 == 0), any(lane == 7), all(lane >= 0),
/// all(lane < 31).
__global__ void votes(unsigned *Out) {
  unsigned Lane = threadIdx.x % 32, W = threadIdx.x / 32;
  unsigned Ballot = __ballot_sync(Full, Lane % 3 == 0);
  int Any = __any_sync(Full, Lane == 7);
  int All = __all_sync(Full, Lane < 32);
  int NotAll = __all_sync(Full, Lane < 31);
  if (Lane == 0) {
    Out[4 * W] = Ballot;
    Out[4 * W + 1] = Any;
    Out[4 * W + 2] = All;
    Out[4 * W + 3] = NotAll;
  }
}

/// Out[blockIdx.x] = block sum: warp sums, then the first warp sums them.
__global__ void blockReduce(const double *In, double *Out) {
  __shared__ double WarpSums[32];
  unsigned I = blockIdx.x * blockDim.x + threadIdx.x;
  double V = warpSum(In[I]);
  unsigned Lane = threadIdx.x % 32, W = threadIdx.x / 32;
  if (Lane == 0)
    WarpSums[W] = V;
  __syncthreads();
  if (W == 0) {
    V = Lane < blockDim.x / 32 ? WarpSums[Lane] : 0.0;
    V = warpSum(V);
    if (Lane == 0)
      Out[blockIdx.x] = V;
  }
}

template <class T> T *toDevice(const std::vector<T> &H) {
  T *D;
  cudaMalloc(&D, H.size() * sizeof(T));
  cudaMemcpy(D, H.data(), H.size() * sizeof(T), cudaMemcpyHostToDevice);
  return D;
}

template <class T> std::vector<T> toHost(const T *D, size_t N) {
  std::vector<T> H(N);
  cudaMemcpy(H.data(), D, N * sizeof(T), cudaMemcpyDeviceToHost);
  return H;
}

void checkCount(const char *Name, int Mismatches) {
  meshad::test::checker().close(Name, Mismatches, 0.0, 0.0);
}

/// Warp sums of integer values in T (exact), 4 blocks of 128 threads.
template <class T> void checkWarpSums(const char *Name) {
  const unsigned N = 512;
  std::vector<T> In(N);
  for (unsigned I = 0; I < N; ++I)
    In[I] = T(int(I * 7 % 23) - 11);
  T *DIn = toDevice(In), *DOut;
  cudaMalloc(&DOut, N / 32 * sizeof(T));
  MESHAD_LAUNCH(warpSums<T>, 4, 128)(DIn, DOut);
  std::vector<T> Out = toHost(DOut, N / 32);
  int Bad = 0;
  for (unsigned W = 0; W < N / 32; ++W) {
    T Sum = 0;
    for (unsigned L = 0; L < 32; ++L)
      Sum += In[32 * W + L];
    Bad += Out[W] != Sum;
  }
  checkCount(Name, Bad);
  cudaFree(DIn);
  cudaFree(DOut);
}

void checkIntShuffles() {
  const unsigned N = 64;
  std::vector<int> In(N);
  for (unsigned I = 0; I < N; ++I)
    In[I] = int(I * I % 17);
  int *DIn = toDevice(In), *DOut;
  cudaMalloc(&DOut, N * sizeof(int));

  MESHAD_LAUNCH(butterfly, 1, N)(DIn, DOut);
  std::vector<int> Out = toHost(DOut, N);
  int Bad = 0;
  for (unsigned I = 0; I < N; ++I) {
    int Sum = 0;
    for (unsigned L = 0; L < 32; ++L)
      Sum += In[I / 32 * 32 + L];
    Bad += Out[I] != Sum;
  }
  checkCount("shfl_xor butterfly", Bad);

  MESHAD_LAUNCH(broadcast8, 1, N)(DIn, DOut);
  Out = toHost(DOut, N);
  Bad = 0;
  for (unsigned I = 0; I < N; ++I)
    Bad += Out[I] != In[I / 8 * 8 + 5];
  checkCount("shfl width 8", Bad);

  MESHAD_LAUNCH(scan, 1, N)(DIn, DOut);
  Out = toHost(DOut, N);
  Bad = 0;
  for (unsigned I = 0; I < N; ++I) {
    int Sum = 0;
    for (unsigned J = I / 32 * 32; J <= I; ++J)
      Sum += In[J];
    Bad += Out[I] != Sum;
  }
  checkCount("shfl_up scan", Bad);

  MESHAD_LAUNCH(halfWarp, 1, 32)(DIn, DOut);
  Out = toHost(DOut, 32);
  int Half = 0;
  for (unsigned L = 0; L < 16; ++L)
    Half += In[L];
  Bad = Out[0] != Half;
  for (unsigned L = 16; L < 32; ++L)
    Bad += Out[L] != In[L];
  checkCount("half-warp mask", Bad);
  cudaFree(DIn);
  cudaFree(DOut);
}

void checkVotes() {
  unsigned *DOut;
  cudaMalloc(&DOut, 8 * sizeof(unsigned));
  MESHAD_LAUNCH(votes, 1, 64)(DOut);
  std::vector<unsigned> Out = toHost(DOut, 8);
  unsigned Expected = 0;
  for (unsigned L = 0; L < 32; L += 3)
    Expected |= 1u << L;
  int Bad = 0;
  for (unsigned W = 0; W < 2; ++W)
    Bad += Out[4 * W] != Expected || Out[4 * W + 1] != 1 ||
           Out[4 * W + 2] != 1 || Out[4 * W + 3] != 0;
  checkCount("ballot any all", Bad);
  cudaFree(DOut);
}

void checkBlockReduce() {
  const unsigned Blocks = 6, Threads = 1024, N = Blocks * Threads;
  std::vector<double> In(N);
  for (unsigned I = 0; I < N; ++I)
    In[I] = double(int(I % 37) - 18);
  double *DIn = toDevice(In), *DOut;
  cudaMalloc(&DOut, Blocks * sizeof(double));
  MESHAD_LAUNCH(blockReduce, Blocks, Threads)(DIn, DOut);
  std::vector<double> Out = toHost(DOut, Blocks);
  int Bad = 0;
  for (unsigned B = 0; B < Blocks; ++B) {
    double Sum = 0;
    for (unsigned I = 0; I < Threads; ++I)
      Sum += In[B * Threads + I];
    Bad += Out[B] != Sum;
  }
  checkCount("block reduction of warp sums", Bad);
  cudaFree(DIn);
  cudaFree(DOut);
}

} // namespace

int main() {
  checkWarpSums<float>("shfl_down float");
  checkWarpSums<double>("shfl_down double");
  checkWarpSums<int>("shfl_down int");
  checkIntShuffles();
  checkVotes();
  checkBlockReduce();
  return meshad::test::summary();
}
