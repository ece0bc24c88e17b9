// Hessian-vector products of a kernel with dynamic shared memory (issue
// 13): the HVP kernel is launched with four times the primal's dynamic
// shared bytes (execute_kernel multiplies the bytes it is given), the
// buffer in slot 0, the gradient's adjoint in slot 1, the buffer's tangent
// in slot 2 and the adjoint's tangent in slot 3
// (`meshad::dynamicSharedShadow<double, 3, 4>()`), slots 1 to 3 zeroed by
// the block (`meshad::zeroDynamicSharedShadow<4>()`). H v against central
// differences of the gradient along v on the CPU emulation; a pointer
// local into the buffer too.
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "KernelCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>
#include <meshad/cpu/Portable.h>

/// Launch with blockDim.x * sizeof(double) dynamic shared bytes.
__global__ void ringEnergy(int n, const double *x, double *e) {
  MESHAD_DYNAMIC_SHARED(double, buf);
  int t = threadIdx.x, b = blockDim.x;
  int i = blockIdx.x * b + t;
  buf[t] = x[i] * x[i];
  __syncthreads();
  double *q = buf + (t + 1) % b;
  atomicAdd(e, buf[t] * q[0] + sin(buf[(t + b - 1) % b]) * x[i]);
}
// CHECK-LABEL: __global__ void ringEnergy_hvp
// CHECK-DAG: meshad::dynamicSharedShadow<double, 1, 4>()
// CHECK-DAG: meshad::dynamicSharedShadow<double, 2, 4>()
// CHECK-DAG: meshad::dynamicSharedShadow<double, 3, 4>()
// CHECK-DAG: meshad::zeroDynamicSharedShadow<4>();

namespace mt = meshad::test;
constexpr int B = 8, N = 3 * B;

int main() {
  mt::RandomInputs Rng;
  auto g = meshad::gradient(ringEnergy, "x, e");
  auto h = meshad::hvp(ringEnergy, "x");
  const size_t Bytes = B * sizeof(double);
  cudaStream_t Stream = nullptr;
  mt::DeviceArray<double> X(N), E(1), DX(N), DE(1), VX(N), HX(N), Seed(1);
  std::vector<double> X0(N), V(N);
  Rng.fill(X0.data(), N, -1, 1);
  Rng.fill(V.data(), N, -1, 1);
  auto Gradient = [&](double T, std::vector<double> &G) {
    for (int I = 0; I < N; ++I)
      X[I] = X0[I] + T * V[I];
    X.upload();
    E.zero();
    DX.zero();
    DE[0] = 1;
    DE.upload();
    g.execute_kernel(dim3(N / B), dim3(B), Bytes, Stream, N, X.device(),
                     E.device(), DX.device(), DE.device());
    DX.download();
    G.assign(DX.host(), DX.host() + N);
  };
  std::vector<double> Ref(N);
  for (int I = 0; I < N; ++I)
    Ref[I] = mt::centralDifference(
        [&](double T) {
          std::vector<double> G;
          Gradient(T, G);
          return G[I];
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
  Seed[0] = 1;
  Seed.upload();
  h.execute_kernel(dim3(N / B), dim3(B), Bytes, Stream, N, X.device(),
                   E.device(), VX.device(), HX.device(), Seed.device());
  mt::checkLaunch("ringEnergy_hvp");
  HX.download();
  mt::checkArray("H v", HX.host(), Ref.data(), N);
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 24 passed, 0 failed
