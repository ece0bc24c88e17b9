// A pointer chosen by `?:` between differentiated arrays (`double *a = s ?
// z : y`) aliases both: its tangent or adjoint pointer is chosen the same
// way (`_d_a = s ? _d_z : _d_y`). Before, the choice lost the arrays'
// aliasing: host code that launched a kernel on `a` got no gradient launch
// (silently wrong). In C++ functions (both modes) and in host code that
// launches a kernel on the chosen buffer. Gradients against central differences, forward against
// the gradient's directional derivative.
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "KernelCheck.h"
#include "NumericCheck.h"
#include <algorithm>
#include <cmath>
#include <meshad/Differentiator.h>
#include <vector>

double pick(double *y, double *z, bool s) {
  double *a = s ? z : y;
  return a[0] * a[1] + sin(y[2]) * z[2];
}
// CHECK-LABEL: double pick_darg0(double *y, double *z, bool s, double *_d_y, double *_d_z) {
// CHECK: _d_a = s ? _d_z : _d_y;
// CHECK-LABEL: void pick_grad(double *y, double *z, bool s, double *_d_y, double *_d_z) {
// CHECK: _d_a = s ? _d_z : _d_y;

__global__ void sumSquares(int n, const double *a, double *E) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(E, a[i] * a[i] * (1 + 0.1 * i));
}

/// E = sum w_i a_i^2 over the chosen buffer, plus sum y_i.
double chosen(const double *yHost, const double *zHost, int n, bool s) {
  size_t Bytes = n * sizeof(double);
  double *y, *z, *E;
  cudaMalloc(&y, Bytes);
  cudaMalloc(&z, Bytes);
  cudaMalloc(&E, sizeof(double));
  cudaMemcpy(y, yHost, Bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(z, zHost, Bytes, cudaMemcpyHostToDevice);
  cudaMemset(E, 0, sizeof(double));
  double *a = s ? z : y;
  MESHAD_LAUNCH(sumSquares, dim3((n + 31) / 32), dim3(32))(n, a, E);
  double e = 0;
  cudaMemcpy(&e, E, sizeof(double), cudaMemcpyDeviceToHost);
  cudaFree(y);
  cudaFree(z);
  cudaFree(E);
  return e;
}
// CHECK-LABEL: void chosen_grad(const double *yHost, const double *zHost, int n, bool s, double *_d_yHost, double *_d_zHost) {
// CHECK: _d_a = s ? _d_z : _d_y;
// CHECK: MESHAD_LAUNCH(sumSquares_grad, {{.*}})(n, a, E, _d_a, _d_E);

namespace mt = meshad::test;

int main() {
  mt::RandomInputs Rng;
  auto Fy = meshad::differentiate(pick, "y");
  auto Fz = meshad::differentiate(pick, "z");
  auto G = meshad::gradient(pick, "y, z");
  for (bool S : {false, true}) {
    // Forward mode takes a tangent for both arrays (a may alias either).
    double Y[3], Z[3], DirY[3], DirZ[3], DY[3] = {}, DZ[3] = {}, Zero[3] = {};
    Rng.fill(Y, 3, -1.5, 1.5);
    Rng.fill(Z, 3, -1.5, 1.5);
    Rng.fill(DirY, 3, -1, 1);
    Rng.fill(DirZ, 3, -1, 1);
    G.execute(Y, Z, S, DY, DZ);
    double JvpY = 0, JvpZ = 0;
    for (int K = 0; K < 3; ++K) {
      double FdY = mt::centralDifferenceAt([&] { return pick(Y, Z, S); }, Y, K);
      double FdZ = mt::centralDifferenceAt([&] { return pick(Y, Z, S); }, Z, K);
      MESHAD_CHECK_CLOSE("rev pick/dy", DY[K], FdY);
      MESHAD_CHECK_CLOSE("rev pick/dz", DZ[K], FdZ);
      JvpY += FdY * DirY[K];
      JvpZ += FdZ * DirZ[K];
    }
    MESHAD_CHECK_CLOSE("fwd pick . dir y", Fy.execute(Y, Z, S, DirY, Zero), JvpY);
    MESHAD_CHECK_CLOSE("fwd pick . dir z", Fz.execute(Y, Z, S, Zero, DirZ), JvpZ);
  }

  const int N = 40;
  auto H = meshad::gradient(chosen, "yHost, zHost");
  for (bool S : {false, true}) {
    std::vector<double> Y(N), Z(N), DY(N, 0.0), DZ(N, 0.0);
    Rng.fill(Y.data(), N, -1, 1);
    Rng.fill(Z.data(), N, -1, 1);
    auto Loss = [&] { return chosen(Y.data(), Z.data(), N, S); };
    std::vector<double> RefY = mt::fdGradient(Loss, Y.data(), N);
    std::vector<double> RefZ = mt::fdGradient(Loss, Z.data(), N);
    // The array not chosen does not reach E: its derivative is exactly 0
    // (on a GPU the differences see the atomics' rounding, about 1e-11).
    std::fill((S ? RefY : RefZ).begin(), (S ? RefY : RefZ).end(), 0.0);
    H.execute(Y.data(), Z.data(), N, S, DY.data(), DZ.data());
    mt::checkLaunch("chosen_grad");
    mt::checkArray("chosen dE/dy", DY.data(), RefY.data(), N);
    mt::checkArray("chosen dE/dz", DZ.data(), RefZ.data(), N);
  }
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 176 passed, 0 failed
