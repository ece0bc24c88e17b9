// Pointer-arithmetic aliases (issue 13): `const double *row = a + 3 * i;`
// read as row[k], and `double *row = m + 3 * i;` written through into a
// local array. Forward mode, reverse mode and HVPs against central
// differences.
//
// RUN: %clangxx -std=c++17 -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%I -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

namespace mt = meshad::test;

double rows(const double *a, double x) {
  double s = 0;
  for (int i = 0; i < 3; ++i) {
    const double *row = a + 3 * i;
    for (int k = 0; k < 3; ++k)
      s += row[k] * sin(row[(k + 1) % 3] * x);
  }
  return s;
}

double rowsWritten(double x, double y) {
  double m[6] = {x, y, x * y, y * y, x, 1.0};
  for (int i = 0; i < 2; ++i) {
    double *row = m + 3 * i;
    row[0] *= row[1] + y;
    row[2] = sin(row[0]) * x;
  }
  return m[0] * m[2] + m[3] * m[5];
}
// CHECK-LABEL: void rows_grad(const double *a, double x, double *_d_a, double *_d_x) {
// CHECK: _d_row = _d_a + 3 * i;
// CHECK: row = a + 3 * i;
// CHECK-LABEL: double rows_darg1(const double *a, double x) {
// CHECK: const double *row = a + 3 * i;
// CHECK-LABEL: void rows_hvp(const double *a, double x, const double *_d2_a, double _d2_x, double *_d2_d_a, double *_d2_d_x) {
// CHECK-LABEL: void rowsWritten_grad(double x, double y, double *_d_x, double *_d_y) {
// CHECK-LABEL: double rowsWritten_darg0(double x, double y) {
// CHECK: double *_d_row = _d_m + 3 * i;
// CHECK-LABEL: double rowsWritten_darg1(double x, double y) {
// CHECK-LABEL: void rowsWritten_hvp(double x, double y, double _d2_x, double _d2_y, double *_d2_d_x, double *_d2_d_y) {

int main() {
  mt::RandomInputs Rng;
  auto rg = meshad::gradient(rows, "a, x");
  auto rf = meshad::differentiate(rows, "x");
  auto rh = meshad::hvp(rows, "a, x");
  constexpr int N = 9;
  for (int Trial = 0; Trial < 3; ++Trial) {
    double A[N], VA[N], HA[N] = {}, GA[N] = {}, GX = 0, HX = 0;
    Rng.fill(A, N, -1, 1);
    Rng.fill(VA, N, -1, 1);
    double X = Rng.uniform(-1, 1), VX = Rng.uniform(-1, 1);
    rg.execute(A, X, GA, &GX);
    double FdX = mt::centralDifference([&](double T) { return rows(A, T); }, X);
    MESHAD_CHECK_CLOSE("rows fwd d/dx", rf.execute(A, X), FdX);
    MESHAD_CHECK_CLOSE("rows rev d/dx", GX, FdX);
    for (int I = 0; I < N; ++I)
      MESHAD_CHECK_CLOSE("rows rev d/da",
                         GA[I],
                         mt::centralDifferenceAt([&] { return rows(A, X); },
                                                 A, I));
    rh.execute(A, X, VA, VX, HA, &HX);
    // H v against central differences of the gradient along (VA, VX).
    auto GradAlong = [&](double T, int I) {
      double AT[N], G[N] = {}, Gx = 0;
      for (int K = 0; K < N; ++K)
        AT[K] = A[K] + T * VA[K];
      rg.execute(AT, X + T * VX, G, &Gx);
      return I < N ? G[I] : Gx;
    };
    for (int I = 0; I <= N; ++I) {
      double Ref =
          mt::centralDifference([&](double T) { return GradAlong(T, I); }, 0.0);
      MESHAD_CHECK_CLOSE("rows hvp", I < N ? HA[I] : HX, Ref);
    }
  }

  auto wg = meshad::gradient(rowsWritten, "x, y");
  auto wf0 = meshad::differentiate(rowsWritten, "x");
  auto wf1 = meshad::differentiate(rowsWritten, "y");
  auto wh = meshad::hvp(rowsWritten, "x, y");
  for (int Trial = 0; Trial < 4; ++Trial) {
    double X = Rng.uniform(-1, 1), Y = Rng.uniform(-1, 1);
    double VX = Rng.uniform(-1, 1), VY = Rng.uniform(-1, 1);
    double GX = 0, GY = 0, HX = 0, HY = 0;
    wg.execute(X, Y, &GX, &GY);
    double FdX = mt::centralDifference(
        [&](double T) { return rowsWritten(T, Y); }, X);
    double FdY = mt::centralDifference(
        [&](double T) { return rowsWritten(X, T); }, Y);
    MESHAD_CHECK_CLOSE("rowsWritten fwd d/dx", wf0.execute(X, Y), FdX);
    MESHAD_CHECK_CLOSE("rowsWritten fwd d/dy", wf1.execute(X, Y), FdY);
    MESHAD_CHECK_CLOSE("rowsWritten rev d/dx", GX, FdX);
    MESHAD_CHECK_CLOSE("rowsWritten rev d/dy", GY, FdY);
    wh.execute(X, Y, VX, VY, &HX, &HY);
    for (int I = 0; I < 2; ++I) {
      double Ref = mt::centralDifference(
          [&](double T) {
            double G[2] = {};
            wg.execute(X + T * VX, Y + T * VY, &G[0], &G[1]);
            return G[I];
          },
          0.0);
      MESHAD_CHECK_CLOSE("rowsWritten hvp", I == 0 ? HX : HY, Ref);
    }
  }
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
