// Fuzzer finding (tools/fuzz/FINDINGS.md, "false rejections"): a call of a
// pure function (no pointer or reference parameters, no globals) in a
// branch of ?: or on the right of && / || is rejected as "a call with side
// effects" in both modes. The error is clear, but the call has no side
// effects and the function is well differentiable.
// (false rejection: "a call with side effects in a branch of '?:'")
//
// RUN: %clangxx -std=c++17 -fplugin=%meshad_plugin -I%I -I%test_inputs %s -o %t
// RUN: %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

double sq(double t) { return t * t; }

double f(double a, double b) {
  double r = a > 0.5 ? sq(a) : b;
  if (a > 0 && sq(b) > 0.1)
    r += b * a;
  return r;
}

int main() {
  using meshad::test::centralDifference;
  meshad::test::RandomInputs Rng;
  auto g = meshad::gradient(f, "a, b");
  auto d = meshad::differentiate(f, "a");
  for (int I = 0; I < 10; ++I) {
    // Away from the switching points a = 0, a = 0.5, |b| = sqrt(0.1).
    double A = Rng.uniform(-1, 1), B = Rng.uniform(-1, 1);
    if (std::fabs(A) < 0.05 || std::fabs(A - 0.5) < 0.05)
      A += 0.1;
    if (std::fabs(std::fabs(B) - std::sqrt(0.1)) < 0.05)
      B += 0.1;
    double DA = 0, DB = 0;
    g.execute(A, B, &DA, &DB);
    double RefA = centralDifference([&](double V) { return f(V, B); }, A);
    MESHAD_CHECK_CLOSE("d f/da", DA, RefA);
    MESHAD_CHECK_CLOSE("d f/db", DB,
        centralDifference([&](double V) { return f(A, V); }, B));
    MESHAD_CHECK_CLOSE("forward d f/da", d.execute(A, B), RefA);
  }
  return meshad::test::summary();
}
