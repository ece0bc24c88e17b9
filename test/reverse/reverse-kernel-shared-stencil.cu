// Reverse mode of a 1D three-point stencil that loads a __shared__ tile with
// a one-element halo on each side and synchronizes with __syncthreads():
// the adjoint of a tile element gathers contributions from three threads
// (its own and both neighbours, across the barrier), and the halo loads
// carry adjoints back to the neighbouring blocks' elements. A partial last
// block checks the guards. The derived kernel must give the exact gradient
// (or meshad must reject the kernel with a clear error).
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "KernelCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

#define TILE 16

/// v[i] = 0.25 u[i-1] + 0.5 u[i]^2 + 0.25 sin(u[i+1]), u = 0 outside
/// [0, n). Launch with blockDim.x == TILE.
__global__ void stencil(int n, const double *u, double *v) {
  __shared__ double tile[TILE + 2];
  int i = blockIdx.x * TILE + threadIdx.x;
  int t = threadIdx.x + 1;
  tile[t] = i < n ? u[i] : 0.0;
  if (threadIdx.x == 0)
    tile[0] = i > 0 && i - 1 < n ? u[i - 1] : 0.0;
  if (threadIdx.x == TILE - 1)
    tile[TILE + 1] = i + 1 < n ? u[i + 1] : 0.0;
  __syncthreads();
  if (i < n)
    v[i] = 0.25 * tile[t - 1] + 0.5 * tile[t] * tile[t] +
           0.25 * sin(tile[t + 1]);
}
// CHECK-LABEL: __global__ void stencil_grad(int n, const double *u, double *v, double *_d_u, double *_d_v) {
// CHECK: __shared__ double _d_tile[18];
// CHECK: __syncthreads();
// CHECK: atomicAdd(&_d_tile[t - 1],
// CHECK: __syncthreads();
// CHECK: atomicAdd(&_d_u[i - 1],

namespace mt = meshad::test;
constexpr int N = 45; // three blocks, the last one partial
const dim3 Grid((N + TILE - 1) / TILE), Block(TILE);

int main() {
  mt::RandomInputs Rng;
  auto gs = meshad::gradient(stencil, "u, v");
  std::vector<double> W(N);
  Rng.fill(W.data(), N, 0.5, 1); // positive, u > 0: no adjoint cancels
  mt::DeviceArray<double> U(N), V(N), DU(N), DV(N);
  Rng.fill(U.host(), N, 0.2, 1.2);
  auto Loss = [&] {
    U.upload();
    MESHAD_LAUNCH(stencil, Grid, Block)(N, U.device(), V.device());
    V.download();
    return mt::weightedSum(W.data(), V.host(), N);
  };
  std::vector<double> Ref = mt::fdGradient(Loss, U.host(), N);
  // Analytic: d L/d u[k] = 0.25 w[k+1] + w[k] u[k] + 0.25 cos(u[k]) w[k-1].
  std::vector<double> Analytic(N);
  for (int K = 0; K < N; ++K)
    Analytic[K] = (K + 1 < N ? 0.25 * W[K + 1] : 0.0) + W[K] * U[K] +
                  (K > 0 ? 0.25 * std::cos(U[K]) * W[K - 1] : 0.0);
  mt::checkArray("stencil analytic vs finite differences", Analytic.data(),
                 Ref.data(), N);

  for (int Round = 0; Round < 2; ++Round) { // deterministic from run to run
    U.upload();
    DU.zero();
    for (int I = 0; I < N; ++I)
      DV[I] = W[I];
    DV.upload();
    gs.execute_kernel(Grid, Block, N, U.device(), V.device(), DU.device(),
                      DV.device());
    mt::checkLaunch("stencil_grad");
    DU.download();
    mt::checkArray("d stencil/du", DU.host(), Ref.data(), N);
  }
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 135 passed, 0 failed
