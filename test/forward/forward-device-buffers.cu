// Forward mode of host code that manages device buffers with the CUDA
// runtime: a buffer that carries a derivative gets a tangent buffer,
// allocated, copied and freed beside it (cudaMalloc, cudaMemcpy in every
// direction, cudaFree); a memset, and a copy of values without derivative
// into such a buffer, zero its tangent. What Hessian-vector products of
// host code with device buffers build on (test/thrust/thrust-hvp.cu).
// Checked against central differences along a direction and for a scalar.
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "NumericCheck.h"
#include <meshad/Differentiator.h>

/// y = [0, x1, x2, c0] on the device; E = a * sum y_i^2 + x0 * y3.
double staged(const double *xHost, const double *cHost, double a) {
  double *x, *y;
  cudaMalloc(&x, 4 * sizeof(double));
  cudaMalloc(&y, 4 * sizeof(double));
  cudaMemcpy(x, xHost, 4 * sizeof(double), cudaMemcpyHostToDevice);
  cudaMemset(y, 0, 4 * sizeof(double));
  cudaMemcpy(y + 1, x + 1, 2 * sizeof(double), cudaMemcpyDeviceToDevice);
  cudaMemcpy(y + 3, cHost, sizeof(double), cudaMemcpyHostToDevice);
  double h[4], g[4];
  cudaMemcpy(h, y, 4 * sizeof(double), cudaMemcpyDeviceToHost);
  cudaMemcpy(g, x, 4 * sizeof(double), cudaMemcpyDeviceToHost);
  cudaFree(x);
  cudaFree(y);
  double e = g[0] * h[3];
  for (int i = 0; i < 4; ++i)
    e += a * h[i] * h[i];
  return e;
}
// CHECK-LABEL: double staged_darg0(const double *xHost, const double *cHost, double a, const double *_d_xHost) {
// CHECK: cudaMalloc(&x, (unsigned long)4 * 8);
// CHECK-NEXT: cudaMalloc(&_d_x, (unsigned long)4 * 8);
// CHECK: cudaMemcpy((void *)x, (const void *)xHost, (unsigned long)4 * 8, cudaMemcpyHostToDevice);
// CHECK-NEXT: cudaMemcpy((void *)_d_x, (const void *)_d_xHost, (unsigned long)4 * 8, cudaMemcpyHostToDevice);
// CHECK-NEXT: cudaMemset((void *)y, 0, (unsigned long)4 * 8);
// CHECK-NEXT: cudaMemset((void *)_d_y, 0, (unsigned long)4 * 8);
// CHECK-NEXT: cudaMemcpy((void *)(y + 1), (const void *)(x + 1), (unsigned long)2 * 8, cudaMemcpyDeviceToDevice);
// CHECK-NEXT: cudaMemcpy((void *)(_d_y + 1), (const void *)(_d_x + 1), (unsigned long)2 * 8, cudaMemcpyDeviceToDevice);
// CHECK-NEXT: cudaMemcpy((void *)(y + 3), (const void *)cHost, 8, cudaMemcpyHostToDevice);
// CHECK-NEXT: cudaMemset((void *)(_d_y + 3), 0, 8);
// CHECK: cudaMemcpy((void *)_d_h, (const void *)_d_y, (unsigned long)4 * 8, cudaMemcpyDeviceToHost);
// CHECK: cudaFree((void *)_d_x);
// CHECK: cudaFree((void *)_d_y);
// CHECK-LABEL: double staged_darg2(const double *xHost, const double *cHost, double a) {
// CHECK-NOT: _d_x
// CHECK: return _d_e;

namespace mt = meshad::test;

int main() {
  mt::RandomInputs Rng;
  double X[4], C[1], Dir[4];
  Rng.fill(X, 4, -1.0, 1.0);
  Rng.fill(C, 1, -1.0, 1.0);
  Rng.fill(Dir, 4, -1.0, 1.0);
  double A = Rng.uniform(0.5, 1.5);
  auto Dx = meshad::differentiate(staged, "xHost");
  auto Da = meshad::differentiate(staged, "a");
  double Fd = mt::centralDifference(
      [&](double T) {
        double XT[4];
        for (int I = 0; I < 4; ++I)
          XT[I] = X[I] + T * Dir[I];
        return staged(XT, C, A);
      },
      0.0);
  MESHAD_CHECK_CLOSE("dE/dx along a direction", Dx.execute(X, C, A, Dir), Fd);
  MESHAD_CHECK_CLOSE(
      "dE/da", Da.execute(X, C, A),
      mt::centralDifference([&](double V) { return staged(X, C, V); }, A));
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 2 passed, 0 failed
