// The runtime of loops run in step across a warp (meshad/codegen/WarpStep.h,
// issue 15), on the CPU emulation, in blocks of 48 threads (a full warp and
// a partial one of 16 lanes): meshad::warpMaxSteps is the largest count of
// the warp's lanes; meshad::warpUniformAdd adds the sum of the set lanes to
// their common element with one atomicAdd (lanes with a null address add
// nothing, an all-null warp nothing at all), and each lane's own value when
// the set lanes name different elements. Exact sums of small integers.
//
// RUN: %clangxx %cpu_cuda_flags -I%test_inputs %s -o %t && %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: PASS warpMaxSteps
// CHECK: PASS warpUniformAdd same element
// CHECK: PASS warpUniformAdd different elements
// CHECK: numeric checks: 3 passed, 0 failed
#include "NumericCheck.h"
#include <meshad/Differentiator.h>
#include <meshad/cpu/Portable.h>

__global__ void steps(int *Out) {
  int T = threadIdx.x;
  Out[T] = meshad::warpMaxSteps(T < 32 ? (T * 7) % 11 : T % 5);
}

// Lanes T % 3 != 0 add T to Sums[blockIdx.x] (uniform); Per[T % 4] gets
// T + 1 from every lane (different elements).
__global__ void adds(double *Sums, double *Per) {
  int T = threadIdx.x;
  double *At = T % 3 != 0 ? &Sums[blockIdx.x] : nullptr;
  meshad::warpUniformAdd(At, double(T));
  meshad::warpUniformAdd(&Per[T % 4], double(T + 1));
  meshad::warpUniformAdd<double>(nullptr, 1.0);
}

int main() {
  int *DSteps;
  double *DSums, *DPer;
  cudaMalloc((void **)&DSteps, 48 * sizeof(int));
  cudaMalloc((void **)&DSums, 2 * sizeof(double));
  cudaMalloc((void **)&DPer, 4 * sizeof(double));
  cudaMemset(DSums, 0, 2 * sizeof(double));
  cudaMemset(DPer, 0, 4 * sizeof(double));
  MESHAD_LAUNCH(steps, dim3(1), dim3(48))(DSteps);
  MESHAD_LAUNCH(adds, dim3(2), dim3(48))(DSums, DPer);
  int Steps[48];
  double Sums[2], Per[4];
  cudaMemcpy(Steps, DSteps, sizeof(Steps), cudaMemcpyDeviceToHost);
  cudaMemcpy(Sums, DSums, sizeof(Sums), cudaMemcpyDeviceToHost);
  cudaMemcpy(Per, DPer, sizeof(Per), cudaMemcpyDeviceToHost);
  int Bad = 0;
  for (int T = 0; T < 48; ++T)
    Bad += Steps[T] != (T < 32 ? 10 : 4);
  MESHAD_CHECK_CLOSE("warpMaxSteps", double(Bad), 0.0);
  double Expected = 0, Got = Sums[0] + Sums[1];
  for (int T = 0; T < 48; ++T)
    Expected += T % 3 != 0 ? 2 * T : 0;
  MESHAD_CHECK_CLOSE("warpUniformAdd same element", Got, Expected);
  double PerBad = 0;
  for (int K = 0; K < 4; ++K) {
    double E = 0;
    for (int T = K; T < 48; T += 4)
      E += 2 * (T + 1);
    PerBad += std::fabs(Per[K] - E);
  }
  MESHAD_CHECK_CLOSE("warpUniformAdd different elements", PerBad, 0.0);
  return meshad::test::summary();
}
