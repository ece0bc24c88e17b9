// Range-based for loops over arrays of known size (issue 13): an indexed
// loop; a reference loop variable names the element itself (writes go to
// the array), a copy is declared from it. Forward and reverse mode
// against central differences.
//
// RUN: %clangxx -std=c++17 -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%I -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

double ranges(double x, double y) {
  double a[3] = {x, 2 * y, x * y};
  double s = 0;
  for (double v : a)
    s += v * v;
  for (double &v : a)
    v *= sin(x);
  for (const auto &v : a) {
    if (v > 0.5)
      continue;
    s += v * y;
  }
  return s;
}
// CHECK-LABEL: double ranges_darg0(double x, double y) {
// CHECK:   for (int _i0 = 0; _i0 < 3; ++_i0) {
// CHECK-NEXT:     double v = a[_i0];
// CHECK:   for (int _i1 = 0; _i1 < 3; ++_i1) {
// CHECK:     a[_i1] *= _t{{[0-9]+}};
// CHECK-LABEL: void ranges_grad(double x, double y, double *_d_x, double *_d_y) {

int main() {
  using meshad::test::centralDifference;
  meshad::test::RandomInputs Rng;
  auto fx = meshad::differentiate(ranges, "x");
  auto fy = meshad::differentiate(ranges, "y");
  auto g = meshad::gradient(ranges, "x, y");
  int Checked = 0;
  while (Checked < 6) {
    double X = Rng.uniform(-1.5, 1.5), Y = Rng.uniform(-1, 1);
    // Away from v = 0.5 for the three elements.
    double S = std::sin(X);
    if (std::fabs(X * S - 0.5) < 0.05 || std::fabs(2 * Y * S - 0.5) < 0.05 ||
        std::fabs(X * Y * S - 0.5) < 0.05)
      continue;
    ++Checked;
    double FdX = centralDifference([&](double V) { return ranges(V, Y); }, X);
    double FdY = centralDifference([&](double V) { return ranges(X, V); }, Y);
    MESHAD_CHECK_CLOSE("fwd d/dx", fx.execute(X, Y), FdX);
    MESHAD_CHECK_CLOSE("fwd d/dy", fy.execute(X, Y), FdY);
    double DX = 0, DY = 0;
    g.execute(X, Y, &DX, &DY);
    MESHAD_CHECK_CLOSE("rev d/dx", DX, FdX);
    MESHAD_CHECK_CLOSE("rev d/dy", DY, FdY);
  }
  return meshad::test::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
