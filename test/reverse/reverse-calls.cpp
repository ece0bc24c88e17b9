// Reverse mode through calls of user functions: a callee called twice with
// different active arguments (one pullback shared by both calls, or one per
// activity pattern), a callee called with a constant argument, nested calls
// (a callee calling a callee), a callee defined after its use, and a void
// callee writing through a pointer.
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
  double e = k * sq(x - y);      // both arguments of x - y are active
  e += sq(k) + sq(2.0);          // another active argument; a constant one
  e += spring(x, y, 1.0) + spring(y, 2.0, 0.5); // nested: spring calls sq
  return e;
}

// Defined after its first use.
double spring(double a, double b, double rest) {
  double d = sqrt(sq(a - b) + 1e-3) - rest;
  return 0.5 * d * d;
}

// A void callee returning through a pointer, called in a loop.
void rotate(double angle, double *v) {
  double c = cos(angle), s = sin(angle);
  double x = v[0], y = v[1];
  v[0] = c * x - s * y;
  v[1] = s * x + c * y;
}
double spin(double a, double b) {
  double v[2] = {1.0, b};
  for (int i = 0; i < 3; ++i)
    rotate(a * (i + 1), v);
  return v[0] * v[1] + v[1];
}

// CHECK-LABEL: void energy_grad(double x, double y, double k, double *_d_x, double *_d_y, double *_d_k) {
// CHECK: sq_pullback
// CHECK: spring_pullback
// CHECK-LABEL: void spin_grad(double a, double b, double *_d_a, double *_d_b) {
// CHECK: rotate_pullback

int main() {
  using meshad::test::centralDifference;
  meshad::test::RandomInputs Rng;
  auto ge = meshad::gradient(energy, "x, y, k");
  auto gs = meshad::gradient(spin, "a, b");
  for (int I = 0; I < 20; ++I) {
    double X = Rng.uniform(-2, 2), Y = Rng.uniform(-2, 2),
           K = Rng.uniform(0.5, 2);
    double DX = 0, DY = 0, DK = 0;
    ge.execute(X, Y, K, &DX, &DY, &DK);
    MESHAD_CHECK_CLOSE("d energy/dx", DX,
        centralDifference([&](double V) { return energy(V, Y, K); }, X));
    MESHAD_CHECK_CLOSE("d energy/dy", DY,
        centralDifference([&](double V) { return energy(X, V, K); }, Y));
    MESHAD_CHECK_CLOSE("d energy/dk", DK,
        centralDifference([&](double V) { return energy(X, Y, V); }, K));

    double A = Rng.uniform(-1, 1), B = Rng.uniform(0.5, 2);
    double DA = 0, DB = 0;
    gs.execute(A, B, &DA, &DB);
    MESHAD_CHECK_CLOSE("d spin/da", DA,
        centralDifference([&](double V) { return spin(V, B); }, A));
    MESHAD_CHECK_CLOSE("d spin/db", DB,
        centralDifference([&](double V) { return spin(A, V); }, B));
  }
  return meshad::test::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 100 passed, 0 failed
