// The C++ constructs of issue 13 in a kernel (CPU emulation): a switch on
// a per-thread value, a while (n--) loop, a[j++], a range-based for over a
// local array, an if with an initializer and an assert. Forward mode (a
// Jacobian-vector product) and reverse mode (the gradient of a weighted
// sum of the outputs) against central differences.
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "KernelCheck.h"
#include <cassert>
#include <cmath>
#include <meshad/Differentiator.h>

__global__ void mixed(int n, const double *x, double *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  assert(i < n);
  double w[3] = {x[i], 0.5 * x[i], x[(i + 1) % n]};
  double s = 0;
  int j = 0;
  s += w[j++] * w[2];
  s += w[j] * s;
  for (double &v : w)
    v = sin(v);
  switch (i % 3) {
  case 0:
    s += w[0];
    break;
  case 1:
    s *= w[1];
    [[fallthrough]];
  default:
    s += w[2] * w[2];
  }
  int k = 2;
  while (k--)
    s += 0.25 * w[k];
  if (double t = s * s; t > 0.5)
    s = t;
  y[i] = s;
}
// CHECK-LABEL: __global__ void mixed_darg1(int n, const double *x, double *y, const double *_d_x, double *_d_y) {
// CHECK-LABEL: __global__ void mixed_grad(int n, const double *x, double *y, double *_d_x, double *_d_y) {

namespace mt = meshad::test;
constexpr int N = 37;
const dim3 Grid(3), Block(16);

int main() {
  mt::RandomInputs Rng;
  auto d = meshad::differentiate(mixed, "x");
  auto g = meshad::gradient(mixed, "x, y");
  mt::DeviceArray<double> X(N), Y(N), DX(N), DY(N);
  std::vector<double> Dir(N), W(N);
  Rng.fill(Dir.data(), N, 0.5, 1);
  Rng.fill(W.data(), N, 0.5, 1);
  Rng.fill(X.host(), N, 0.2, 1.2);
  auto Run = [&] {
    X.upload();
    MESHAD_LAUNCH(mixed, Grid, Block)(N, X.device(), Y.device());
    Y.download();
  };
  // Away from s * s = 0.5 (the if with an initializer switches there).
  Run();
  for (int I = 0; I < N; ++I)
    if (std::fabs(Y[I] * Y[I] - 0.5) < 0.02 || std::fabs(Y[I] - 0.5) < 0.02)
      X[I] += 0.05;
  std::vector<double> Ref =
      mt::fdDirectional(Run, X.host(), Dir.data(), N, Y.host(), N);
  X.upload();
  for (int I = 0; I < N; ++I)
    DX[I] = Dir[I];
  DX.upload();
  d.execute_kernel(Grid, Block, N, X.device(), Y.device(), DX.device(),
                   DY.device());
  mt::checkLaunch("mixed_darg1");
  DY.download();
  mt::checkArray("mixed jvp", DY.host(), Ref.data(), N);

  auto Loss = [&] {
    Run();
    return mt::weightedSum(W.data(), Y.host(), N);
  };
  std::vector<double> RefX = mt::fdGradient(Loss, X.host(), N);
  X.upload();
  DX.zero();
  for (int I = 0; I < N; ++I)
    DY[I] = W[I];
  DY.upload();
  g.execute_kernel(Grid, Block, N, X.device(), Y.device(), DX.device(),
                   DY.device());
  mt::checkLaunch("mixed_grad");
  DX.download();
  mt::checkArray("d mixed/dx", DX.host(), RefX.data(), N);
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
