// `new T[n]` of a run-time size in a kernel (issue 13): each thread's
// buffer on the device heap (`meshad::newArray(&t, w)`), its tangent or
// adjoint a buffer of the same size beside it, released with it (reverse
// mode: at the end of the reverse sweep). The adds into the thread's own
// adjoint buffer are plain. Forward and reverse mode on the CPU emulation
// against central differences (host code: cxx/heap-runtime-size.cpp).
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "ElementwiseKernelChecks.h"
#include <cmath>
#include <meshad/Differentiator.h>

__global__ void window(int n, int w, const double *x, double *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  double *t = new double[w];
  for (int k = 0; k < w; ++k)
    t[k] = x[(i + k) % n] * x[i];
  double s = 0;
  for (int k = 1; k < w; ++k)
    s += sin(t[k]) * t[k - 1];
  y[i] = s;
  delete[] t;
}
// CHECK-LABEL: __global__ void window_darg2(int n, int w, const double *x, double *y, const double *_d_x, double *_d_y) {
// CHECK: meshad::newArray(&_d_t, w);
// CHECK: meshad::deleteArray(_d_t);
// CHECK-LABEL: __global__ void window_grad(int n, int w, const double *x, double *y, double *_d_x, double *_d_y) {
// CHECK: meshad::newArray(&_d_t, w);
// CHECK: meshad::deleteArray(_d_t);
// CHECK: meshad::deleteArray(t);

int main() {
  meshad::test::RandomInputs Rng;
  for (int W : {2, 5})
    checkKernel("window", window, meshad::differentiate(window, "x"),
                meshad::gradient(window, "x, y"), Rng, W);
  return meshad::test::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
