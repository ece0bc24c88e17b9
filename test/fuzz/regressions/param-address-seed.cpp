// Found by the fuzzer (seed 11, program 27, reverse mode, with the
// references of issue 13): a scalar parameter whose address a callee gets
// (`h(&x)`, or `h(x)` for a `double &` parameter) and overwrites. The
// gradient used the caller's adjoint memory as the parameter's adjoint, so
// the callee's pullback scaled what the caller's adjoint already held (the
// fuzzer seeds it 0.5). The adjoint now lives in a local added at the end,
// as for a parameter the function assigns itself.
//
// RUN: %clangxx -std=c++17 -fplugin=%meshad_plugin -I%I -I%test_inputs %s -o %t
// RUN: %t | FileCheck %s
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

void halvePtr(double *acc, double s) { acc[0] = 0.5 * acc[0] + 0.5 * s; }
double viaAddress(double x, double y) {
  halvePtr(&x, y);
  return x * x * sin(y);
}

int main() {
  meshad::test::RandomInputs Rng;
  auto g = meshad::gradient(viaAddress, "x, y");
  for (int Trial = 0; Trial < 3; ++Trial) {
    double X = Rng.uniform(-1, 1), Y = Rng.uniform(0.5, 1.5);
    double GX = 0.5, GY = 0.5;
    g.execute(X, Y, &GX, &GY);
    MESHAD_CHECK_CLOSE("d/dx (seeded)", GX - 0.5,
                       meshad::test::centralDifference(
                           [&](double T) { return viaAddress(T, Y); }, X));
    MESHAD_CHECK_CLOSE("d/dy (seeded)", GY - 0.5,
                       meshad::test::centralDifference(
                           [&](double T) { return viaAddress(X, T); }, Y));
  }
  return meshad::test::summary();
}
// CHECK-NOT: FAIL
// CHECK: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
