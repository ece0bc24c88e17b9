//===- demos/host-pipeline/host-pipeline.cu - Gradient of host code -------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
//
// meshad::gradient of a HOST function that drives the GPU: cudaMalloc,
// cudaMemcpy of the input, two kernel launches (a map, then an energy sum
// with atomicAdd), cudaMemcpy of the result back, cudaFree. The derived host
// function must mirror the device buffers with adjoint buffers, run the
// derived kernels in reverse order and copy the adjoint of the input back.
// Compared with central differences of the host function itself.
// Build: see demos/black-scholes/black-scholes.cu.
//
//===----------------------------------------------------------------------===//

#include "KernelCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

__global__ void warp(int n, const double *x, double *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = x[i] * sin(x[i]) + 0.5 * x[(i + 1) % n];
}

__global__ void sumSquares(int n, const double *y, double *E) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&E[0], y[i] * y[i] * (1 + 0.1 * i));
}

/// E(x) = sum_i (1 + i/10) y_i^2 with y = warp(x), computed on the device.
double pipeline(const double *xHost, int n) {
  double *x, *y, *E;
  cudaMalloc(&x, n * sizeof(double));
  cudaMalloc(&y, n * sizeof(double));
  cudaMalloc(&E, sizeof(double));
  cudaMemcpy(x, xHost, n * sizeof(double), cudaMemcpyHostToDevice);
  cudaMemset(E, 0, sizeof(double));
  MESHAD_LAUNCH(warp, dim3((n + 31) / 32), dim3(32))(n, x, y);
  MESHAD_LAUNCH(sumSquares, dim3((n + 31) / 32), dim3(32))(n, y, E);
  double e = 0;
  cudaMemcpy(&e, E, sizeof(double), cudaMemcpyDeviceToHost);
  cudaFree(x);
  cudaFree(y);
  cudaFree(E);
  return e;
}

namespace mt = meshad::test;

int main() {
  const int N = 45;
  mt::RandomInputs Rng;
  std::vector<double> X(N), DX(N, 0.0);
  Rng.fill(X.data(), N, 0.3, 1.3); // y > 0: no adjoint near zero
  std::vector<double> Ref =
      mt::fdGradient([&] { return pipeline(X.data(), N); }, X.data(), N);

  auto Grad = meshad::gradient(pipeline, "xHost");
  Grad.execute(X.data(), N, DX.data());
  mt::checkLaunch("pipeline gradient");
  mt::checkArray("dE/dx", DX.data(), Ref.data(), N);

  std::printf("E = %.6f\n%-8s %16s %16s\n", pipeline(X.data(), N), "input",
              "meshad", "finite diff.");
  for (int I = 0; I < 5; ++I)
    std::printf("x[%2d]    %16.10f %16.10f\n", I, DX[I], Ref[I]);
  int Rc = mt::summary();
  std::puts(Rc == 0 ? "host-pipeline: OK" : "host-pipeline: FAILED");
  return Rc;
}
