// Fuzzer finding (tools/fuzz/FINDINGS.md, "a call that modifies an array,
// result unused", forward mode): `double z = h(v);` with z never read
// keeps the primal call but drops its pushforward, so the tangent of what
// h writes into v is lost (forward-mode twin of the reverse-mode bug of
// issue 9). The same with `z = 0.02 * h(v);` into a dead local.
// (bug: forward mode drops the pushforward of a call whose result is dead)
//
// RUN: %clangxx -std=c++17 -fplugin=%meshad_plugin -I%I -I%test_inputs %s -o %t
// RUN: %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

double square0(double *buf) {
  buf[0] = buf[0] * buf[0];
  return 1.0;
}

void initDead(double a, double *v) {
  v[0] = a;
  double z = square0(v);
}

void assignDead(double a, double *v) {
  v[0] = sin(a);
  double z = a;
  z = 0.02 * square0(v);
}

int main() {
  using meshad::test::centralDifference;
  meshad::test::RandomInputs Rng;
  auto d1 = meshad::differentiate(initDead, "a");
  auto d2 = meshad::differentiate(assignDead, "a");
  for (int I = 0; I < 5; ++I) {
    double A = Rng.uniform(-1.5, 1.5);
    double V[1] = {0}, DV[1] = {0};
    d1.execute(A, V, DV);
    MESHAD_CHECK_CLOSE("d initDead/da", DV[0], centralDifference([&](double X) {
      double T[1];
      initDead(X, T);
      return T[0];
    }, A));
    DV[0] = 0;
    d2.execute(A, V, DV);
    MESHAD_CHECK_CLOSE("d assignDead/da", DV[0], centralDifference([&](double X) {
      double T[1];
      assignDead(X, T);
      return T[0];
    }, A));
  }
  return meshad::test::summary();
}
