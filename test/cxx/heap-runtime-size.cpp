// `new T[n]` of a size known only at run time and its `delete[]` (issue
// 13): the buffer stays on the heap (`meshad::newArray(&t, n)`,
// meshad/codegen/HeapArray.h) and its tangent or adjoint is a buffer of the
// same size beside it: forward mode allocates `_d_t` where `t` is
// allocated and releases it where `t` is; reverse mode allocates the zeroed
// adjoint in the forward sweep and releases both at the end of the reverse
// sweep (the elements the sweep overwrites are taped as for any memory).
// Host code here, a kernel's per-thread buffer in
// cxx/heap-runtime-size-kernel.cu. Forward mode, reverse mode and HVPs
// against central differences.
//
// RUN: %clangxx -std=c++17 -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%I -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "NumericCheck.h"
#include "TwoInputChecks.h"
#include <cmath>
#include <meshad/Differentiator.h>

namespace mt = meshad::test;

int Len = 4; // read at run time

double chain(double x, double y) {
  int n = Len;
  double *t = new double[n];
  for (int i = 0; i < n; ++i)
    t[i] = x * (i + 1) + y;
  for (int i = 1; i < n; ++i)
    t[i] = sin(t[i]) * t[i - 1];
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += t[i] * y;
  delete[] t;
  return s;
}
// CHECK-LABEL: double chain_darg0(double x, double y) {
// CHECK: meshad::newArray(&t, n);
// CHECK: meshad::newArray(&_d_t, n);
// CHECK: meshad::deleteArray(t);
// CHECK: meshad::deleteArray(_d_t);
// CHECK-LABEL: void chain_grad(double x, double y, double *_d_x, double *_d_y) {
// CHECK: meshad::newArray(&t, n);
// CHECK: meshad::newArray(&_d_t, n);
// CHECK: meshad::deleteArray(_d_t);
// CHECK: meshad::deleteArray(t);
// CHECK-LABEL: void chain_hvp(

double weighted(const double *x, int n) {
  double *t = new double[n];
  for (int i = 0; i < n; ++i)
    t[i] = x[i] * x[i];
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += t[i] * (i + 1) * x[(i + 1) % n];
  delete[] t;
  return s;
}
// CHECK-LABEL: double weighted_darg0(const double *x, int n, const double *_d_x) {
// CHECK-LABEL: void weighted_grad(const double *x, int n, double *_d_x) {
// CHECK-LABEL: void weighted_hvp(

int main() {
  mt::RandomInputs Rng;
  for (int L : {1, 3, 6}) {
    Len = L;
    checkAll("chain", chain, meshad::differentiate(chain, "x"),
             meshad::differentiate(chain, "y"), meshad::gradient(chain, "x, y"),
             meshad::hvp(chain, "x, y"), Rng);
  }
  auto f = meshad::differentiate(weighted, "x");
  auto g = meshad::gradient(weighted, "x");
  auto h = meshad::hvp(weighted, "x");
  for (int n : {2, 5, 9}) {
    double x[9], v[9], G[9] = {}, Hv[9] = {};
    for (int i = 0; i < n; ++i) {
      x[i] = Rng.uniform(-1, 1);
      v[i] = Rng.uniform(-1, 1);
    }
    g.execute(x, n, G);
    h.execute(x, n, v, Hv);
    double Dir = 0;
    for (int i = 0; i < n; ++i) {
      double Fd = mt::centralDifference(
          [&](double T) {
            double Xt[9];
            for (int j = 0; j < n; ++j)
              Xt[j] = x[j] + (j == i ? T : 0);
            return weighted(Xt, n);
          },
          0.0);
      MESHAD_CHECK_CLOSE("weighted rev", G[i], Fd);
      Dir += Fd * v[i];
      double Ref = mt::centralDifference(
          [&](double T) {
            double Xt[9], Gt[9] = {};
            for (int j = 0; j < n; ++j)
              Xt[j] = x[j] + T * v[j];
            g.execute(Xt, n, Gt);
            return Gt[i];
          },
          0.0);
      MESHAD_CHECK_CLOSE("weighted hvp", Hv[i], Ref);
    }
    MESHAD_CHECK_CLOSE("weighted fwd", f.execute(x, n, v), Dir);
  }
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
