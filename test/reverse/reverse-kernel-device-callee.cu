// Reverse mode of kernels calling __device__ and __host__ __device__ helper
// functions: a helper returning a value, a helper calling a helper (nested
// pullbacks), a helper called twice with different active arguments, and a
// helper writing through a pointer into a local array.
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "KernelCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

__host__ __device__ double softAbs(double v) { return sqrt(v * v + 0.01); }

__host__ __device__ double spring(double a, double b, double k) {
  double s = softAbs(a - b) + 0.5;
  return 0.5 * k * s * s;
}

__device__ void rotate(double angle, double *p) {
  double c = cos(angle), s = sin(angle);
  double x = p[0], y = p[1];
  p[0] = c * x - s * y;
  p[1] = s * x + c * y;
}

__global__ void springs(int n, const double *x, const double *k, double *e) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int j = (i + 1) % n;
    double p[2] = {x[i], x[j]};
    rotate(0.3 * x[i], p);
    e[i] = spring(x[i], x[j], k[i]) + spring(p[0], 2.0 * p[1], 1.0) +
           softAbs(x[i]);
  }
}
// CHECK-LABEL: __global__ void springs_grad(int n, const double *x, const double *k, double *e, double *_d_x, double *_d_k, double *_d_e) {
// CHECK: spring_
// CHECK: rotate_
// CHECK-DAG: __device__ {{.*}}softAbs_
// CHECK-DAG: __host__ __device__ {{.*}}spring_

namespace mt = meshad::test;
constexpr int N = 29;
const dim3 Grid(2), Block(16);

int main() {
  mt::RandomInputs Rng;
  auto gs = meshad::gradient(springs, "x, k, e");
  std::vector<double> W(N);
  Rng.fill(W.data(), N, 0.5, 1);
  mt::DeviceArray<double> X(N), K(N), E(N), DX(N), DK(N), DE(N);
  Rng.fill(X.host(), N, -2, 2);
  Rng.fill(K.host(), N, 0.5, 2);
  auto Loss = [&] {
    X.upload();
    K.upload();
    MESHAD_LAUNCH(springs, Grid, Block)(N, X.device(), K.device(), E.device());
    E.download();
    return mt::weightedSum(W.data(), E.host(), N);
  };
  std::vector<double> RefX = mt::fdGradient(Loss, X.host(), N);
  std::vector<double> RefK = mt::fdGradient(Loss, K.host(), N);
  X.upload();
  K.upload();
  DX.zero();
  DK.zero();
  for (int I = 0; I < N; ++I)
    DE[I] = W[I];
  DE.upload();
  gs.execute_kernel(Grid, Block, N, X.device(), K.device(), E.device(),
                    DX.device(), DK.device(), DE.device());
  mt::checkLaunch("springs_grad");
  DX.download();
  DK.download();
  mt::checkArray("d springs/dx", DX.host(), RefX.data(), N);
  mt::checkArray("d springs/dk", DK.host(), RefK.data(), N);
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 58 passed, 0 failed
