// The annotation route: MESHAD_FORWARD on a definition generates its
// derivative under the documented name, with no call site.
//
// RUN: %clangxx -std=c++17 -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%I -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

MESHAD_FORWARD("y") double bend(double x, double y) { return x * cos(y) * y; }
MESHAD_FORWARD("q[1]") double dot3(const double *q) {
  return q[0] * q[1] + q[1] * q[2];
}

// CHECK-LABEL: double bend_darg1(double x, double y) {
// CHECK-LABEL: double dot3_darg0_1(const double *q) {

int main() {
  meshad::test::RandomInputs Rng;
  for (int I = 0; I < 10; ++I) {
    double X = Rng.uniform(-2, 2), Y = Rng.uniform(-2, 2);
    MESHAD_CHECK_CLOSE("bend_darg1", bend_darg1(X, Y),
        meshad::test::centralDifference([&](double V) { return bend(X, V); }, Y));
    double Q[3];
    Rng.fill(Q, 3, -1, 1);
    MESHAD_CHECK_CLOSE("dot3_darg0_1", dot3_darg0_1(Q),
                       meshad::test::centralDifferenceAt([&] { return dot3(Q); }, Q, 1));
  }
  return meshad::test::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 20 passed, 0 failed
