// Fuzzer finding (issue 9, tools/fuzz/FINDINGS.md): a callee that reads an
// array element and then overwrites it: its pullback re-runs the callee's
// forward sweep, so the element is overwritten again and the reverse sweep
// reads the new value (reduced from a random program).
// (bug: callee overwriting an array it (or the caller) read)
//
// RUN: %clangxx -std=c++17 -fplugin=%meshad_plugin -I%I -I%test_inputs %s -o %t
// RUN: %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
#include "NumericCheck.h"
#include <algorithm>
#include <cmath>
#include <meshad/Differentiator.h>

void relax(double s, double *arr) {
  double e = arr[0];
  e = 0.5 * e + erf(sin(e * s));
  arr[0] = (arr[0] + e) * 0.64;
}

// v[0] is read (linearly) before the call: its pullback re-runs relax on
// the v[0] that the primal call already overwrote.
void f(double x, double s, double *v) {
  v[0] = 0.5 * (x + v[0]);
  relax(s, v);
}

int main() {
  using meshad::test::centralDifference;
  meshad::test::RandomInputs Rng;
  auto g = meshad::gradient(f, "x, s, v");
  for (int I = 0; I < 5; ++I) {
    double X = Rng.uniform(-1.5, 1.5), S = Rng.uniform(-1.5, 1.5);
    double V0 = Rng.uniform(-1.5, 1.5);
    auto F = [&](double XX, double SS, double VV) {
      double T[1] = {VV};
      f(XX, SS, T);
      return T[0];
    };
    double V[1] = {V0}, DV[1] = {1}, DX = 0, DS = 0;
    g.execute(X, S, V, &DX, &DS, DV);
    MESHAD_CHECK_CLOSE("d f/dx", DX,
        centralDifference([&](double T) { return F(T, S, V0); }, X));
    MESHAD_CHECK_CLOSE("d f/ds", DS,
        centralDifference([&](double T) { return F(X, T, V0); }, S));
    MESHAD_CHECK_CLOSE("d f/dv[0]", DV[0],
        centralDifference([&](double T) { return F(X, S, T); }, V0));
  }
  return meshad::test::summary();
}
