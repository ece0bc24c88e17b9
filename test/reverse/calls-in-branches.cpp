// User calls in a branch of ?: and on the right of && / ||, in both modes:
// lowered to an if-statement that sets a temporary, so that a call runs
// (and is differentiated) only where the C++ runs it. Before, any such call
// was rejected as "a call with side effects", the most common rejection of
// random programs (issue 9's fuzzer, issue 13).
//
// RUN: %clangxx -std=c++17 -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%I -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "NumericCheck.h"
#include <algorithm>
#include <cmath>
#include <meshad/Differentiator.h>

double sq(double t) { return t * t; }
// Not defined for t <= 0: must not run in the branch not taken.
double logOf(double t) { return log(t) * t; }

double branches(double a, double b) {
  double r = a > 0.2 ? sq(a) + logOf(a) : b * sq(b);
  if (a > 0 && sq(b) > 0.1)
    r += b * a;
  if (b < -0.3 || logOf(a + 2) > 0.5)
    r += sin(a * b);
  for (int i = 0; i < 3; ++i)
    r += (i % 2 == 0 ? sq(r * 0.1) : (a > b ? sq(a) : 0.5 * sq(b)));
  return r;
}
// A const operand makes the conditional's type const: the temporary is not
// (found by the 5,000-program fuzzer run, seed 5000, program 3956).
double constBranch(double a, double b) {
  const double f = a * b;
  double r = a > b ? f : std::max(sq(a), 0.1 * b);
  return r * a;
}

// CHECK-LABEL: double branches_darg0(double a, double b) {
// CHECK-LABEL: void branches_grad(double a, double b, double *_d_a, double *_d_b) {
// CHECK: logOf_pullback(

int main() {
  using meshad::test::centralDifference;
  meshad::test::RandomInputs Rng;
  auto fa = meshad::differentiate(branches, "a");
  auto fb = meshad::differentiate(branches, "b");
  auto g = meshad::gradient(branches, "a, b");
  auto fc = meshad::differentiate(constBranch, "a");
  auto gc = meshad::gradient(constBranch, "a, b");
  int Checked = 0;
  while (Checked < 12) {
    double A = Rng.uniform(-1, 1), B = Rng.uniform(-1, 1);
    // Away from the switching points of the conditions.
    auto Near = [](double V, double P) { return std::fabs(V - P) < 0.05; };
    if (Near(A, 0.2) || Near(A, 0) || Near(std::fabs(B), std::sqrt(0.1)) ||
        Near(B, -0.3) || Near(A, B) || Near(logOf(A + 2), 0.5))
      continue;
    ++Checked;
    double FdA = centralDifference([&](double V) { return branches(V, B); }, A);
    double FdB = centralDifference([&](double V) { return branches(A, V); }, B);
    MESHAD_CHECK_CLOSE("fwd d/da", fa.execute(A, B), FdA);
    MESHAD_CHECK_CLOSE("fwd d/db", fb.execute(A, B), FdB);
    double DA = 0, DB = 0;
    g.execute(A, B, &DA, &DB);
    MESHAD_CHECK_CLOSE("rev d/da", DA, FdA);
    MESHAD_CHECK_CLOSE("rev d/db", DB, FdB);
    if (Near(A, B) || Near(A * A, 0.1 * B))
      continue;
    FdA = centralDifference([&](double V) { return constBranch(V, B); }, A);
    FdB = centralDifference([&](double V) { return constBranch(A, V); }, B);
    MESHAD_CHECK_CLOSE("fwd constBranch/da", fc.execute(A, B), FdA);
    DA = DB = 0;
    gc.execute(A, B, &DA, &DB);
    MESHAD_CHECK_CLOSE("rev constBranch/da", DA, FdA);
    MESHAD_CHECK_CLOSE("rev constBranch/db", DB, FdB);
  }
  return meshad::test::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
