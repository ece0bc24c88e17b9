// Fuzzer finding (tools/fuzz/FINDINGS.md, "writes through a pointer
// local"): `double *ptr = v + 1; ptr[0] = v[1] * v[1];` in reverse mode
// neither saves the overwritten v[1] (the reverse sweep reads the new
// value) nor orders the adjoint reset before the adds (`_d_ptr[0] = 0.`
// comes after `_d_v[1] += ...`, wiping them), where `v[1] = v[1] * v[1]`
// is right. The same inside a loop.
// (bug: stores through a pointer local aliasing an array)
//
// RUN: %clangxx -std=c++17 -fplugin=%meshad_plugin -I%I -I%test_inputs %s -o %t
// RUN: %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

void square1(double *v) {
  double *ptr = v + 1;
  ptr[0] = v[1] * v[1];
}

void squareInLoop(double *v) {
  double *ptr = v + 1;
  for (int j = 0; j < 2; ++j)
    ptr[0] = sin(v[j]) * v[j];
}

int main() {
  using meshad::test::centralDifferenceAt;
  meshad::test::RandomInputs Rng;
  auto g1 = meshad::gradient(square1, "v");
  auto g2 = meshad::gradient(squareInLoop, "v");
  for (int I = 0; I < 5; ++I) {
    double V0[2], W[2];
    Rng.fill(V0, 2, 0.5, 1.5);
    Rng.fill(W, 2, 0.5, 1.5);
    // L = W . v_final; the adjoint of v is seeded with W.
    auto Loss1 = [&] {
      double T[2] = {V0[0], V0[1]};
      square1(T);
      return W[0] * T[0] + W[1] * T[1];
    };
    auto Loss2 = [&] {
      double T[2] = {V0[0], V0[1]};
      squareInLoop(T);
      return W[0] * T[0] + W[1] * T[1];
    };
    double V[2] = {V0[0], V0[1]}, DV[2] = {W[0], W[1]};
    g1.execute(V, DV);
    for (int K = 0; K < 2; ++K)
      MESHAD_CHECK_CLOSE("d square1/dv[k]", DV[K],
                         centralDifferenceAt(Loss1, V0, K));
    double V2[2] = {V0[0], V0[1]}, DV2[2] = {W[0], W[1]};
    g2.execute(V2, DV2);
    for (int K = 0; K < 2; ++K)
      MESHAD_CHECK_CLOSE("d squareInLoop/dv[k]", DV2[K],
                         centralDifferenceAt(Loss2, V0, K));
  }
  return meshad::test::summary();
}
