// CUDA-on-CPU emulation: a tiled 1D stencil in static shared memory with
// __syncthreads, against a CPU reference; the same kernel without the
// barrier reads halo cells before their threads wrote them, which shows that
// __syncthreads is a real barrier between the threads of a block.
//
// RUN: %clangxx %cpu_cuda_flags -I%test_inputs %s -o %t && %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: PASS stencil with __syncthreads
// CHECK: PASS missing __syncthreads is visible
// CHECK: numeric checks: {{[0-9]+}} passed, 0 failed

#include "NumericCheck.h"

#include <vector>

namespace {

constexpr int Radius = 3;
constexpr int BlockSize = 128;

/// Out[I] = sum of W[K + Radius] * In[I + K] for |K| <= Radius, zero outside.
template <bool Sync>
__global__ void stencil(const double *In, double *Out, const double *W, int N) {
  __shared__ double Tile[BlockSize + 2 * Radius];
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  int Local = threadIdx.x + Radius;
  Tile[Local] = I < N ? In[I] : 0.0;
  if (threadIdx.x < Radius) {
    int Left = I - Radius, Right = I + BlockSize;
    Tile[Local - Radius] = Left >= 0 && Left < N ? In[Left] : 0.0;
    Tile[Local + BlockSize] = Right < N ? In[Right] : 0.0;
  }
  if (Sync)
    __syncthreads();
  if (I >= N)
    return;
  double Sum = 0.0;
  for (int K = -Radius; K <= Radius; ++K)
    Sum += W[K + Radius] * Tile[Local + K];
  Out[I] = Sum;
}

std::vector<double> runStencil(bool Sync, const std::vector<double> &In,
                               const std::vector<double> &W) {
  int N = int(In.size());
  double *DIn, *DOut, *DW;
  cudaMalloc(&DIn, N * sizeof(double));
  cudaMalloc(&DOut, N * sizeof(double));
  cudaMalloc(&DW, W.size() * sizeof(double));
  cudaMemcpy(DIn, In.data(), N * sizeof(double), cudaMemcpyHostToDevice);
  cudaMemcpy(DW, W.data(), W.size() * sizeof(double), cudaMemcpyHostToDevice);
  dim3 Grid((N + BlockSize - 1) / BlockSize);
  if (Sync)
    MESHAD_LAUNCH(stencil<true>, Grid, BlockSize)(DIn, DOut, DW, N);
  else
    MESHAD_LAUNCH(stencil<false>, Grid, BlockSize)(DIn, DOut, DW, N);
  std::vector<double> Out(N);
  cudaMemcpy(Out.data(), DOut, N * sizeof(double), cudaMemcpyDeviceToHost);
  cudaFree(DIn);
  cudaFree(DOut);
  cudaFree(DW);
  return Out;
}

/// The largest relative error of \p Got against \p Expected.
double maxError(const std::vector<double> &Got,
                const std::vector<double> &Expected) {
  double Max = 0.0;
  for (size_t I = 0; I < Got.size(); ++I) {
    double E = meshad::test::relativeError(Got[I], Expected[I]);
    Max = E > Max || E != E ? E : Max;
  }
  return Max;
}

} // namespace

int main() {
  meshad::test::RandomInputs Rng;
  const int N = 1000; // not a multiple of the block size
  std::vector<double> In(N), W(2 * Radius + 1), Expected(N);
  for (double &V : In)
    V = Rng.uniform(-1, 1);
  for (double &V : W)
    V = Rng.uniform(-1, 1);
  for (int I = 0; I < N; ++I) {
    double Sum = 0.0;
    for (int K = -Radius; K <= Radius; ++K)
      Sum += W[K + Radius] * (I + K >= 0 && I + K < N ? In[I + K] : 0.0);
    Expected[I] = Sum;
  }
  // Same operations in the same order: the results are identical.
  meshad::test::checker().close("stencil with __syncthreads",
                                maxError(runStencil(true, In, W), Expected),
                                0.0, 0.0);
  bool Differs = maxError(runStencil(false, In, W), Expected) > 1e-3;
  meshad::test::checker().close("missing __syncthreads is visible", !Differs,
                                0.0, 0.0);
  return meshad::test::summary();
}
