// Fuzzer finding (the 'H' units' first CI run, seed 3, program 281,
// reduced): a local pointer into a local array, `double *ptr = w + 1`.
// The gradient's `_d_ptr = _d_w + 1` was built with the type of the array
// (the builder did not decay `array + int` to a pointer), so forward mode
// over it took the sum for arithmetic and set the tangent pointer to
// `_d2_d_w`, one element off: a wrong Hessian-vector product. (fixed:
// `array + int` is a pointer to the element)
//
// RUN: %clangxx -std=c++17 -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%I -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s --check-prefix=CODE < %t.dump
// RUN: %t | FileCheck %s
// CODE-LABEL: void f_hvp(
// CODE: _d2_d_ptr = _d2_d_w + 1;
// CHECK-NOT: FAIL
// CHECK: numeric checks: 12 passed, 0 failed
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

double f(double x, double a) {
  double w[3];
  for (int i = 0; i < 3; ++i)
    w[i] = x;
  double *ptr = w + 1;
  for (int j = 0; j < 4; ++j)
    ptr[0] *= (0.6 + 0.3 * sin(a));
  return erf(w[1] * w[2]);
}

namespace mt = meshad::test;

int main() {
  mt::RandomInputs Rng;
  auto g = meshad::gradient(f, "x, a");
  auto h = meshad::hvp(f, "x, a");
  for (int Trial = 0; Trial < 3; ++Trial) {
    double X = Rng.uniform(-1, 1), A = Rng.uniform(-1, 1);
    double VX = Rng.uniform(-1, 1), VA = Rng.uniform(-1, 1);
    double HX = 0, HA = 0;
    h.execute(X, A, VX, VA, &HX, &HA);
    auto Grad = [&](double T, int K) {
      double GX = 0, GA = 0;
      g.execute(X + T * VX, A + T * VA, &GX, &GA);
      return K == 0 ? GX : GA;
    };
    MESHAD_CHECK_CLOSE("Hv_x", HX, mt::centralDifference(
                                       [&](double T) { return Grad(T, 0); }, 0.0));
    MESHAD_CHECK_CLOSE("Hv_a", HA, mt::centralDifference(
                                       [&](double T) { return Grad(T, 1); }, 0.0));
    // The gradient itself, against the function.
    double GX = 0, GA = 0;
    g.execute(X, A, &GX, &GA);
    MESHAD_CHECK_CLOSE("g_x", GX, mt::centralDifference(
                                      [&](double T) { return f(T, A); }, X));
    MESHAD_CHECK_CLOSE("g_a", GA, mt::centralDifference(
                                      [&](double T) { return f(X, T); }, A));
  }
  return mt::summary();
}
