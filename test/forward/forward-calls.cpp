// Forward mode through calls of user functions: each callee gets one
// pushforward per set of active parameters, generated once and shared;
// callees called with constant arguments are called as they are.
//
// RUN: %clangxx -std=c++17 -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%I -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

double sq(double v) { return v * v; }
double spring(double a, double b, double rest);

double energy(double x, double y, double k) {
  double e = k * sq(x - y);            // sq with an active argument
  e += sq(k);                          // sq with a constant argument
  e += spring(x, y, 1.0) + spring(x, 2.0, 0.5);
  return e;
}

// Defined after its first use: the pushforward's prototype goes after the
// declaration above.
double spring(double a, double b, double rest) {
  double d = sqrt(sq(a - b) + 1e-3) - rest;
  return 0.5 * d * d;
}

// CHECK-LABEL: double energy_darg0(double x, double y, double k) {
// The seed _d_x = 1 is propagated by the simplifier into the call:
// CHECK: sq_pushforward(x - y, 1.)
// CHECK: sq(k)
// CHECK-LABEL: meshad::ValueAndPushforward<double, double> sq_pushforward(double v, double _d_v) {
// CHECK-LABEL: spring_pushforward{{.*}}(double a, double b, double rest,

int main() {
  meshad::test::RandomInputs Rng;
  auto dx = meshad::differentiate(energy, "x");
  auto dy = meshad::differentiate(energy, "y");
  auto dk = meshad::differentiate(energy, "k");
  for (int I = 0; I < 20; ++I) {
    double X = Rng.uniform(-2, 2), Y = Rng.uniform(-2, 2), K = Rng.uniform(0.5, 3);
    MESHAD_CHECK_CLOSE("d energy/dx", dx.execute(X, Y, K),
        meshad::test::centralDifference([&](double V) { return energy(V, Y, K); }, X));
    MESHAD_CHECK_CLOSE("d energy/dy", dy.execute(X, Y, K),
        meshad::test::centralDifference([&](double V) { return energy(X, V, K); }, Y));
    MESHAD_CHECK_CLOSE("d energy/dk", dk.execute(X, Y, K),
        meshad::test::centralDifference([&](double V) { return energy(X, Y, V); }, K));
  }
  return meshad::test::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 60 passed, 0 failed
