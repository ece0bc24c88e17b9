// new T[N] with a constant N and its delete[] in host code (issue 13): the
// buffer becomes a local array (value-initialised for `new T[N]()`), the
// delete[] is left out; the buffer is indexed and passed to a helper.
// Forward mode, reverse mode and HVPs against central differences.
//
// RUN: %clangxx -std=c++17 -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%I -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "NumericCheck.h"
#include <cmath>
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

int main() {
  mt::RandomInputs Rng;
  auto f0 = meshad::differentiate(heap, "x");
  auto f1 = meshad::differentiate(heap, "y");
  auto g = meshad::gradient(heap, "x, y");
  auto h = meshad::hvp(heap, "x, y");
  for (int Trial = 0; Trial < 4; ++Trial) {
    double X = Rng.uniform(-1, 1), Y = Rng.uniform(-1, 1);
    double VX = Rng.uniform(-1, 1), VY = Rng.uniform(-1, 1);
    double GX = 0, GY = 0, HX = 0, HY = 0;
    g.execute(X, Y, &GX, &GY);
    double FdX = mt::centralDifference([&](double T) { return heap(T, Y); }, X);
    double FdY = mt::centralDifference([&](double T) { return heap(X, T); }, Y);
    MESHAD_CHECK_CLOSE("heap fwd d/dx", f0.execute(X, Y), FdX);
    MESHAD_CHECK_CLOSE("heap fwd d/dy", f1.execute(X, Y), FdY);
    MESHAD_CHECK_CLOSE("heap rev d/dx", GX, FdX);
    MESHAD_CHECK_CLOSE("heap rev d/dy", GY, FdY);
    h.execute(X, Y, VX, VY, &HX, &HY);
    for (int I = 0; I < 2; ++I) {
      double Ref = mt::centralDifference(
          [&](double T) {
            double G[2] = {};
            g.execute(X + T * VX, Y + T * VY, &G[0], &G[1]);
            return G[I];
          },
          0.0);
      MESHAD_CHECK_CLOSE("heap hvp", I == 0 ? HX : HY, Ref);
    }
  }
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
