// CUDA-on-CPU emulation: meshad::Derived::execute_kernel runs a kernel on
// the CPU (here a hand-made handle of a hand-written tangent kernel, as the
// plugin creates them), with and without dynamic shared memory and stream.
//
// RUN: %clangxx %cpu_cuda_flags -I%test_inputs %s -o %t && %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: PASS execute_kernel
// CHECK: PASS execute_kernel with shared bytes and stream
// CHECK: PASS d/dx[3] of x^2 sin(x)
// CHECK: PASS null kernel rejected
// CHECK: numeric checks: {{[0-9]+}} passed, 0 failed

#include "NumericCheck.h"

#include <meshad/Differentiator.h>

#include <cmath>

namespace {

__global__ void square(int N, const double *X, double *Y) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    Y[I] = X[I] * X[I] * sin(X[I]);
}

/// The forward-mode derivative of square: tangents _d_X in, _d_Y out.
__global__ void square_darg1(int N, const double *X, double *Y,
                             const double *_d_X, double *_d_Y) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N) {
    Y[I] = X[I] * X[I] * sin(X[I]);
    _d_Y[I] = (2 * X[I] * sin(X[I]) + X[I] * X[I] * cos(X[I])) * _d_X[I];
  }
}

void check(const char *Name, bool Ok) {
  meshad::test::checker().close(Name, Ok, 1.0, 0.0);
}

} // namespace

int main() {
  meshad::test::RandomInputs Rng;
  const int N = 40;
  double HX[N], HY[N], HdX[N] = {}, HdY[N];
  for (double &V : HX)
    V = Rng.uniform(-2, 2);
  HdX[3] = 1.0;
  double *X, *Y, *dX, *dY;
  cudaMalloc(&X, sizeof HX);
  cudaMalloc(&Y, sizeof HY);
  cudaMalloc(&dX, sizeof HdX);
  cudaMalloc(&dY, sizeof HdY);
  cudaMemcpy(X, HX, sizeof HX, cudaMemcpyHostToDevice);
  cudaMemcpy(dX, HdX, sizeof HdX, cudaMemcpyHostToDevice);

  meshad::Derived<decltype(&square_darg1)> D(&square_darg1, "square_darg1", "");
  check("execute_kernel",
        D.execute_kernel(dim3(2), dim3(32), N, X, Y, dX, dY) == cudaSuccess);
  cudaStream_t Stream = nullptr;
  size_t Shared = 64;
  check("execute_kernel with shared bytes and stream",
        D.execute_kernel(dim3(1), dim3(64), Shared, Stream, N, X, Y, dX, dY) ==
            cudaSuccess);
  cudaMemcpy(HdY, dY, sizeof HdY, cudaMemcpyDeviceToHost);
  double Fd = meshad::test::centralDifference(
      [](double V) { return V * V * std::sin(V); }, HX[3]);
  MESHAD_CHECK_CLOSE("d/dx[3] of x^2 sin(x)", HdY[3], Fd);
  (void)square;

  meshad::Derived<decltype(&square_darg1)> Null(nullptr, "device_only", "");
  check("null kernel rejected",
        Null.execute_kernel(dim3(1), dim3(1), N, X, Y, dX, dY) ==
            cudaErrorInvalidDeviceFunction);
  cudaGetLastError();
  cudaFree(X);
  cudaFree(Y);
  cudaFree(dX);
  cudaFree(dY);
  return meshad::test::summary();
}
