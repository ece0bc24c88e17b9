// Host code whose launches overwrite device buffers that a gradient kernel
// reads: the reverse sweep runs each gradient kernel after the whole forward
// sweep, so a buffer that the launch itself (an in-place update), a later
// launch, or a later iteration of a loop overwrites is copied before the
// launch and put back before its gradient (meshad::cuda::DeviceSnapshots:
// a copy of the allocation that holds it, found at run time, so buffers
// the caller passes work too; only the elements y[0:n] the launch
// accesses where the kernel's guard `if (i < n)` bounds every access, see
// reverse-host-snapshot-ranges.cu).
// Buffers that no gradient reads, or that nothing overwrites, are not
// copied (x, z, E, and load: `load[i] +=` only accumulates). meshad::WithValue keeps the
// launches' results and returns the value. Every gradient is checked
// against central finite differences, values against the primal.
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -fplugin-arg-meshad-remarks -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: FileCheck %s --check-prefix=REMARK < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "KernelCheck.h"
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>
#include <vector>

__global__ void scale(int n, const double *x, double *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = 2.0 * x[i];
}

__global__ void damp(int n, double *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = y[i] * sin(y[i]);
}

__global__ void addLoad(int n, const double *y, double *load) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    load[i] += y[i] * y[i];
}

__global__ void mix(int n, const double *y, double *z) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    z[i] = exp(0.3 * y[i]) * y[(i + 1) % n];
}

__global__ void reset(int n, const double *z, double *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = cos(z[i]);
}

__global__ void energy(int n, const double *y, const double *z, double *E) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(E, y[i] * z[i] + y[i] * y[i]);
}

#define GRID dim3((n + 31) / 32), dim3(32)

/// Device memory the caller passes, updated in place: y is damped twice,
/// then E += sum y_i^2 (x_i).
void inPlace(double *y, const double *x, double *E, int n) {
  MESHAD_LAUNCH(damp, GRID)(n, y);
  MESHAD_LAUNCH(damp, GRID)(n, y);
  MESHAD_LAUNCH(energy, GRID)(n, y, x, E);
}
// CHECK-LABEL: void inPlace_grad(double *y, const double *x, double *E, int n, double *_d_y, double *_d_x, double *_d_E) {
// CHECK: meshad::cuda::snapshotPush(_snapshots, y, n);
// CHECK-NEXT: MESHAD_LAUNCH(damp, {{.*}})(n, y);
// CHECK-NEXT: meshad::cuda::snapshotPush(_snapshots, y, n);
// CHECK-NEXT: MESHAD_LAUNCH(damp, {{.*}})(n, y);
// CHECK: meshad::cuda::snapshotPop(_snapshots, y);
// CHECK-NEXT: MESHAD_LAUNCH(damp_grad, {{.*}})(n, y, _d_y);

/// y = 2x, damped Steps times in place, z = mix(y), then y is overwritten
/// from z: mix's gradient needs y as it was before reset, damp's as it was
/// before each step.
double pipeline(const double *xHost, int n, int Steps) {
  size_t Bytes = n * sizeof(double);
  double *x, *y, *z, *load, *E;
  cudaMalloc(&x, Bytes);
  cudaMalloc(&y, Bytes);
  cudaMalloc(&z, Bytes);
  cudaMalloc(&load, Bytes);
  cudaMalloc(&E, sizeof(double));
  cudaMemcpy(x, xHost, Bytes, cudaMemcpyHostToDevice);
  cudaMemset(load, 0, Bytes);
  cudaMemset(E, 0, sizeof(double));
  MESHAD_LAUNCH(scale, GRID)(n, x, y);
  for (int s = 0; s < Steps; ++s)
    MESHAD_LAUNCH(damp, GRID)(n, y);
  MESHAD_LAUNCH(addLoad, GRID)(n, y, load);
  MESHAD_LAUNCH(mix, GRID)(n, y, z);
  MESHAD_LAUNCH(reset, GRID)(n, z, y);
  MESHAD_LAUNCH(energy, GRID)(n, y, z, E);
  MESHAD_LAUNCH(energy, GRID)(n, load, z, E);
  double e = 0;
  cudaMemcpy(&e, E, sizeof(double), cudaMemcpyDeviceToHost);
  cudaFree(x);
  cudaFree(y);
  cudaFree(z);
  cudaFree(load);
  cudaFree(E);
  return e;
}
// CHECK-LABEL: void pipeline_grad(const double *xHost, int n, int Steps, double *_d_xHost) {
// CHECK: meshad::cuda::DeviceSnapshots _snapshots;
// CHECK: for (s = 0; s < Steps; ++s) {
// CHECK: meshad::cuda::snapshotPush(_snapshots, y, n);
// CHECK-NEXT: MESHAD_LAUNCH(damp, {{.*}})(n, y);
// CHECK: meshad::cuda::snapshotPush(_snapshots, y, n);
// CHECK-NEXT: MESHAD_LAUNCH(addLoad, {{.*}})(n, y, load);
// CHECK-NEXT: meshad::cuda::snapshotPush(_snapshots, y);
// CHECK-NEXT: MESHAD_LAUNCH(mix, {{.*}})(n, y, z);
// CHECK-NEXT: MESHAD_LAUNCH(reset, {{.*}})(n, z, y);
// CHECK: MESHAD_LAUNCH(reset_grad, {{.*}})(n, z, y, _d_z, _d_y);
// CHECK-NEXT: meshad::cuda::snapshotPop(_snapshots, y);
// CHECK-NEXT: MESHAD_LAUNCH(mix_grad, {{.*}})(n, y, z, _d_y, _d_z);
// CHECK-NEXT: meshad::cuda::snapshotPop(_snapshots, y);
// CHECK-NEXT: MESHAD_LAUNCH(addLoad_grad, {{.*}})(n, y, load, _d_y, _d_load);
// CHECK: meshad::cuda::snapshotPop(_snapshots, y);
// CHECK-NEXT: MESHAD_LAUNCH(damp_grad, {{.*}})(n, y, _d_y);
// REMARK: remark: copies 'y[0:n]', the elements this launch of 'damp' accesses, before it and restores them before 'damp_grad': the gradient reads them as they were, and the launch or a later operation overwrites them
// REMARK: remark: copies 'y[0:n]', the elements this launch of 'addLoad' accesses, before it and restores them before 'addLoad_grad'
// REMARK: remark: copies 'y' before this launch of 'mix' and restores it before 'mix_grad': the gradient reads it as it was, and the launch or a later operation overwrites it

/// The same steps without a loop, writing the damped values to a host
/// output as well: meshad::WithValue leaves `out` and returns the energy
/// (`out`'s adjoint is a seed, zero here).
double steps(const double *xHost, double *out, int n) {
  size_t Bytes = n * sizeof(double);
  double *x, *y, *E;
  cudaMalloc(&x, Bytes);
  cudaMalloc(&y, Bytes);
  cudaMalloc(&E, sizeof(double));
  cudaMemcpy(x, xHost, Bytes, cudaMemcpyHostToDevice);
  cudaMemset(E, 0, sizeof(double));
  MESHAD_LAUNCH(scale, GRID)(n, x, y);
  MESHAD_LAUNCH(damp, GRID)(n, y);
  MESHAD_LAUNCH(damp, GRID)(n, y);
  cudaMemcpy(out, y, Bytes, cudaMemcpyDeviceToHost);
  MESHAD_LAUNCH(energy, GRID)(n, y, x, E);
  double e = 0;
  cudaMemcpy(&e, E, sizeof(double), cudaMemcpyDeviceToHost);
  cudaFree(x);
  cudaFree(y);
  cudaFree(E);
  return e;
}
// CHECK-LABEL: double steps_grad_with_value(const double *xHost, double *out, int n, double *_d_xHost, double *_d_out) {
// CHECK: meshad::cuda::snapshotPush(_snapshots, y, n);
// CHECK-NEXT: MESHAD_LAUNCH(damp, {{.*}})(n, y);
// CHECK-NEXT: meshad::cuda::snapshotPush(_snapshots, y, n);
// CHECK-NEXT: MESHAD_LAUNCH(damp, {{.*}})(n, y);
// CHECK: meshad::cuda::snapshotPop(_snapshots, y);
// CHECK-NEXT: MESHAD_LAUNCH(damp_grad, {{.*}})(n, y, _d_y);
// CHECK-NEXT: meshad::cuda::snapshotPop(_snapshots, y);
// CHECK-NEXT: MESHAD_LAUNCH(damp_grad, {{.*}})(n, y, _d_y);
// CHECK: return _value;

namespace mt = meshad::test;

/// inPlace's gradient on device buffers, against central differences of
/// E's final value in y's and x's initial values.
void checkInPlace(mt::RandomInputs &Rng) {
  const int N = 29;
  mt::DeviceArray<double> Y(N), X(N), E(1), DY(N), DX(N), DE(1);
  std::vector<double> Y0(N);
  Rng.fill(Y0.data(), N, 0.3, 1.3);
  Rng.fill(X.host(), N, -1, 1);
  auto Loss = [&] {
    for (int I = 0; I < N; ++I)
      Y[I] = Y0[I];
    Y.upload();
    X.upload();
    E.zero();
    inPlace(Y.device(), X.device(), E.device(), N);
    E.download();
    return E[0];
  };
  std::vector<double> RefY = mt::fdGradient(Loss, Y0.data(), N);
  std::vector<double> RefX = mt::fdGradient(Loss, X.host(), N);
  for (int I = 0; I < N; ++I)
    Y[I] = Y0[I];
  Y.upload();
  X.upload();
  E.zero();
  DY.zero();
  DX.zero();
  DE[0] = 1;
  DE.upload();
  auto G = meshad::gradient(inPlace, "y, x, E");
  G.execute(Y.device(), X.device(), E.device(), N, DY.device(), DX.device(),
            DE.device());
  mt::checkLaunch("inPlace_grad");
  DY.download();
  DX.download();
  mt::checkArray("inPlace dE/dy", DY.host(), RefY.data(), N);
  mt::checkArray("inPlace dE/dx", DX.host(), RefX.data(), N);
}

int main() {
  const int N = 37;
  mt::RandomInputs Rng;
  std::vector<double> X(N), Out(N), OutRef(N);
  Rng.fill(X.data(), N, 0.3, 1.3);
  auto G = meshad::gradient(pipeline, "xHost");
  for (int Steps : {0, 1, 3}) {
    std::vector<double> DX(N, 0.0);
    auto Loss = [&] { return pipeline(X.data(), N, Steps); };
    std::vector<double> Ref = mt::fdGradient(Loss, X.data(), N);
    G.execute(X.data(), N, Steps, DX.data());
    mt::checkLaunch("pipeline_grad");
    mt::checkArray("pipeline dE/dx", DX.data(), Ref.data(), N);
  }

  checkInPlace(Rng);

  auto V = meshad::gradient(steps, "xHost, out", meshad::WithValue);
  std::vector<double> DX(N, 0.0), DOut(N, 0.0);
  auto Loss = [&] { return steps(X.data(), OutRef.data(), N); };
  std::vector<double> Ref = mt::fdGradient(Loss, X.data(), N);
  double Expected = steps(X.data(), OutRef.data(), N);
  double Value = V.execute(X.data(), Out.data(), N, DX.data(), DOut.data());
  MESHAD_CHECK_CLOSE("steps value", Value, Expected);
  mt::checkArray("steps out", Out.data(), OutRef.data(), N);
  mt::checkArray("steps dE/dx", DX.data(), Ref.data(), N);
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 244 passed, 0 failed
