// `(T *)malloc(n * sizeof(T))` and `calloc(n, sizeof(T))` of a size known
// only at run time, and their `free` (issue 13): lowered like `new T[n]` of
// a run-time size (`meshad::newArray(&t, n)`, zeroed; `free(t)` is
// `meshad::deleteArray(t)`, meshad/codegen/HeapArray.h), so the tangent or
// adjoint is a buffer of the same size beside it. Host functions in forward
// mode, reverse mode and HVPs, and a kernel's per-thread buffer in forward
// and reverse mode on the CPU emulation, against central differences.
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "ElementwiseKernelChecks.h"
#include "TwoInputChecks.h"
#include <cmath>
#include <cstdlib>
#include <meshad/Differentiator.h>

namespace mt = meshad::test;

int Len = 4; // read at run time

double mallocChain(double x, double y) {
  int n = Len;
  double *t = (double *)malloc(n * sizeof(double));
  for (int i = 0; i < n; ++i)
    t[i] = x * (i + 1) + y;
  for (int i = 1; i < n; ++i)
    t[i] = sin(t[i]) * t[i - 1];
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += t[i] * y;
  free(t);
  return s;
}
// CHECK-LABEL: double mallocChain_darg0(double x, double y) {
// CHECK: meshad::newArray(&t, n);
// CHECK: meshad::newArray(&_d_t, n);
// CHECK: meshad::deleteArray(t);
// CHECK: meshad::deleteArray(_d_t);
// CHECK-LABEL: void mallocChain_grad(double x, double y, double *_d_x, double *_d_y) {
// CHECK: meshad::newArray(&t, n);
// CHECK: meshad::newArray(&_d_t, n);
// CHECK: meshad::deleteArray(_d_t);
// CHECK: meshad::deleteArray(t);
// CHECK-LABEL: void mallocChain_hvp(

// calloc's zeros are read (c[0]); the count is an expression.
double callocRecurrence(double x, double y) {
  int n = Len;
  double *c = static_cast<double *>(std::calloc(n + 1, sizeof(double)));
  for (int i = 0; i < n; ++i)
    c[i + 1] = c[i] * y + x * exp(0.1 * y * i);
  double s = c[n] * c[n];
  std::free(c);
  return s;
}
// CHECK-LABEL: double callocRecurrence_darg0(double x, double y) {
// CHECK: meshad::newArray(&c, n + 1);
// CHECK: meshad::newArray(&_d_c, n + 1);
// CHECK-LABEL: void callocRecurrence_grad(double x, double y, double *_d_x, double *_d_y) {
// CHECK: meshad::newArray(&_d_c, n + 1);
// CHECK: meshad::deleteArray(c);
// CHECK-LABEL: void callocRecurrence_hvp(

__global__ void mallocWindow(int n, int w, const double *x, double *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  double *t = (double *)malloc(sizeof(double) * w);
  for (int k = 0; k < w; ++k)
    t[k] = x[(i + k) % n] * x[i];
  double s = 0;
  for (int k = 1; k < w; ++k)
    s += sin(t[k]) * t[k - 1];
  y[i] = s;
  free(t);
}
// CHECK-LABEL: __global__ void mallocWindow_darg2(int n, int w, const double *x, double *y, const double *_d_x, double *_d_y) {
// CHECK: meshad::newArray(&_d_t, w);
// CHECK: meshad::deleteArray(_d_t);
// CHECK-LABEL: __global__ void mallocWindow_grad(int n, int w, const double *x, double *y, double *_d_x, double *_d_y) {
// CHECK: meshad::newArray(&_d_t, w);
// CHECK: meshad::deleteArray(_d_t);
// CHECK: meshad::deleteArray(t);

int main() {
  mt::RandomInputs Rng;
  for (int L : {1, 3, 6}) {
    Len = L;
    checkAll("mallocChain", mallocChain,
             meshad::differentiate(mallocChain, "x"),
             meshad::differentiate(mallocChain, "y"),
             meshad::gradient(mallocChain, "x, y"),
             meshad::hvp(mallocChain, "x, y"), Rng);
    checkAll("callocRecurrence", callocRecurrence,
             meshad::differentiate(callocRecurrence, "x"),
             meshad::differentiate(callocRecurrence, "y"),
             meshad::gradient(callocRecurrence, "x, y"),
             meshad::hvp(callocRecurrence, "x, y"), Rng);
  }
  for (int W : {2, 5})
    ekc::checkKernel("mallocWindow", mallocWindow,
                     meshad::differentiate(mallocWindow, "x"),
                     meshad::gradient(mallocWindow, "x, y"), Rng, W);
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
