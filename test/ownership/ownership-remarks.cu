// The ownership analysis decides per kernel array whether adjoint stores need
// atomics, and says why with -fplugin-arg-meshad-remarks (or -Rpass=meshad).
// Elementwise and
// strided exclusive accesses get plain stores (behind a run-time 1D-launch
// check); neighbouring reads are tile-exclusive (shared-memory tile per
// block, halo atomics); a scalar parameter's adjoint is
// summed per thread, then per block, with one atomicAdd per block.
// Every gradient is still checked against finite differences.
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-remarks -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.log
// RUN: FileCheck %s --check-prefix=REMARK < %t.log
// RUN: FileCheck %s < %t.log
// RUN: %t | FileCheck %s --check-prefix=NUM
// -Rpass=meshad asks for the same remarks:
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -Rpass=meshad -I%test_inputs %s -fsyntax-only 2> %t.rpass
// RUN: FileCheck %s --check-prefix=REMARK < %t.rpass
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

__global__ void squares(const double *x, double *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = x[i] * x[i];
}
// REMARK-DAG: ownership-remarks.cu:[[#@LINE-2]]:19: remark: adjoint store to 'x': plain += (thread-exclusive
// CHECK-LABEL: __global__ void squares_grad(
// CHECK: meshad::requireLaunch1D();
// CHECK-NOT: atomicAdd
// CHECK: meshad::exclusiveAdd(&_d_x[i],
// CHECK: }

__global__ void pairs(const double *x, double *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = x[2 * i] * sin(x[2 * i + 1]);
}
// REMARK-DAG: ownership-remarks.cu:[[#@LINE-2]]:12: remark: adjoint store to 'x': plain += (thread-exclusive
// CHECK-LABEL: __global__ void pairs_grad(
// CHECK-NOT: atomicAdd
// CHECK: }

__global__ void neighbours(const double *x, double *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n - 1)
    y[i] = x[i] * x[i + 1];
}
// REMARK-DAG: ownership-remarks.cu:[[#@LINE-2]]:12: remark: adjoint store to 'x': shared-memory tile (tile-exclusive: x[i] and x[i + 1] overlap between neighbouring threads
// CHECK-LABEL: __global__ void neighbours_grad(
// CHECK: __shared__ double _d_x_tile[2048];
// CHECK: meshad::tileZero<1, 0, 1>(_d_x_tile);
// CHECK-NOT: atomicAdd
// CHECK: meshad::tileAdd<1, 0, 1>(_d_x_tile, _d_x, i, _r0 * x[i + 1]);
// CHECK: meshad::tileWriteBack<1, 0, 1>(_d_x_tile, _d_x);

__global__ void energy(const double *x, double *E, double k, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&E[0], 0.5 * k * x[i] * x[i]);
}
// REMARK-DAG: ownership-remarks.cu:[[#@LINE-2]]:{{[0-9]+}}: remark: adjoint store to 'k': plain += (uniform: every thread adds to it; summed in a register, reduced per block with warp shuffles, then one atomicAdd per block)
// CHECK-LABEL: __global__ void energy_grad(
// CHECK: double _d_k_part = 0.;
// CHECK-NOT: atomicAdd(_d_k
// CHECK: _d_k_part +=
// CHECK: meshad::blockReduceAtomicAdd(_d_k, _d_k_part);

__global__ void weighted(const double *x, const double *w, double *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = w[0] * x[i] * x[i];
}
// REMARK-DAG: ownership-remarks.cu:[[#@LINE-2]]:12: remark: adjoint store to 'w': plain += (uniform: every thread adds to it; summed in a register, reduced per block with warp shuffles, then one atomicAdd per block)
// CHECK-LABEL: __global__ void weighted_grad(
// CHECK: double _d_w_0_part = 0.;
// CHECK-NOT: atomicAdd
// CHECK: _d_w_0_part +=
// CHECK: meshad::blockReduceAtomicAdd(&_d_w[0], _d_w_0_part);

template <class F> double maxError(F &&Fn, int N) {
  double Worst = 0;
  for (int I = 0; I < N; ++I)
    Worst = std::fmax(Worst, Fn(I));
  return Worst;
}

int main() {
  meshad::test::RandomInputs Rng;
  const int N = 70;
  double X[2 * N], Y[N], W[N];
  Rng.fill(X, 2 * N, 0.2, 1.2);
  Rng.fill(W, N, -1, 1);
  auto Loss = [&](auto Kernel) {
    MESHAD_LAUNCH(Kernel, 3, 32)(X, Y, N);
    double L = 0;
    for (int I = 0; I < N; ++I)
      L += W[I] * Y[I];
    return L;
  };
  auto Check = [&](const char *Name, auto Grad, auto Kernel, int Inputs,
                   int Outputs) {
    double DX[2 * N] = {}, DY[N];
    for (int I = 0; I < N; ++I)
      DY[I] = I < Outputs ? W[I] : 0;
    Grad.execute_kernel(dim3(3), dim3(32), X, Y, N, DX, DY);
    for (int K = 0; K < Inputs; ++K)
      MESHAD_CHECK_CLOSE(Name, DX[K],
                         meshad::test::centralDifferenceAt(
                             [&] { return Loss(Kernel); }, X, K));
  };
  Check("squares", meshad::gradient(squares, "x, y"), squares, N, N);
  Check("pairs", meshad::gradient(pairs, "x, y"), pairs, 2 * N, N);
  Check("neighbours", meshad::gradient(neighbours, "x, y"), neighbours, N,
        N - 1);

  double E[1] = {0}, DE[1] = {1}, DK = 0, DXE[N] = {};
  auto GE = meshad::gradient(energy, "x, E, k");
  GE.execute_kernel(dim3(3), dim3(32), X, E, 2.0, N, DXE, DE, &DK);
  double Sum = 0;
  for (int I = 0; I < N; ++I) {
    MESHAD_CHECK_CLOSE("energy dx", DXE[I], 2.0 * X[I]);
    Sum += 0.5 * X[I] * X[I];
  }
  MESHAD_CHECK_CLOSE("energy dk", DK, Sum);

  // d/dw[0] of sum_i s_i w0 x_i^2 is sum_i s_i x_i^2; d/dx_i = 2 s_i w0 x_i.
  double Wt[1] = {1.7}, DW[1] = {0}, DXW[N] = {}, S[N], YW[N];
  for (int I = 0; I < N; ++I)
    S[I] = W[I];
  meshad::gradient(weighted, "x, w, y")
      .execute_kernel(dim3(3), dim3(32), X, Wt, YW, N, DXW, DW, S);
  double Expected = 0;
  for (int I = 0; I < N; ++I) {
    Expected += W[I] * X[I] * X[I];
    MESHAD_CHECK_CLOSE("weighted dx", DXW[I], 2 * W[I] * Wt[0] * X[I]);
  }
  MESHAD_CHECK_CLOSE("weighted dw", DW[0], Expected);
  return meshad::test::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 422 passed, 0 failed
