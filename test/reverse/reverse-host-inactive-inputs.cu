// Gradient of host code that copies an input it is not differentiated for
// (rest lengths) to the device and passes it to a kernel that only reads it
// (a const parameter): the buffer carries no derivative, so it gets no
// adjoint buffer and no adjoint copy, and the kernel's gradient is requested
// only for the arguments that carry one (x and E: springs_grad_1_3). Selected
// too, the rest lengths get their adjoint (springs_grad). A device buffer
// filled from a host array that is not selected (the initial loads) and
// then updated by a kernel reverses its copy with no source adjoint
// (adjointMemcpy(_d_load, nullptr, ...): the copy only resets the
// buffer's adjoint). Every gradient is checked against central finite
// differences.
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "KernelCheck.h"
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>
#include <vector>

__global__ void springs(int n, const double *x, const double *rest,
                        double *E) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n - 1) {
    double d = x[i + 1] - x[i] - rest[i];
    atomicAdd(E, d * d * (1 + 0.1 * i));
  }
}

__global__ void addLoad(int n, const double *x, double *load) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    load[i] += sin(x[i]) * x[i];
}

__global__ void loadEnergy(int n, const double *load, double *E) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(E, load[i] * load[i]);
}

/// E = sum_i (1 + i/10) (x[i+1] - x[i] - rest[i])^2 + sum_i load_i^2 with
/// load = load0 + x sin(x), on the device.
double energy(const double *xHost, const double *restHost,
              const double *load0Host, int n) {
  size_t Bytes = n * sizeof(double);
  double *x, *rest, *load, *E;
  cudaMalloc(&x, Bytes);
  cudaMalloc(&rest, Bytes);
  cudaMalloc(&load, Bytes);
  cudaMalloc(&E, sizeof(double));
  cudaMemcpy(x, xHost, Bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(rest, restHost, Bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(load, load0Host, Bytes, cudaMemcpyHostToDevice);
  cudaMemset(E, 0, sizeof(double));
  MESHAD_LAUNCH(springs, dim3((n + 31) / 32), dim3(32))(n, x, rest, E);
  MESHAD_LAUNCH(addLoad, dim3((n + 31) / 32), dim3(32))(n, x, load);
  MESHAD_LAUNCH(loadEnergy, dim3((n + 31) / 32), dim3(32))(n, load, E);
  double e = 0;
  cudaMemcpy(&e, E, sizeof(double), cudaMemcpyDeviceToHost);
  cudaFree(x);
  cudaFree(rest);
  cudaFree(load);
  cudaFree(E);
  return e;
}
// CHECK-LABEL: void energy_grad_0(const double *xHost, const double *restHost, const double *load0Host, int n, double *_d_xHost) {
// CHECK-NOT: _d_rest
// CHECK: cudaMalloc(&_d_load, Bytes);
// CHECK-NOT: _d_rest
// CHECK: MESHAD_LAUNCH(loadEnergy_grad, {{.*}})(n, load, E, _d_load, _d_E);
// CHECK-NEXT: MESHAD_LAUNCH(addLoad_grad, {{.*}})(n, x, load, _d_x, _d_load);
// CHECK-NEXT: MESHAD_LAUNCH(springs_grad_1_3, {{.*}})(n, x, rest, E, _d_x, _d_E);
// CHECK: meshad::cuda::adjointMemcpy(_d_load, nullptr, Bytes, cudaMemcpyHostToDevice);
// CHECK-NOT: _d_rest
// CHECK: meshad::cuda::adjointMemcpy(_d_x, _d_xHost, Bytes, cudaMemcpyHostToDevice);
// CHECK-NOT: _d_rest
// CHECK: }
// CHECK-LABEL: __global__ void springs_grad_1_3(int n, const double *x, const double *rest, double *E, double *_d_x, double *_d_E) {
// CHECK-LABEL: void energy_grad_0_1(const double *xHost, const double *restHost, const double *load0Host, int n, double *_d_xHost, double *_d_restHost) {
// CHECK: cudaMalloc(&_d_rest, Bytes);
// CHECK: MESHAD_LAUNCH(springs_grad, {{.*}})(n, x, rest, E, _d_x, _d_rest, _d_E);
// CHECK: meshad::cuda::adjointMemcpy(_d_rest, _d_restHost, Bytes, cudaMemcpyHostToDevice);

namespace mt = meshad::test;

int main() {
  const int N = 45;
  mt::RandomInputs Rng;
  std::vector<double> X(N), Rest(N), Load0(N), DX(N, 0.0), DX2(N, 0.0),
      DRest(N, 0.0);
  Rng.fill(X.data(), N, 0.3, 1.3);
  Rng.fill(Rest.data(), N, -0.5, 0.5);
  Rng.fill(Load0.data(), N, -1, 1);
  auto Loss = [&] { return energy(X.data(), Rest.data(), Load0.data(), N); };
  std::vector<double> RefX = mt::fdGradient(Loss, X.data(), N);
  std::vector<double> RefRest = mt::fdGradient(Loss, Rest.data(), N);
  // The last rest length is never read: its derivative is exactly 0 (on a
  // GPU the differences see the rounding of atomics summed in another
  // order, about 1e-11).
  RefRest[N - 1] = 0;

  auto Grad = meshad::gradient(energy, "xHost");
  Grad.execute(X.data(), Rest.data(), Load0.data(), N, DX.data());
  mt::checkLaunch("energy_grad_0");
  mt::checkArray("dE/dx", DX.data(), RefX.data(), N);

  auto Both = meshad::gradient(energy, "xHost, restHost");
  Both.execute(X.data(), Rest.data(), Load0.data(), N, DX2.data(),
               DRest.data());
  mt::checkLaunch("energy_grad_0_1");
  mt::checkArray("dE/dx (with rest)", DX2.data(), RefX.data(), N);
  mt::checkArray("dE/drest", DRest.data(), RefRest.data(), N);
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 135 passed, 0 failed
