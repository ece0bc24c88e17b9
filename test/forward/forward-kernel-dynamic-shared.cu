// Forward mode of kernels staging their inputs in DYNAMIC shared memory
// (extern __shared__, written MESHAD_DYNAMIC_SHARED for both CUDA and the CPU
// emulation): the tangent of the buffer lives in the upper half of the
// derived kernel's dynamic shared memory (meshad::dynamicSharedShadow), and
// execute_kernel launches it with twice the dynamic shared bytes it is given
// (the primal's). Checked against central differences on the CPU emulation;
// the CUDA spelling (extern __shared__) is checked to compile.
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
// RUN: %if cuda %{ %clangxx -x cuda %cuda_flags --cuda-host-only -fsyntax-only -fplugin=%meshad_plugin -I%I -I%test_inputs %s %}
#include "KernelCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>
#include <meshad/cpu/Portable.h>

/// Launch with blockDim.x * sizeof(double) dynamic shared bytes; n is a
/// multiple of blockDim.x.
__global__ void ring(int n, const double *x, double *y) {
  MESHAD_DYNAMIC_SHARED(double, buf);
  int t = threadIdx.x, b = blockDim.x;
  int i = blockIdx.x * b + t;
  buf[t] = x[i];
  __syncthreads();
  y[i] = buf[t] * buf[(t + 1) % b] + sin(buf[(t + b - 1) % b]);
}
// CHECK-LABEL: __global__ void ring_darg1(int n, const double *x, double *y, const double *_d_x, double *_d_y) {
// CHECK-NEXT:   double *_d_buf = meshad::dynamicSharedShadow<double>();
// CHECK-NEXT:   MESHAD_DYNAMIC_SHARED(double, buf);
// CHECK:        _d_buf[t] = _d_x[i];
// CHECK-NEXT:   buf[t] = x[i];
// CHECK-NEXT:   __syncthreads();
// CHECK-NEXT:   _d_y[i] = _d_buf[t] * buf[(t + 1) % b] + buf[t] * _d_buf[(t + 1) % b] + cos(buf[(t + b - 1) % b]) * _d_buf[(t + b - 1) % b];

// The buffer reached through another pointer, chosen per thread.
__global__ void reassigned(int n, const double *x, double *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  double *p = nullptr;
  p = y + i;
  MESHAD_DYNAMIC_SHARED(double, buf);
  if (threadIdx.x == 0)
    p = buf;
  p[0] = x[i] * x[i];
  __syncthreads();
  if (threadIdx.x == 1)
    y[i] += buf[0] * x[i];
}
// CHECK-LABEL: __global__ void reassigned_darg1(int n, const double *x, double *y, const double *_d_x, double *_d_y) {
// CHECK:        double *_d_buf = meshad::dynamicSharedShadow<double>();
// CHECK-NEXT:   MESHAD_DYNAMIC_SHARED(double, buf);
// CHECK-NEXT:   if (threadIdx.x == 0) {
// CHECK-NEXT:     _d_p = _d_buf;
// CHECK-NEXT:     p = buf;

// A null pointer needs no tangent memory.
__global__ void nullFirst(int n, const double *x, double *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  double *p = nullptr;
  if (i < n)
    p = y;
  if (p)
    p[i] = x[i] * x[i];
}

namespace mt = meshad::test;
constexpr int B = 16, N = 3 * B;

/// The directional derivative of Kernel's output y along Dir against
/// central differences.
template <class K, class D>
void check(const char *Name, K Kernel, const D &Derived, mt::RandomInputs &Rng) {
  const size_t Bytes = B * sizeof(double);
  std::vector<double> Dir(N);
  Rng.fill(Dir.data(), N, -1, 1);
  mt::DeviceArray<double> X(N), Y(N), DX(N), DY(N);
  Rng.fill(X.host(), N, 0.2, 1.2);
  auto Run = [&] {
    X.upload();
    Y.zero();
    MESHAD_LAUNCH(Kernel, dim3(N / B), dim3(B), Bytes)(N, X.device(), Y.device());
    Y.download();
  };
  std::vector<double> Ref = mt::fdDirectional(Run, X.host(), Dir.data(), N,
                                              Y.host(), N);
  X.upload();
  Y.zero();
  DY.zero();
  for (int I = 0; I < N; ++I)
    DX[I] = Dir[I];
  DX.upload();
  Derived.execute_kernel(dim3(N / B), dim3(B), Bytes, nullptr, N, X.device(),
                         Y.device(), DX.device(), DY.device());
  mt::checkLaunch(Name);
  DY.download();
  mt::checkArray(Name, DY.host(), Ref.data(), N);
}

int main() {
  mt::RandomInputs Rng;
  check("d ring", ring, meshad::differentiate(ring, "x"), Rng);
  check("d reassigned", reassigned, meshad::differentiate(reassigned, "x"),
        Rng);
  (void)meshad::differentiate(nullFirst, "x");
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 96 passed, 0 failed
