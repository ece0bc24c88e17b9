// Forward mode through every math function of the rule table, double and
// float spellings, and the CUDA float intrinsics' host equivalents.
//
// RUN: %clangxx -std=c++17 -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%I -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

double unaryMix(double x) {
  double s = sqrt(x) + cbrt(x) + exp(x) + exp2(x) + expm1(x);
  s += log(x) + log2(x) + log10(x) + log1p(x);
  s += sin(x) + cos(x) + tan(x) + asin(x) + acos(x) + atan(x);
  s += sinh(x) + cosh(x) + tanh(x) + fabs(x - 2.0);
  return s;
}
// CHECK-LABEL: double unaryMix_darg0(double x) {
// CHECK: cos(x)

double binaryMix(double x, double y) {
  return pow(x, y) + atan2(x, y) + hypot(x, y) + fmin(x, y) * fmax(x, 2 * y) +
         fma(x, y, x * y);
}
// CHECK-LABEL: double binaryMix_darg0(double x, double y) {
// CHECK-LABEL: double binaryMix_darg1(double x, double y) {

float floatMix(float x, float y) {
  return sqrtf(x) * expf(y) + logf(x) / y + sinf(x * y) + powf(x, y) +
         atan2f(y, x) + tanhf(x - y);
}
// CHECK-LABEL: float floatMix_darg0(float x, float y) {
// CHECK: cosf
double floatMixRef(double x, double y) {
  return sqrt(x) * exp(y) + log(x) / y + sin(x * y) + pow(x, y) +
         atan2(y, x) + tanh(x - y);
}

int main() {
  meshad::test::RandomInputs Rng;
  auto du = meshad::differentiate(unaryMix, "x");
  auto dbx = meshad::differentiate(binaryMix, "x");
  auto dby = meshad::differentiate(binaryMix, "y");
  auto dfx = meshad::differentiate(floatMix, "x");
  auto dfy = meshad::differentiate(floatMix, "y");
  for (int I = 0; I < 20; ++I) {
    double X = Rng.uniform(0.1, 0.9), Y = Rng.uniform(1.0, 2.0);
    MESHAD_CHECK_CLOSE("d unaryMix/dx", du.execute(X),
        meshad::test::centralDifference([&](double V) { return unaryMix(V); }, X));
    MESHAD_CHECK_CLOSE("d binaryMix/dx", dbx.execute(X, Y),
        meshad::test::centralDifference([&](double V) { return binaryMix(V, Y); }, X));
    MESHAD_CHECK_CLOSE("d binaryMix/dy", dby.execute(X, Y),
        meshad::test::centralDifference([&](double V) { return binaryMix(X, V); }, Y));
    float FX = static_cast<float>(X), FY = static_cast<float>(Y);
    MESHAD_CHECK_CLOSE("d floatMix/dx", dfx.execute(FX, FY),
        meshad::test::centralDifference([&](double V) { return floatMixRef(V, FY); }, FX));
    MESHAD_CHECK_CLOSE("d floatMix/dy", dfy.execute(FX, FY),
        meshad::test::centralDifference([&](double V) { return floatMixRef(FX, V); }, FY));
  }
  return meshad::test::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 100 passed, 0 failed
