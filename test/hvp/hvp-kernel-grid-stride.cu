// The Hessian-vector product of a grid-stride kernel: the accumulations of
// the finished HVP kernel are lowered on its own code, where the reverse
// sweep recomputes the loop counter as gid + (_cnt0 - 1)*T. The ownership
// analysis proves that form thread-exclusive (plain +=), and the result of
// the scalar parameter k is summed per thread and reduced per block, as in
// gradients.
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -fplugin-arg-meshad-remarks -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: FileCheck %s --check-prefix=REMARK < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "KernelCheck.h"
#include <meshad/Differentiator.h>

__global__ void springs(const double *x, double *E, double k, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x) {
    double d = x[i] * x[i] * k;
    atomicAdd(&E[0], d * d);
  }
}
// CHECK-LABEL: __global__ void springs_hvp_0_2(
// CHECK: meshad::requireLaunch1D();
// CHECK: double _d2_d_k_part = 0.;
// CHECK: i = (int)(blockIdx.x * blockDim.x + threadIdx.x) + (_cnt0 - 1) * (blockDim.x * gridDim.x);
// CHECK: _d2_d_x[i] += 
// CHECK: _d2_d_k_part += 
// CHECK-NOT: atomicAdd(&_d2_d_x
// CHECK: meshad::blockReduceAtomicAdd(
// CHECK-NEXT: }
// The remarks of the gradient and then of the HVP kernel: the same.
// REMARK-COUNT-2: remark: adjoint store to 'x': plain += (thread-exclusive: every access is i + {0} with i a grid-stride loop counter)
// REMARK: remark: adjoint store to 'k': plain += (uniform: every thread adds to it; summed in a register, reduced per block with warp shuffles, then one atomicAdd per block)
// REMARK-COUNT-2: remark: adjoint store to 'x': plain += (thread-exclusive: every access is i + {0} with i a grid-stride loop counter)
// REMARK: remark: adjoint store to 'k': plain += (uniform: every thread adds to it; summed in a register, reduced per block with warp shuffles, then one atomicAdd per block)
// REMARK-NOT: atomicAdd (

namespace mt = meshad::test;
constexpr int N = 37;
const dim3 Grid(2), Block(8); // 16 threads, 2 or 3 elements each

int main() {
  mt::RandomInputs Rng;
  auto g = meshad::gradient(springs, "x, E, k");
  auto h = meshad::hvp(springs, "x, k");

  std::vector<double> X0(N), V(N);
  Rng.fill(X0.data(), N, -1.2, 1.2);
  Rng.fill(V.data(), N, -1, 1);
  double K0 = 0.7, VK = -0.4;
  mt::DeviceArray<double> X(N), E(1), DX(N), DK(1), DE(1), VX(N), HX(N),
      HK(1), SE(1);

  // grad(x0 + t v, k0 + t vk) into Grad (N + 1 entries: x then k).
  std::vector<double> Grad(N + 1);
  auto Gradient = [&](double T) {
    for (int I = 0; I < N; ++I)
      X[I] = X0[I] + T * V[I];
    X.upload();
    E.zero();
    DX.zero();
    DK.zero();
    DE[0] = 1;
    DE.upload();
    g.execute_kernel(Grid, Block, X.device(), E.device(), K0 + T * VK, N,
                     DX.device(), DE.device(), DK.device());
    mt::checkLaunch("springs_grad");
    DX.download();
    DK.download();
    for (int I = 0; I < N; ++I)
      Grad[I] = DX[I];
    Grad[N] = DK[0];
  };
  std::vector<double> Ref(N + 1);
  for (int J = 0; J <= N; ++J)
    Ref[J] = mt::centralDifference(
        [&](double T) {
          Gradient(T);
          return Grad[J];
        },
        0.0);

  for (int I = 0; I < N; ++I) {
    X[I] = X0[I];
    VX[I] = V[I];
  }
  X.upload();
  VX.upload();
  E.zero();
  HX.zero();
  HK.zero();
  SE[0] = 1;
  SE.upload();
  h.execute_kernel(Grid, Block, X.device(), E.device(), K0, N, VX.device(), VK,
                   HX.device(), HK.device(), SE.device());
  mt::checkLaunch("springs_hvp");
  HX.download();
  HK.download();
  mt::checkArray("Hv x", HX.host(), Ref.data(), N);
  mt::checkClose("Hv k", HK[0], Ref[N]);
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 38 passed, 0 failed
