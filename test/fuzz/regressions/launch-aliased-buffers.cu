// Fuzzer finding (tools/fuzz/FINDINGS.md, "launches whose buffer arguments
// are the same memory"): host code that launches `k(n, x, x)` (a kernel
// that reads a[i] and writes y[i], given the same buffer: race-free) got a
// gradient of zero: the gradient kernel adds into _d_a[i], then resets
// _d_y[i], the same element. Silent wrong derivative. Now the adjoint of
// each argument the kernel only reads goes through a zeroed shadow buffer
// (meshad::cuda::shadowAdjoint) folded back after the gradient launch
// (meshad::cuda::foldShadow); two read-only arguments that are the same
// buffer read at neighbours (`mix(n, x, x, z)`) likewise, so that their adds
// never meet on one element from two threads; a launch that passes the same
// buffer to two parameters it writes is an error. In place, in a loop, with
// an offset (`k(n - 1, x + 1, x + 1)`), and through a pointer chosen by
// `?:`. Gradients against central differences.
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -fplugin-arg-meshad-remarks -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: FileCheck %s --check-prefix=REMARK < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
// RUN: not %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -I%test_inputs -DWRITES_TWICE %s -fsyntax-only 2>&1 | FileCheck %s --check-prefix=ERR
#include "KernelCheck.h"
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>
#include <vector>

__global__ void damp(int n, const double *a, double *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = sin(a[i]) * a[i];
}

__global__ void mix(int n, const double *a, const double *b, double *z) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    z[i] = a[i] * b[(i + 1) % n];
}

__global__ void energy(int n, const double *a, double *E) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(E, a[i] * a[i] + 0.5 * a[i]);
}

#define GRID dim3((n + 3) / 4), dim3(4)

/// x = damp(x) Steps times (given as both arguments), z = x * x shifted,
/// then damp(x + 1) in place on n - 1 elements.
double aliased(const double *xh, int n, int Steps, bool Pick) {
  size_t Bytes = n * sizeof(double);
  double *x, *z, *E;
  cudaMalloc(&x, Bytes);
  cudaMalloc(&z, Bytes);
  cudaMalloc(&E, sizeof(double));
  cudaMemset(z, 0, Bytes);
  cudaMemset(E, 0, sizeof(double));
  cudaMemcpy(x, xh, Bytes, cudaMemcpyHostToDevice);
  MESHAD_LAUNCH(damp, GRID)(n, x, x);
  for (int t = 0; t < Steps; ++t)
    MESHAD_LAUNCH(damp, GRID)(n, x, x);
  MESHAD_LAUNCH(mix, GRID)(n, x, x, z);
  double *q = Pick ? z : x;
  MESHAD_LAUNCH(damp, GRID)(n - 1, q + 1, q + 1);
  MESHAD_LAUNCH(energy, GRID)(n, x, E);
  MESHAD_LAUNCH(energy, GRID)(n, z, E);
  double e = 0;
  cudaMemcpy(&e, E, sizeof(double), cudaMemcpyDeviceToHost);
  cudaFree(x);
  cudaFree(z);
  cudaFree(E);
  return e;
}
// CHECK-LABEL: void aliased_grad(const double *xh, int n, int Steps, bool Pick, double *_d_xh) {
// CHECK: double *[[S:_shadow[0-9]*]] = meshad::cuda::shadowAdjoint(_d_q + 1);
// CHECK-NEXT: MESHAD_LAUNCH(damp_grad, {{.*}})(n - 1, q + 1, q + 1, [[S]], _d_q + 1);
// CHECK-NEXT: meshad::cuda::foldShadow(_d_q + 1, [[S]]);
// q may be x or z: x, x and z may all be the same memory; mix writes z,
// so both its read-only arguments get a shadow.
// CHECK: double *[[M:_shadow[0-9]*]] = meshad::cuda::shadowAdjoint(_d_x);
// CHECK-NEXT: double *[[M2:_shadow[0-9]*]] = meshad::cuda::shadowAdjoint(_d_x);
// CHECK-NEXT: MESHAD_LAUNCH(mix_grad, {{.*}})(n, x, x, z, [[M]], [[M2]], _d_z);
// CHECK-NEXT: meshad::cuda::foldShadow(_d_x, [[M]]);
// CHECK-NEXT: meshad::cuda::foldShadow(_d_x, [[M2]]);
// CHECK: double *[[L:_shadow[0-9]*]] = meshad::cuda::shadowAdjoint(_d_x);
// CHECK-NEXT: MESHAD_LAUNCH(damp_grad, {{.*}})(n, x, x, [[L]], _d_x);
// CHECK-NEXT: meshad::cuda::foldShadow(_d_x, [[L]]);
// CHECK: double *[[F:_shadow[0-9]*]] = meshad::cuda::shadowAdjoint(_d_x);
// CHECK-NEXT: MESHAD_LAUNCH(damp_grad, {{.*}})(n, x, x, [[F]], _d_x);
// CHECK-NEXT: meshad::cuda::foldShadow(_d_x, [[F]]);
// REMARK: remark: the adjoint of argument 2 of this launch of 'damp' goes through a separate buffer: it may be the same memory as another argument ('x')
// REMARK: remark: the adjoint of argument 3 of this launch of 'mix' goes through a separate buffer: it may be the same memory as another argument ('x')

/// Two read-only arguments that are the same buffer, read at neighbours:
/// the first keeps its adjoint, the second adds into a shadow.
double sharedReads(const double *xh, int n) {
  size_t Bytes = n * sizeof(double);
  double *x, *z, *E;
  cudaMalloc(&x, Bytes);
  cudaMalloc(&z, Bytes);
  cudaMalloc(&E, sizeof(double));
  cudaMemset(E, 0, sizeof(double));
  cudaMemcpy(x, xh, Bytes, cudaMemcpyHostToDevice);
  MESHAD_LAUNCH(mix, GRID)(n, x, x, z);
  MESHAD_LAUNCH(energy, GRID)(n, z, E);
  double e = 0;
  cudaMemcpy(&e, E, sizeof(double), cudaMemcpyDeviceToHost);
  cudaFree(x);
  cudaFree(z);
  cudaFree(E);
  return e;
}
// CHECK-LABEL: void sharedReads_grad(const double *xh, int n, double *_d_xh) {
// CHECK: double *[[R:_shadow[0-9]*]] = meshad::cuda::shadowAdjoint(_d_x);
// CHECK-NEXT: MESHAD_LAUNCH(mix_grad, {{.*}})(n, x, x, z, _d_x, [[R]], _d_z);
// CHECK-NEXT: meshad::cuda::foldShadow(_d_x, [[R]]);

#ifdef WRITES_TWICE
__global__ void twoOut(int n, double *a, double *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    a[i] = 2.0 * a[i];
    y[i] = a[i] * a[i];
  }
}

double writesTwice(const double *xh, int n) {
  double *x, *E;
  cudaMalloc(&x, n * sizeof(double));
  cudaMalloc(&E, sizeof(double));
  cudaMemset(E, 0, sizeof(double));
  cudaMemcpy(x, xh, n * sizeof(double), cudaMemcpyHostToDevice);
  // ERR: [[@LINE+1]]:3: error: this launch of 'twoOut' passes buffers that may be the same memory ('x') to two parameters it writes; pass separate buffers
  MESHAD_LAUNCH(twoOut, dim3(1), dim3(8))(n, x, x);
  MESHAD_LAUNCH(energy, dim3(1), dim3(8))(n, x, E);
  double e = 0;
  cudaMemcpy(&e, E, sizeof(double), cudaMemcpyDeviceToHost);
  return e;
}
auto WT = meshad::gradient(writesTwice, "xh");
#endif

int main() {
  const int N = 13;
  meshad::test::RandomInputs Rng;
  std::vector<double> X(N);
  Rng.fill(X.data(), N, 0.3, 1.3);
  auto G = meshad::gradient(aliased, "xh");
  for (bool Pick : {false, true})
    for (int Steps : {0, 2}) {
      std::vector<double> DX(N, 0.0);
      G.execute(X.data(), N, Steps, Pick, DX.data());
      for (int I = 0; I < N; ++I) {
        double Fd = meshad::test::centralDifferenceAt(
            [&] { return aliased(X.data(), N, Steps, Pick); }, X.data(), I);
        MESHAD_CHECK_CLOSE("dE/dx", DX[I], Fd);
      }
    }
  auto S = meshad::gradient(sharedReads, "xh");
  std::vector<double> DX(N, 0.0);
  S.execute(X.data(), N, DX.data());
  for (int I = 0; I < N; ++I) {
    double Fd = meshad::test::centralDifferenceAt(
        [&] { return sharedReads(X.data(), N); }, X.data(), I);
    MESHAD_CHECK_CLOSE("sharedReads dE/dx", DX[I], Fd);
  }
  return meshad::test::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 65 passed, 0 failed
