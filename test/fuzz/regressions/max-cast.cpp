// Fuzzer finding (issue 9, tools/fuzz/FINDINGS.md): std::max(y, (double)2)
// is copied as std::max(y, 2) (the cast of a literal is dropped: no matching
// function), in both modes; std::min the same.
// (bug: casts of literals dropped)
//
// RUN: %clangxx -std=c++17 -fplugin=%meshad_plugin -I%I -I%test_inputs %s -o %t
// RUN: %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
#include "NumericCheck.h"
#include <algorithm>
#include <cmath>
#include <meshad/Differentiator.h>

double clampish(double y) {
  return std::max(y * y, (double)2) + std::min(sin(y), (double)1) * y;
}

int main() {
  using meshad::test::centralDifference;
  meshad::test::RandomInputs Rng;
  auto g = meshad::gradient(clampish, "y");
  auto d = meshad::differentiate(clampish, "y");
  for (int I = 0; I < 5; ++I) {
    double Y = Rng.uniform(-2.5, 2.5);
    if (std::fabs(std::fabs(Y) - std::sqrt(2.0)) < 0.05)
      Y += 0.1; // away from the kink of max
    double DY = 0;
    g.execute(Y, &DY);
    double Ref = centralDifference([&](double V) { return clampish(V); }, Y);
    MESHAD_CHECK_CLOSE("d clampish/dy", DY, Ref);
    MESHAD_CHECK_CLOSE("forward d clampish/dy", d.execute(Y), Ref);
  }
  return meshad::test::summary();
}
