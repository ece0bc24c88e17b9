// -fplugin-arg-meshad-atomics=all turns the ownership analysis off (the
// baseline of the ownership benchmark): every adjoint store that other
// threads can reach is an atomicAdd, scalar parameters included, and the
// remark says so. The gradients are unchanged (checked against finite
// differences and a closed form).
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-atomics=all -fplugin-arg-meshad-remarks -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.log
// RUN: FileCheck %s --check-prefix=REMARK < %t.log
// RUN: FileCheck %s < %t.log
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

__global__ void squares(const double *x, double *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = x[i] * x[i];
}
// REMARK-DAG: ownership-atomics-all.cu:[[#@LINE-2]]:19: remark: adjoint store to 'x': atomicAdd (atomics=all: the ownership analysis is off)
// CHECK-LABEL: __global__ void squares_grad(
// CHECK-NOT: requireLaunch1D
// CHECK: atomicAdd(&_d_x[i]
// CHECK: }

__global__ void energy(const double *x, double *E, double k, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&E[0], 0.5 * k * x[i] * x[i]);
}
// REMARK-DAG: ownership-atomics-all.cu:[[#@LINE-2]]:{{[0-9]+}}: remark: adjoint store to 'k': atomicAdd (atomics=all: the ownership analysis is off)
// CHECK-LABEL: __global__ void energy_grad(
// CHECK-NOT: _d_k_part
// CHECK: atomicAdd(_d_k,
// CHECK-NOT: blockReduceAtomicAdd
// CHECK: }

int main() {
  meshad::test::RandomInputs Rng;
  const int N = 70;
  double X[N], Y[N], W[N];
  Rng.fill(X, N, 0.2, 1.2);
  Rng.fill(W, N, -1, 1);
  auto Loss = [&] {
    MESHAD_LAUNCH(squares, 3, 32)(X, Y, N);
    double L = 0;
    for (int I = 0; I < N; ++I)
      L += W[I] * Y[I];
    return L;
  };
  double DX[N] = {}, DY[N];
  for (int I = 0; I < N; ++I)
    DY[I] = W[I];
  meshad::gradient(squares, "x, y")
      .execute_kernel(dim3(3), dim3(32), X, Y, N, DX, DY);
  for (int K = 0; K < N; ++K)
    MESHAD_CHECK_CLOSE("squares", DX[K],
                       meshad::test::centralDifferenceAt(Loss, X, K));

  double E[1] = {0}, DE[1] = {1}, DK = 0, DXE[N] = {};
  meshad::gradient(energy, "x, E, k")
      .execute_kernel(dim3(3), dim3(32), X, E, 2.0, N, DXE, DE, &DK);
  double Sum = 0;
  for (int I = 0; I < N; ++I) {
    MESHAD_CHECK_CLOSE("energy dx", DXE[I], 2.0 * X[I]);
    Sum += 0.5 * X[I] * X[I];
  }
  MESHAD_CHECK_CLOSE("energy dk", DK, Sum);
  return meshad::test::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: {{[0-9]+}} passed, 0 failed
