// Explicit casts keep the type the user gave an expression: (double)3 is
// emitted as the double literal 3., not as the int 3, which would change
// template deduction (std::max(y, 3) does not compile) and division
// ((double)1 / 3 is not 1 / 3). Also static_cast and T(3) in a template
// instantiated for float and double, a negative literal, a cast of a
// floating literal, fmax with an int argument (an implicit conversion,
// emitted as written), and (float)x in a double function. Both modes,
// checked against central finite differences.
//
// RUN: %clangxx -std=c++17 -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%I -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
// The code as the transformer builds it (before the simplifier):
// RUN: %clangxx -std=c++17 -fsyntax-only -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -fplugin-arg-meshad-no-simplify -I%I -I%test_inputs %s 2> %t.raw.dump
// RUN: FileCheck %s --check-prefix=RAW < %t.raw.dump
#include "NumericCheck.h"
#include <algorithm>
#include <cmath>
#include <meshad/Differentiator.h>

double clamps(double y) {
  double a = std::max(y, (double)3);
  double b = std::min(y, (double)-1);
  double c = std::max(y * y, static_cast<double>(2));
  double d = fmax(y, 3);
  double third = (double)1 / 3;
  return a * b + c * third + d;
}

template <class T> T clampLow(T x) {
  return std::max(x, T(3)) * std::min(x, (T)5.0) + x / T(2);
}

// The float rounding of (float)x is not differentiated: d/dx is exact.
double viaFloat(double x) {
  float f = (float)x;
  return x * x + f;
}

// CHECK-LABEL: void clamps_grad(double y, double *_d_y) {
// CHECK: a = std::max(y, 3.);
// CHECK: b = std::min(y, (double)(-1));
// CHECK: third = 1. / 3;
// CHECK-LABEL: void clampLow_grad(float x, float *_d_x) {
// CHECK: *_d_x += std::min(x, (float)5.0) * (x >= 3.f ? 1.f : 0.f);
// CHECK: *_d_x += std::max(x, 3.f) * (x <= (float)5.0 ? 1.f : 0.f);
// CHECK-LABEL: void clampLow_grad(double x, double *_d_x) {
// CHECK: *_d_x += std::max(x, 3.) * (x <= 5.0 ? 1. : 0.);
// The simplifier drops the dead locals c and d of the forward code and
// propagates the seed through the cast; their casts are checked on the code
// before it (RAW).
// CHECK-LABEL: double clamps_darg0(double y) {
// CHECK: double a = std::max(y, 3.);
// CHECK: double b = std::min(y, (double)(-1));
// CHECK: double third = 1. / 3;
// CHECK: (y <= (double)(-1) ? 1. : 0.)
// CHECK: (y >= 3 ? 1. : 0.)
// CHECK-LABEL: float clampLow_darg0(float x) {
// CHECK: std::max(x, 3.f) * (x <= (float)5.0 ? 1.f : 0.f)
// CHECK-LABEL: double viaFloat_darg0(double x) {
// CHECK: return 2. * x + 1.;
// RAW-LABEL: double clamps_darg0(double y) {
// RAW: double a = std::max(y, 3.);
// RAW: double b = std::min(y, (double)(-1));
// RAW: double c = std::max(_t0, 2.);
// RAW: double d = fmax(y, 3);
// RAW: double third = 1. / 3;
// RAW-LABEL: float clampLow_darg0(float x) {
// RAW: float _t0 = std::max(x, 3.f);
// RAW-LABEL: double viaFloat_darg0(double x) {
// RAW: float _d_f = (float)_d_x;

int main() {
  using meshad::test::centralDifference;
  meshad::test::RandomInputs Rng;
  auto gc = meshad::gradient(clamps, "y");
  auto gf = meshad::gradient(clampLow<float>, "x");
  auto gd = meshad::gradient(clampLow<double>, "x");
  auto gv = meshad::gradient(viaFloat, "x");
  auto dc = meshad::differentiate(clamps, "y");
  auto df = meshad::differentiate(clampLow<float>, "x");
  auto dd = meshad::differentiate(clampLow<double>, "x");
  auto dv = meshad::differentiate(viaFloat, "x");
  // Inputs away from the kinks at -1, sqrt(2), 3 and 5.
  const double Points[] = {-2.5, -0.4, 0.6, 1.9, 2.4, 3.6, 4.5, 5.7};
  for (double P : Points) {
    double Y = P + Rng.uniform(-0.05, 0.05);
    double Ref = centralDifference(clamps, Y);
    double G = 0;
    gc.execute(Y, &G);
    MESHAD_CHECK_CLOSE("gradient d clamps/dy", G, Ref);
    MESHAD_CHECK_CLOSE("forward d clamps/dy", dc.execute(Y), Ref);

    double RefT = centralDifference(clampLow<double>, Y);
    float GF = 0;
    double GD = 0;
    gf.execute(static_cast<float>(Y), &GF);
    gd.execute(Y, &GD);
    MESHAD_CHECK_CLOSE("gradient d clampLow<float>/dx", GF, RefT);
    MESHAD_CHECK_CLOSE("gradient d clampLow<double>/dx", GD, RefT);
    MESHAD_CHECK_CLOSE("forward d clampLow<float>/dx",
                       df.execute(static_cast<float>(Y)), RefT);
    MESHAD_CHECK_CLOSE("forward d clampLow<double>/dx", dd.execute(Y), RefT);

    double GV = 0;
    gv.execute(Y, &GV);
    MESHAD_CHECK_CLOSE("gradient d viaFloat/dx", GV, 2 * Y + 1);
    MESHAD_CHECK_CLOSE("forward d viaFloat/dx", dv.execute(Y), 2 * Y + 1);
  }
  return meshad::test::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 64 passed, 0 failed
