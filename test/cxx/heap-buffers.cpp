// new T[N] with a constant N and its delete[] in host code (issue 13): the
// buffer becomes a local array (value-initialised for `new T[N]()`), the
// delete[] is left out; the buffer is indexed and passed to a helper. The
// same for `(T *)malloc(N * sizeof(T))` and `calloc` (zeroed) with their
// `free`.
// Forward mode, reverse mode and HVPs against central differences.
//
// RUN: %clangxx -std=c++17 -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%I -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "NumericCheck.h"
#include "TwoInputChecks.h"
#include <cmath>
#include <cstdlib>
#include <meshad/Differentiator.h>

namespace mt = meshad::test;

double sumSquares(const double *v, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += v[i] * v[i];
  return s;
}

double heap(double x, double y) {
  double *t = new double[3];
  t[0] = x;
  t[1] = y * x;
  t[2] = sin(t[1]);
  double *acc = new double[4]();
  for (int i = 0; i < 3; ++i)
    acc[i + 1] = acc[i] + t[i] * y;
  double s = t[0] * t[2] + sumSquares(acc, 4);
  delete[] acc;
  delete[] t;
  return s;
}
// CHECK-LABEL: double heap_darg0(double x, double y) {
// CHECK: double t[3];
// CHECK: double acc[4] = {};
// CHECK-NOT: delete
// CHECK-LABEL: double heap_darg1(double x, double y) {
// CHECK-LABEL: void heap_grad(double x, double y, double *_d_x, double *_d_y) {
// CHECK-NOT: delete
// CHECK-LABEL: void heap_hvp(double x, double y, double _d2_x, double _d2_y, double *_d2_d_x, double *_d2_d_y) {

double heapC(double x, double y) {
  double *t = (double *)malloc(3 * sizeof(double));
  t[0] = x;
  t[1] = y * x;
  t[2] = sin(t[1]);
  double *acc = static_cast<double *>(std::calloc(4, sizeof(double)));
  for (int i = 0; i < 3; ++i)
    acc[i + 1] = acc[i] + t[i] * y;
  double s = t[0] * t[2] + sumSquares(acc, 4);
  free(acc);
  std::free(t);
  return s;
}
// CHECK-LABEL: double heapC_darg0(double x, double y) {
// CHECK: double t[3];
// CHECK: double acc[4] = {};
// CHECK-NOT: free
// CHECK-LABEL: void heapC_grad(double x, double y, double *_d_x, double *_d_y) {
// CHECK-NOT: free
// CHECK-LABEL: void heapC_hvp(

int main() {
  mt::RandomInputs Rng;
  checkAll("heap", heap, meshad::differentiate(heap, "x"),
           meshad::differentiate(heap, "y"), meshad::gradient(heap, "x, y"),
           meshad::hvp(heap, "x, y"), Rng);
  checkAll("heapC", heapC, meshad::differentiate(heapC, "x"),
           meshad::differentiate(heapC, "y"), meshad::gradient(heapC, "x, y"),
           meshad::hvp(heapC, "x, y"), Rng);
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
