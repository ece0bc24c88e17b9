// MESHAD_HVP on a __host__ __device__ energy: its Hessian-vector product is
// generated under a stable name that kernels call directly (a matrix-free
// Newton step applies H per element), checked on the CPU emulation against
// central differences of meshad::gradient along random directions.
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "KernelCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>
#include <string>
#include <vector>

MESHAD_HVP("x")
__host__ __device__ double cell(const double *x, double k) {
  double s = 0;
  for (int j = 0; j < 3; ++j)
    s += k * x[j] * x[j] * x[(j + 1) % 3] + cos(x[j]);
  return s;
}
// CHECK-LABEL: __host__ __device__ void cell_hvp_0(const double *x, double k, const double *_d2_x, double *_d2_d_x) {

/// Hv per cell of 3 values: the Hessian of sum_cells cell(x_cell) is block
/// diagonal, and each thread applies one block.
__global__ void applyH(const double *x, const double *v, double *Hv, double k,
                       int cells) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < cells)
    cell_hvp_0(x + 3 * c, k, v + 3 * c, Hv + 3 * c);
}

namespace mt = meshad::test;
constexpr int Cells = 10, N = 3 * Cells;

int main() {
  mt::RandomInputs Rng;
  auto g = meshad::gradient(cell, "x");
  mt::DeviceArray<double> X(N), V(N), H(N);
  Rng.fill(X.host(), N, -1, 1);
  Rng.fill(V.host(), N, -1, 1);
  X.upload();
  V.upload();
  H.zero();
  double K = Rng.uniform(0.5, 1.5);
  MESHAD_LAUNCH(applyH, dim3(2), dim3(8))(X.device(), V.device(), H.device(),
                                           K, Cells);
  mt::checkLaunch("applyH");
  H.download();
  for (int I = 0; I < N; ++I) {
    int C = I / 3;
    double Fd = mt::centralDifference(
        [&](double T) {
          double P[3], G[3] = {0, 0, 0};
          for (int J = 0; J < 3; ++J)
            P[J] = X[3 * C + J] + T * V[3 * C + J];
          g.execute(P, K, G);
          return G[I % 3];
        },
        0.0);
    mt::checkClose("Hv[" + std::to_string(I) + "]", H[I], Fd);
  }
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 30 passed, 0 failed
