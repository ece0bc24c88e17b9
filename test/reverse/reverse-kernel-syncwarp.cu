// Reverse mode across a warp barrier: lanes exchange values through
// __shared__ memory around __syncwarp(). The reverse sweep must mirror the
// barrier (as it does __syncthreads): a lane reads its own element's adjoint
// only after its neighbour has added to it. The intrinsic table
// (lib/IR/Intrinsics.def) makes __syncwarp a barrier; before it, reverse
// mode dropped it from the reverse sweep.
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "KernelCheck.h"
#include <meshad/Differentiator.h>

/// v[t] = u[t ^ 1]^2 u[t] within one warp of 32 lanes.
__global__ void pairs(const double *u, double *v) {
  __shared__ double s[32];
  int t = threadIdx.x;
  s[t] = u[t] * u[t];
  __syncwarp();
  v[t] = s[t ^ 1] * u[t];
}
// CHECK-LABEL: __global__ void pairs_grad(const double *u, double *v, double *_d_u, double *_d_v) {
// CHECK: s[t] = u[t] * u[t];
// CHECK-NEXT: __syncwarp(
// CHECK: atomicAdd(&_d_s[t ^ 1],
// CHECK: __syncwarp(
// CHECK: atomicAdd(&_d_u[t], 2. * _d_s[t] * u[t]);

namespace mt = meshad::test;
constexpr int N = 32;

int main() {
  mt::RandomInputs Rng;
  auto g = meshad::gradient(pairs, "u, v");
  std::vector<double> W(N);
  Rng.fill(W.data(), N, 0.5, 1);
  mt::DeviceArray<double> U(N), V(N), DU(N), DV(N);
  Rng.fill(U.host(), N, 0.2, 1.2);
  auto Loss = [&] {
    U.upload();
    MESHAD_LAUNCH(pairs, dim3(1), dim3(N))(U.device(), V.device());
    V.download();
    return mt::weightedSum(W.data(), V.host(), N);
  };
  std::vector<double> Ref = mt::fdGradient(Loss, U.host(), N);
  U.upload();
  DU.zero();
  for (int I = 0; I < N; ++I)
    DV[I] = W[I];
  DV.upload();
  g.execute_kernel(dim3(1), dim3(N), U.device(), V.device(), DU.device(),
                   DV.device());
  mt::checkLaunch("pairs_grad");
  DU.download();
  mt::checkArray("d pairs/du", DU.host(), Ref.data(), N);
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: {{[0-9]+}} passed, 0 failed
