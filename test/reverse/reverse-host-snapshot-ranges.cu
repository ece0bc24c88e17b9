// Host reverse mode copies a buffer that a launch's gradient reads and that
// the launch or a later operation overwrites before the launch; when every
// access of the kernel to it is y[i + c], i the global thread index, under
// guards that bound i by a parameter n (`if (i < n)`, `if (i < n - 1)`),
// only the elements the launch accesses are copied
// (meshad::cuda::snapshotPush(_snapshots, y, n), clamped to the allocation
// at run time), not the whole allocation that holds it. y here holds 2n
// values of which the launches use the first n. A gather through an index
// array keeps the copy of the whole allocation. Every gradient is checked
// against central finite differences.
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -fplugin-arg-meshad-remarks -fplugin-arg-meshad-verify -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: FileCheck %s --check-prefix=REMARK < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "KernelCheck.h"
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>
#include <vector>

__global__ void step(int n, double *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = y[i] + 0.3 * sin(y[i]);
}

__global__ void neighbours(int n, const double *y, double *z) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n - 1)
    z[i] = y[i] * y[i + 1];
}

__global__ void gather(int n, const int *idx, const double *z, double *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = z[idx[i]] * z[idx[i]];
}

__global__ void energy(int n, const double *y, const double *z, double *E) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(E, y[i] * z[i] + y[i]);
}

#define GRID dim3((n + 31) / 32), dim3(32)

/// y stepped Steps times in place, z from neighbouring values of y, y
/// gathered back from z through idx, z stepped in place, then the energy.
double pipeline(const double *xHost, const int *idxHost, int n, int Steps) {
  size_t Bytes = n * sizeof(double);
  double *y, *z, *E;
  int *idx;
  cudaMalloc(&y, 2 * Bytes);
  cudaMalloc(&z, Bytes);
  cudaMalloc(&E, sizeof(double));
  cudaMalloc(&idx, n * sizeof(int));
  cudaMemset(y, 0, 2 * Bytes);
  cudaMemcpy(y, xHost, Bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(idx, idxHost, n * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemset(z, 0, Bytes);
  cudaMemset(E, 0, sizeof(double));
  for (int s = 0; s < Steps; ++s)
    MESHAD_LAUNCH(step, GRID)(n, y);
  MESHAD_LAUNCH(neighbours, GRID)(n, y, z);
  MESHAD_LAUNCH(gather, GRID)(n, idx, z, y);
  MESHAD_LAUNCH(step, GRID)(n, z);
  MESHAD_LAUNCH(energy, GRID)(n, y, z, E);
  double e = 0;
  cudaMemcpy(&e, E, sizeof(double), cudaMemcpyDeviceToHost);
  cudaFree(y);
  cudaFree(z);
  cudaFree(E);
  cudaFree(idx);
  return e;
}
// CHECK-LABEL: void pipeline_grad(
// CHECK: for (s = 0; s < Steps; ++s) {
// CHECK: meshad::cuda::snapshotPush(_snapshots, y, n);
// CHECK-NEXT: MESHAD_LAUNCH(step, {{.*}})(n, y);
// CHECK: meshad::cuda::snapshotPush(_snapshots, y, n);
// CHECK-NEXT: MESHAD_LAUNCH(neighbours, {{.*}})(n, y, z);
// CHECK-NEXT: meshad::cuda::snapshotPush(_snapshots, z);
// CHECK-NEXT: MESHAD_LAUNCH(gather, {{.*}})(n, idx, z, y);
// CHECK-NEXT: meshad::cuda::snapshotPush(_snapshots, z, n);
// CHECK-NEXT: MESHAD_LAUNCH(step, {{.*}})(n, z);
// CHECK: meshad::cuda::snapshotPop(_snapshots, z);
// CHECK-NEXT: MESHAD_LAUNCH(step_grad, {{.*}})(n, z, _d_z);
// CHECK: meshad::cuda::snapshotPop(_snapshots, z);
// CHECK-NEXT: MESHAD_LAUNCH(gather_grad, {{.*}})(n, idx, z, y, _d_z, _d_y);
// CHECK-NEXT: meshad::cuda::snapshotPop(_snapshots, y);
// CHECK-NEXT: MESHAD_LAUNCH(neighbours_grad, {{.*}})(n, y, z, _d_y, _d_z);
// CHECK: meshad::cuda::snapshotPop(_snapshots, y);
// CHECK-NEXT: MESHAD_LAUNCH(step_grad, {{.*}})(n, y, _d_y);
// REMARK: remark: copies 'y[0:n]', the elements this launch of 'step' accesses, before it and restores them before 'step_grad': the gradient reads them as they were, and the launch or a later operation overwrites them
// REMARK: remark: copies 'y[0:n]', the elements this launch of 'neighbours' accesses, before it and restores them before 'neighbours_grad'
// REMARK: remark: copies 'z' before this launch of 'gather' and restores it before 'gather_grad': the gradient reads it as it was, and the launch or a later operation overwrites it
// REMARK: remark: copies 'z[0:n]', the elements this launch of 'step' accesses, before it and restores them before 'step_grad'

namespace mt = meshad::test;

int main() {
  const int N = 37;
  mt::RandomInputs Rng;
  std::vector<double> X(N);
  std::vector<int> Idx(N);
  Rng.fill(X.data(), N, 0.3, 1.3);
  for (int I = 0; I < N; ++I)
    Idx[I] = (7 * I + 3) % N;
  auto G = meshad::gradient(pipeline, "xHost");
  for (int Steps : {0, 1, 3}) {
    std::vector<double> DX(N, 0.0);
    auto Loss = [&] { return pipeline(X.data(), Idx.data(), N, Steps); };
    std::vector<double> Ref = mt::fdGradient(Loss, X.data(), N);
    G.execute(X.data(), Idx.data(), N, Steps, DX.data());
    mt::checkLaunch("pipeline_grad");
    mt::checkArray("pipeline dE/dx", DX.data(), Ref.data(), N);
  }
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 111 passed, 0 failed
