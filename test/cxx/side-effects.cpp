// Side effects inside expressions (issue 13): assignments, ++ and -- nested
// in expressions, the comma operator, and loop conditions with side effects
// or calls. The lowering makes each side effect a statement before the one
// that contains it (a loop condition is tested in the body), so both modes
// see ordinary statements. Checked in forward and reverse mode against
// central differences.
//
// RUN: %clangxx -std=c++17 -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%I -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

double sq(double t) { return t * t; }

// a[i++], assignments in a condition and a value, comma, chained `=`.
double inExpressions(double x, const double *a) {
  double s = 0;
  int i = 0;
  s += a[i++] * x;
  s += a[i++] * sq(x);
  double y = x;
  if ((y *= 0.5) > 0.1)
    s += y;
  double t;
  s += (t = sin(x), t * t);
  double p = x, q;
  p = q = p * 2;
  return s + p * q + a[--i] * x;
}
// CHECK-LABEL: double inExpressions_darg0(double x, const double *a) {
// CHECK:   int _t0 = i;
// CHECK-NEXT:   ++i;
// CHECK:   _d_y *= 0.5;
// CHECK-NEXT:   y *= 0.5;
// CHECK-NEXT:   if (y > 0.1) {
// CHECK-LABEL: void inExpressions_grad_0(double x, const double *a, double *_d_x) {

// while (n--), do-while with --n, conditions that assign or call, and a
// for increment with a comma.
double loops(double x) {
  double r = 1;
  int n = 3;
  while (n--)
    r += x * 0.5;
  n = 4;
  do {
    r *= 1 + 0.1 * x;
  } while (--n > 0);
  double z = x;
  while ((z *= 0.5) > 0.01)
    r += z;
  for (int k = 0; sq(x + k) < 10; ++k)
    r += 0.1 * x;
  for (int k = 0; k < 3; ++k, r += 0.1 * k * x)
    r *= 0.9;
  for (int lo = 0, hi = 3; lo < hi; ++lo, --hi)
    r += lo * hi * x;
  return r;
}
// CHECK-LABEL: double loops_darg0(double x) {
// CHECK:   while (true) {
// CHECK-NEXT:     int _t{{[0-9]+}} = n;
// CHECK-NEXT:     --n;
// CHECK-NEXT:     if (!_t{{[0-9]+}}) {
// CHECK-NEXT:       break;
// CHECK-NEXT:     }
// CHECK-LABEL: void loops_grad(double x, double *_d_x) {

// A comma operator whose operands update a variable that the operands after
// them read (sequenced: not an error), in a return and in an assignment.
double commaReturn(double x) {
  double t = 1, u;
  u = (t *= x, t + x);
  return t = x * u, t *= u, t + x;
}
// CHECK-LABEL: void commaReturn_grad(double x, double *_d_x) {

// An update on the right of && or in a branch of ?: whose condition reads
// the variable (sequenced: evaluated only when the condition allows).
double condUpdates(double x) {
  double t = x, u = x;
  if (t > 0.5 && (t *= 0.7) > 0.45)
    t += x;
  double r = u > 0.9 ? (u *= 0.7) : 1.0;
  return t * x + r * u;
}
// CHECK-LABEL: void condUpdates_grad(double x, double *_d_x) {

int main() {
  using meshad::test::centralDifference;
  meshad::test::RandomInputs Rng;
  auto fe = meshad::differentiate(inExpressions, "x");
  auto ge = meshad::gradient(inExpressions, "x");
  auto fl = meshad::differentiate(loops, "x");
  auto gl = meshad::gradient(loops, "x");
  auto fc = meshad::differentiate(commaReturn, "x");
  auto gc = meshad::gradient(commaReturn, "x");
  auto fu = meshad::differentiate(condUpdates, "x");
  auto gu = meshad::gradient(condUpdates, "x");
  double A[2];
  for (int I = 0; I < 6; ++I) {
    double X = Rng.uniform(0.25, 1.5);
    Rng.fill(A, 2, -1, 1);
    // Away from where a condition switches ((y *= 0.5) > 0.1, the trip
    // counts of the loops on z and on sq(x + k), condUpdates' conditions).
    bool Near = false;
    for (double P : {0.2, 0.32, 0.64, 1.28, std::sqrt(10.0) - 2, 0.5,
                     0.45 / 0.7, 0.9})
      Near |= std::fabs(X - P) < 0.04;
    if (Near)
      continue;
    double Fd = centralDifference(
        [&](double V) { return inExpressions(V, A); }, X);
    MESHAD_CHECK_CLOSE("fwd inExpressions", fe.execute(X, A), Fd);
    double D = 0;
    ge.execute(X, A, &D);
    MESHAD_CHECK_CLOSE("rev inExpressions", D, Fd);
    Fd = centralDifference(loops, X);
    MESHAD_CHECK_CLOSE("fwd loops", fl.execute(X), Fd);
    D = 0;
    gl.execute(X, &D);
    MESHAD_CHECK_CLOSE("rev loops", D, Fd);
    Fd = centralDifference(commaReturn, X);
    MESHAD_CHECK_CLOSE("fwd commaReturn", fc.execute(X), Fd);
    D = 0;
    gc.execute(X, &D);
    MESHAD_CHECK_CLOSE("rev commaReturn", D, Fd);
    Fd = centralDifference(condUpdates, X);
    MESHAD_CHECK_CLOSE("fwd condUpdates", fu.execute(X), Fd);
    D = 0;
    gu.execute(X, &D);
    MESHAD_CHECK_CLOSE("rev condUpdates", D, Fd);
  }
  return meshad::test::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
