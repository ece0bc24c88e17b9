// Calls of operator() in a kernel (issue 15, item 3; CPU emulation): a
// `__device__` functor with constant members, a lambda written in the
// kernel that captures a value read from the input (its derivative flows
// through the capture) and a `__host__ __device__` functor called inside a
// `__device__` helper. Forward mode (a Jacobian-vector product) and reverse
// mode (the gradient of a weighted sum of the outputs) against central
// differences.
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "KernelCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

namespace mt = meshad::test;

struct Gauss {
  double s;
  __device__ double operator()(double x) const { return exp(-s * x * x); }
};

struct Blend {
  double w;
  __host__ __device__ double operator()(double a, double b) const {
    return w * a + (1 - w) * b * b;
  }
};

__device__ double blended(double a, double b) { return Blend{0.3}(a, b); }

__global__ void shade(int n, const double *x, double *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  Gauss g{0.7};
  double c = x[(i + 1) % n];
  auto mix = [=](double t) { return c * t + sin(t); };
  y[i] = mix(g(x[i])) + blended(x[i], c);
}
// CHECK-LABEL: void shade_darg1(int n, const double *x, double *y, const double *_d_x, double *_d_y) {
// CHECK: Gauss_call_pushforward(g, x[i], _d_x[i]);
// CHECK: mix_lambda_pushforward(c, {{.*}});
// CHECK-LABEL: void shade_grad(int n, const double *x, double *y, double *_d_x, double *_d_y) {
// CHECK: mix_lambda_pullback(c, _t{{[0-9]+}}, {{.*}});
// CHECK: Gauss_call_pullback(g, x[i], {{.*}});
// CHECK-LABEL: double mix_lambda(double c, double t) {

constexpr int N = 37;
const dim3 Grid(3), Block(16);

int main() {
  mt::RandomInputs Rng;
  auto d = meshad::differentiate(shade, "x");
  auto g = meshad::gradient(shade, "x, y");
  mt::DeviceArray<double> X(N), Y(N), DX(N), DY(N);
  std::vector<double> Dir(N), W(N);
  Rng.fill(Dir.data(), N, 0.5, 1);
  Rng.fill(W.data(), N, 0.5, 1);
  Rng.fill(X.host(), N, -1.2, 1.2);
  auto Run = [&] {
    X.upload();
    MESHAD_LAUNCH(shade, Grid, Block)(N, X.device(), Y.device());
    Y.download();
  };
  std::vector<double> Ref =
      mt::fdDirectional(Run, X.host(), Dir.data(), N, Y.host(), N);
  X.upload();
  for (int I = 0; I < N; ++I)
    DX[I] = Dir[I];
  DX.upload();
  d.execute_kernel(Grid, Block, N, X.device(), Y.device(), DX.device(),
                   DY.device());
  mt::checkLaunch("shade_darg1");
  DY.download();
  mt::checkArray("shade jvp", DY.host(), Ref.data(), N);

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
  mt::checkLaunch("shade_grad");
  DX.download();
  mt::checkArray("d shade/dx", DX.host(), RefX.data(), N);
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
