// Fuzzer finding (issue 13, "false rejections"; host seed 11 program 83,
// and the pipeline fuzzer's kernels): a helper that writes a local array
// and reads it back into its result, called as a statement (or with its
// result unused) with a local array that nobody reads after the call, was
// rejected ("'h' writes derivative-carrying values through parameter 'a',
// but the caller passes memory without an adjoint"): the caller gave the
// array no adjoint, yet the helper's pullback carries derivatives through
// it. Fixed: such an array gets a zeroed local adjoint array for the call
// (AD/Reverse/ReverseExpr.cpp, forceLocalAdjoints). Gradients and HVPs of
// host code, gradients of a kernel, against central differences.
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "ElementwiseKernelChecks.h"
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

__host__ __device__ double h(double *a, double y) {
  a[0] = sin(a[1] * y);
  a[1] = y * y;
  return a[0] * a[1] + y;
}

double f(double x) {
  double buf[2] = {2.0 * sin(x * x)};
  double s = x;
  for (int j = 0; j < 2; ++j) {
    s = s * cos(s) + x;
    h(buf, s * x);
  }
  return s + x * h(buf, 0.5);
}
// CHECK-LABEL: void f_grad(double x, double *_d_x) {
// CHECK: double _d_buf[2] = {};
// CHECK-LABEL: void f_hvp(

__global__ void k(int n, const double *x, double *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    double w[2] = {x[i], 1.0};
    double v = x[i] * x[(i + 1) % n];
    h(w, v);
    y[i] = v * sin(x[i]);
  }
}
// CHECK-LABEL: __global__ void k_grad(int n, const double *x, double *y, double *_d_x, double *_d_y) {
// CHECK: double _d_w[2] = {};

namespace mt = meshad::test;

int main() {
  mt::RandomInputs Rng;
  auto g = meshad::gradient(f, "x");
  auto hv = meshad::hvp(f, "x");
  for (int I = 0; I < 4; ++I) {
    double X = Rng.uniform(-1, 1), V = Rng.uniform(-1, 1), G = 0, H = 0;
    g.execute(X, &G);
    MESHAD_CHECK_CLOSE("f rev", G, mt::centralDifference(f, X));
    hv.execute(X, V, &H);
    double Ref = mt::centralDifference(
        [&](double T) {
          double Gt = 0;
          g.execute(X + T * V, &Gt);
          return Gt;
        },
        0.0);
    MESHAD_CHECK_CLOSE("f hvp", H, Ref);
  }
  checkKernel("k", k, meshad::differentiate(k, "x"),
              meshad::gradient(k, "x, y"), Rng);
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
