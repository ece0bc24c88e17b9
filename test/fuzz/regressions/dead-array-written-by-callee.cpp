// Fuzzer finding (tools/fuzz/FINDINGS.md, "false rejections"): a callee
// that writes a derivative-carrying value into a local array that the
// caller never reads afterwards is rejected ("'h' writes
// derivative-carrying values through parameter 'o', but the caller passes
// memory without a tangent / an adjoint"): the array is dead, so it needs
// no tangent and no adjoint, and the function is well differentiable.
// Fixed (issue 13): a pointer parameter that the caller passes without
// derivative memory is not a result of the callee's derivative.
//
// RUN: %clangxx -std=c++17 -fplugin=%meshad_plugin -I%I -I%test_inputs %s -o %t
// RUN: %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

void h(double s, double *o) { o[0] = s; }

double f(double x) {
  double w[1] = {1.0};
  h(x, w);
  return x * x;
}

int main() {
  meshad::test::RandomInputs Rng;
  auto g = meshad::gradient(f, "x");
  auto d = meshad::differentiate(f, "x");
  for (int I = 0; I < 3; ++I) {
    double X = Rng.uniform(-1, 1), DX = 0;
    g.execute(X, &DX);
    MESHAD_CHECK_CLOSE("d f/dx", DX, 2 * X);
    MESHAD_CHECK_CLOSE("forward d f/dx", d.execute(X), 2 * X);
  }
  return meshad::test::summary();
}
