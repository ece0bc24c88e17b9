// Reverse mode of grid-stride loops (for (i = global id; i < n; i +=
// blockDim.x * gridDim.x)): every thread handles several elements, in an
// elementwise kernel and in a kernel that accumulates a per-thread partial
// sum (a register value overwritten every iteration) and writes it once.
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "KernelCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

__global__ void stride(int n, const double *x, double *y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    y[i] = tanh(x[i]) * x[i] + x[i];
}
// CHECK-LABEL: __global__ void stride_grad(int n, const double *x, double *y, double *_d_x, double *_d_y) {
// CHECK: blockDim.x * gridDim.x

__global__ void partialSums(int n, const double *x, double *partial) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  double acc = 0;
  for (int i = tid; i < n; i += blockDim.x * gridDim.x)
    acc = acc * cos(x[i]) + x[i] * x[i];
  partial[tid] = acc;
}
// CHECK-LABEL: __global__ void partialSums_grad(int n, const double *x, double *partial, double *_d_x, double *_d_partial) {

namespace mt = meshad::test;
constexpr int N = 53;
const dim3 Grid(2), Block(8); // 16 threads, 3 or 4 elements each

int main() {
  mt::RandomInputs Rng;
  auto gs = meshad::gradient(stride, "x, y");
  auto gp = meshad::gradient(partialSums, "x, partial");

  std::vector<double> W(N);
  Rng.fill(W.data(), N, -1, 1);
  mt::DeviceArray<double> X(N), Y(N), DX(N), DY(N);
  Rng.fill(X.host(), N, -1.5, 1.5);
  auto Loss = [&] {
    X.upload();
    MESHAD_LAUNCH(stride, Grid, Block)(N, X.device(), Y.device());
    Y.download();
    return mt::weightedSum(W.data(), Y.host(), N);
  };
  std::vector<double> Ref = mt::fdGradient(Loss, X.host(), N);
  X.upload();
  DX.zero();
  for (int I = 0; I < N; ++I)
    DY[I] = W[I];
  DY.upload();
  gs.execute_kernel(Grid, Block, N, X.device(), Y.device(), DX.device(),
                    DY.device());
  mt::checkLaunch("stride_grad");
  DX.download();
  mt::checkArray("d stride/dx", DX.host(), Ref.data(), N);

  // partialSums: 16 outputs, L = sum_t w_t partial_t.
  const int T = 16;
  mt::DeviceArray<double> P(T), DP(T);
  Rng.fill(X.host(), N, 0.2, 1.2); // cos > 0: no adjoint cancels to ~0
  Rng.fill(W.data(), T, 0.5, 1);
  auto LossP = [&] {
    X.upload();
    MESHAD_LAUNCH(partialSums, Grid, Block)(N, X.device(), P.device());
    P.download();
    return mt::weightedSum(W.data(), P.host(), T);
  };
  Ref = mt::fdGradient(LossP, X.host(), N);
  X.upload();
  DX.zero();
  for (int I = 0; I < T; ++I)
    DP[I] = W[I];
  DP.upload();
  gp.execute_kernel(Grid, Block, N, X.device(), P.device(), DX.device(),
                    DP.device());
  mt::checkLaunch("partialSums_grad");
  DX.download();
  mt::checkArray("d partialSums/dx", DX.host(), Ref.data(), N);
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 106 passed, 0 failed
