// The runtime of loops run in step across a block (meshad/codegen/WarpStep.h,
// issue 15), on the CPU emulation: meshad::blockMaxSteps is the largest count
// of the block's threads; meshad::blockUniformAdds adds, per (address, value)
// pair, the block's sum to the common element with one atomicAdd (threads
// with a null address add nothing), each warp's own sum when the warps name
// different elements, and each thread's own value when the lanes of a warp
// do. Blocks of 80 threads (two full warps and a partial one of 16 lanes),
// an in-step loop of several iterations (both shared buffers, reused), and
// blocks of 3 threads with more adds than threads. Exact sums of small
// integers.
//
// RUN: %clangxx %cpu_cuda_flags -I%test_inputs %s -o %t && %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: PASS blockMaxSteps
// CHECK: PASS blockUniformAdds same element
// CHECK: PASS blockUniformAdds element per warp
// CHECK: PASS blockUniformAdds element per lane
// CHECK: PASS blockUniformAdds more adds than threads
// CHECK: numeric checks: 5 passed, 0 failed
#include "NumericCheck.h"
#include <meshad/Differentiator.h>
#include <meshad/cpu/Portable.h>

#include <cmath>

/// A thread's own trip count.
__host__ __device__ inline int count(int T) { return (T * 7) % 11; }

__global__ void steps(int *Out) {
  int T = threadIdx.x;
  Out[blockIdx.x * blockDim.x + T] = meshad::blockMaxSteps(count(T) + blockIdx.x);
}

// At step S, threads with S <= count(T) and T % 3 != 0 add T * S to
// Same[blockIdx.x]; every thread adds 1 to Warp[warp] and T + 1 to
// Lane[T % 4] (different elements per warp, per lane).
__global__ void adds(double *Same, double *Warp, double *Lane) {
  int T = threadIdx.x;
  int Own = count(T);
  for (int S = meshad::blockMaxSteps(Own); S > 0; --S) {
    double *At = S <= Own && T % 3 != 0 ? &Same[blockIdx.x] : nullptr;
    meshad::blockUniformAdds(S, At, double(T * S), &Warp[T / 32], 1.0,
                             &Lane[T % 4], double(T + 1));
  }
}

// Five adds in blocks of 3 threads: add K gets (K + 1) * (T + 1).
__global__ void many(double *Out) {
  double T = threadIdx.x + 1;
  meshad::blockUniformAdds(1, &Out[0], T, &Out[1], 2 * T, &Out[2], 3 * T,
                           &Out[3], 4 * T, &Out[4], 5 * T);
}

int main() {
  const int Threads = 80, Blocks = 2;
  int *DSteps;
  double *DSame, *DWarp, *DLane, *DMany;
  cudaMalloc((void **)&DSteps, Blocks * Threads * sizeof(int));
  cudaMalloc((void **)&DSame, Blocks * sizeof(double));
  cudaMalloc((void **)&DWarp, 3 * sizeof(double));
  cudaMalloc((void **)&DLane, 4 * sizeof(double));
  cudaMalloc((void **)&DMany, 5 * sizeof(double));
  cudaMemset(DSame, 0, Blocks * sizeof(double));
  cudaMemset(DWarp, 0, 3 * sizeof(double));
  cudaMemset(DLane, 0, 4 * sizeof(double));
  cudaMemset(DMany, 0, 5 * sizeof(double));
  MESHAD_LAUNCH(steps, dim3(Blocks), dim3(Threads))(DSteps);
  MESHAD_LAUNCH(adds, dim3(Blocks), dim3(Threads))(DSame, DWarp, DLane);
  MESHAD_LAUNCH(many, dim3(2), dim3(3))(DMany);
  int Steps[Blocks * Threads];
  double Same[Blocks], Warp[3], Lane[4], Many[5];
  cudaMemcpy(Steps, DSteps, sizeof(Steps), cudaMemcpyDeviceToHost);
  cudaMemcpy(Same, DSame, sizeof(Same), cudaMemcpyDeviceToHost);
  cudaMemcpy(Warp, DWarp, sizeof(Warp), cudaMemcpyDeviceToHost);
  cudaMemcpy(Lane, DLane, sizeof(Lane), cudaMemcpyDeviceToHost);
  cudaMemcpy(Many, DMany, sizeof(Many), cudaMemcpyDeviceToHost);

  int MaxCount = 0, Bad = 0;
  for (int T = 0; T < Threads; ++T)
    MaxCount = count(T) > MaxCount ? count(T) : MaxCount;
  for (int B = 0; B < Blocks; ++B)
    for (int T = 0; T < Threads; ++T)
      Bad += Steps[B * Threads + T] != MaxCount + B;
  MESHAD_CHECK_CLOSE("blockMaxSteps", double(Bad), 0.0);

  double Expected = 0;
  for (int T = 0; T < Threads; ++T)
    for (int S = 1; S <= count(T); ++S)
      Expected += T % 3 != 0 ? T * S : 0;
  MESHAD_CHECK_CLOSE("blockUniformAdds same element",
                     std::fabs(Same[0] - Expected) + std::fabs(Same[1] - Expected),
                     0.0);
  double WarpBad = 0;
  for (int W = 0; W < 3; ++W)
    WarpBad += std::fabs(Warp[W] - double(Blocks * MaxCount * (W < 2 ? 32 : 16)));
  MESHAD_CHECK_CLOSE("blockUniformAdds element per warp", WarpBad, 0.0);
  double LaneBad = 0;
  for (int K = 0; K < 4; ++K) {
    double E = 0;
    for (int T = K; T < Threads; T += 4)
      E += Blocks * MaxCount * (T + 1);
    LaneBad += std::fabs(Lane[K] - E);
  }
  MESHAD_CHECK_CLOSE("blockUniformAdds element per lane", LaneBad, 0.0);
  double ManyBad = 0;
  for (int K = 0; K < 5; ++K)
    ManyBad += std::fabs(Many[K] - 2.0 * (K + 1) * 6);
  MESHAD_CHECK_CLOSE("blockUniformAdds more adds than threads", ManyBad, 0.0);
  return meshad::test::summary();
}
