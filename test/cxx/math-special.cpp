// Derivative rules of issue 13 (lib/Rules/DerivativeRules.def): fdim,
// remainder, ldexp, lgamma and tgamma (through meshad::polygamma), and
// Clang's __builtin_ spellings (__builtin_pow is pow). Forward and reverse
// mode against central differences; the rules' partials themselves are
// checked by unittests/RulesTest.
//
// RUN: %clangxx -std=c++17 -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%I -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

double special(double x, double y) {
  return fdim(x, 0.3 * y) + lgamma(x + 2) + tgamma(y + 1.5) +
         __builtin_pow(x + 2, 1.5) + remainder(3 * x, 1.7) + ldexp(x * y, 3) +
         __builtin_sqrt(1 + y * y) + std::lgamma(x * y + 3);
}
// CHECK-LABEL: double special_darg0(double x, double y) {
// CHECK: meshad::polygamma(0., x + 2)
// CHECK-LABEL: double special_darg1(double x, double y) {
// CHECK: tgamma(
// CHECK-LABEL: void special_grad(double x, double y, double *_d_x, double *_d_y) {

int main() {
  using meshad::test::centralDifference;
  meshad::test::RandomInputs Rng;
  auto fx = meshad::differentiate(special, "x");
  auto fy = meshad::differentiate(special, "y");
  auto g = meshad::gradient(special, "x, y");
  int Checked = 0;
  while (Checked < 8) {
    double X = Rng.uniform(-1, 1.5), Y = Rng.uniform(-1, 1.5);
    // Away from the kinks of fdim (x = 0.3 y) and remainder (3x / 1.7
    // halfway between integers).
    double Q = 3 * X / 1.7;
    if (std::fabs(X - 0.3 * Y) < 0.05 ||
        std::fabs(Q - std::floor(Q) - 0.5) < 0.05)
      continue;
    ++Checked;
    double FdX = centralDifference([&](double V) { return special(V, Y); }, X);
    double FdY = centralDifference([&](double V) { return special(X, V); }, Y);
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
