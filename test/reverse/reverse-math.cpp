// Reverse mode through the math functions of the rule table (double and
// float spellings): every selected input gets its adjoint through one or
// several math calls, including binary ones (pow, atan2, hypot, fmin/fmax,
// fma) whose two arguments are both active.
//
// RUN: %clangxx -std=c++17 -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%I -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

// x in (0.1, 0.9): inside the domain of every function here.
double unaryMix(double x) {
  double s = sqrt(x) + cbrt(x) + exp(x) + exp2(x) + expm1(x);
  s += log(x) + log2(x) + log10(x) + log1p(x);
  s += sin(x) + cos(x) + tan(x) + asin(x) + acos(x) + atan(x);
  s += sinh(x) + cosh(x) + tanh(x) + asinh(x) + atanh(x) + acosh(x + 1.5);
  s += erf(x) + erfc(x) + fabs(x - 2.0);
  return s;
}
// CHECK-LABEL: void unaryMix_grad(double x, double *_d_x) {
// CHECK: cos(x)

// Nested calls: the chain rule through several levels.
double nested(double x, double y) {
  return exp(sin(x * y)) * log(1 + x * x + y * y) + sqrt(cosh(x) + y * y);
}
// CHECK-LABEL: void nested_grad(double x, double y, double *_d_x, double *_d_y) {

double binaryMix(double x, double y) {
  return pow(x, y) + atan2(x, y) + hypot(x, y) + fmin(x, y) * fmax(x, 2 * y) +
         fma(x, y, x * y);
}
// CHECK-LABEL: void binaryMix_grad(double x, double y, double *_d_x, double *_d_y) {

float floatMix(float x, float y) {
  return sqrtf(x) * expf(y) + logf(x) / y + sinf(x * y) + powf(x, y) +
         atan2f(y, x) + tanhf(x - y);
}
// CHECK-LABEL: void floatMix_grad(float x, float y, float *_d_x, float *_d_y) {
double floatMixRef(double x, double y) {
  return sqrt(x) * exp(y) + log(x) / y + sin(x * y) + pow(x, y) +
         atan2(y, x) + tanh(x - y);
}

int main() {
  using meshad::test::centralDifference;
  meshad::test::RandomInputs Rng;
  auto gu = meshad::gradient(unaryMix, "x");
  auto gn = meshad::gradient(nested, "x, y");
  auto gb = meshad::gradient(binaryMix, "x, y");
  auto gf = meshad::gradient(floatMix, "x, y");
  for (int I = 0; I < 20; ++I) {
    double X = Rng.uniform(0.1, 0.9), Y = Rng.uniform(1.0, 2.0);
    double DU = 0;
    gu.execute(X, &DU);
    MESHAD_CHECK_CLOSE("d unaryMix/dx", DU,
        centralDifference([&](double V) { return unaryMix(V); }, X));

    double DX = 0, DY = 0;
    gn.execute(X, Y, &DX, &DY);
    MESHAD_CHECK_CLOSE("d nested/dx", DX,
        centralDifference([&](double V) { return nested(V, Y); }, X));
    MESHAD_CHECK_CLOSE("d nested/dy", DY,
        centralDifference([&](double V) { return nested(X, V); }, Y));

    DX = 0, DY = 0;
    gb.execute(X, Y, &DX, &DY);
    MESHAD_CHECK_CLOSE("d binaryMix/dx", DX,
        centralDifference([&](double V) { return binaryMix(V, Y); }, X));
    MESHAD_CHECK_CLOSE("d binaryMix/dy", DY,
        centralDifference([&](double V) { return binaryMix(X, V); }, Y));

    float FX = static_cast<float>(X), FY = static_cast<float>(Y);
    float FDX = 0, FDY = 0;
    gf.execute(FX, FY, &FDX, &FDY);
    MESHAD_CHECK_CLOSE("d floatMix/dx", FDX,
        centralDifference([&](double V) { return floatMixRef(V, FY); }, FX));
    MESHAD_CHECK_CLOSE("d floatMix/dy", FDY,
        centralDifference([&](double V) { return floatMixRef(FX, V); }, FY));
  }
  return meshad::test::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 140 passed, 0 failed
