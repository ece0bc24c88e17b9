// Reverse mode (meshad::gradient) of straight-line arithmetic: + - * /,
// unary minus, compound assignments, integer and literal constants, a
// parameter that is not selected, and a single selected parameter. The
// adjoints accumulate into what the caller passes (seed 1 for the result).
//
// RUN: %clangxx -std=c++17 -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%I -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "NumericCheck.h"
#include <meshad/Differentiator.h>

double poly(double x, double y, double z) {
  double t = x * y - z / (1 + x * x);
  double u = -t + 3 * y;
  u *= x;
  u += y / z;
  u -= 2 * z * z;
  u /= (1.5 + y * y);
  return u * t + 7;
}
// CHECK-LABEL: void poly_grad(double x, double y, double z, double *_d_x, double *_d_y, double *_d_z) {
// CHECK: _d_x
// CHECK: _d_y
// CHECK: _d_z

// The result depends on the same variable through several paths.
double reuse(double x, int k) {
  double a = x * x;
  double b = a * x + k;
  return a * b / (x + 3);
}
// CHECK-LABEL: void reuse_grad(double x, int k, double *_d_x) {

// Only y is selected: the gradient w.r.t. parameter 1 alone.
double mixed(double x, double y, double z) { return x * y * y + z / y; }
// CHECK-LABEL: void mixed_grad_1(double x, double y, double z, double *_d_y) {

int main() {
  using meshad::test::centralDifference;
  meshad::test::RandomInputs Rng;
  auto gp = meshad::gradient(poly, "x, y, z");
  auto gr = meshad::gradient(reuse, "x");
  auto gm = meshad::gradient(mixed, "y");
  for (int I = 0; I < 10; ++I) {
    double X = Rng.uniform(-2, 2), Y = Rng.uniform(-2, 2),
           Z = Rng.uniform(0.5, 2);
    double DX = 0, DY = 0, DZ = 0;
    gp.execute(X, Y, Z, &DX, &DY, &DZ);
    MESHAD_CHECK_CLOSE("d poly/dx", DX,
        centralDifference([&](double V) { return poly(V, Y, Z); }, X));
    MESHAD_CHECK_CLOSE("d poly/dy", DY,
        centralDifference([&](double V) { return poly(X, V, Z); }, Y));
    MESHAD_CHECK_CLOSE("d poly/dz", DZ,
        centralDifference([&](double V) { return poly(X, Y, V); }, Z));

    // Accumulation: a second call adds the same gradient again.
    double DR = 0.25;
    gr.execute(X, 4, &DR);
    double Ref = centralDifference([&](double V) { return reuse(V, 4); }, X);
    MESHAD_CHECK_CLOSE("d reuse/dx accumulates", DR, 0.25 + Ref);

    double DM = 0;
    gm.execute(X, Y, Z, &DM);
    MESHAD_CHECK_CLOSE("d mixed/dy", DM,
        centralDifference([&](double V) { return mixed(X, V, Z); }, Y));
  }
  return meshad::test::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 50 passed, 0 failed
