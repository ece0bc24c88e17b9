// Fuzzer finding (tools/fuzz/FINDINGS.md, N6): `v[0] += first2(v);`, a store
// into an array element whose value is a call that reads the same array:
// the reverse sweep calls the pullback with the array as the store left it
// (v[0] already updated), so the callee's derivative is taken at the new
// value instead of the old one (`v[1] = s * v[1] + first2(v);` is right).
// Found once in 5,000 programs with the constructs of the other bugs off.
// (fixed: the reverse sweep needs what a callee reads, so the element is
// restored before the pullback)
//
// RUN: %clangxx -std=c++17 -fplugin=%meshad_plugin -I%I -I%test_inputs %s -o %t
// RUN: %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

double first2(const double *a) { return a[0] * a[0] + sin(a[1]); }

void accumulate(double *v) { v[0] += first2(v); }

void assign(double *v, double s) { v[1] = s * v[1] + first2(v); }

int main() {
  using meshad::test::centralDifferenceAt;
  meshad::test::RandomInputs Rng;
  auto g1 = meshad::gradient(accumulate, "v");
  auto g2 = meshad::gradient(assign, "v, s");
  for (int I = 0; I < 5; ++I) {
    double V0[2], W[2], S = Rng.uniform(0.5, 1.5);
    Rng.fill(V0, 2, -1.5, 1.5);
    Rng.fill(W, 2, 0.5, 1.5);
    // L = W . v_final; the adjoint of v is seeded with W.
    auto Loss1 = [&] {
      double T[2] = {V0[0], V0[1]};
      accumulate(T);
      return W[0] * T[0] + W[1] * T[1];
    };
    auto Loss2 = [&] {
      double T[2] = {V0[0], V0[1]};
      assign(T, S);
      return W[0] * T[0] + W[1] * T[1];
    };
    double V[2] = {V0[0], V0[1]}, DV[2] = {W[0], W[1]};
    g1.execute(V, DV);
    for (int K = 0; K < 2; ++K)
      MESHAD_CHECK_CLOSE("d accumulate/dv[k]", DV[K],
                         centralDifferenceAt(Loss1, V0, K));
    double V2[2] = {V0[0], V0[1]}, DV2[2] = {W[0], W[1]}, DS = 0;
    g2.execute(V2, S, DV2, &DS);
    for (int K = 0; K < 2; ++K)
      MESHAD_CHECK_CLOSE("d assign/dv[k]", DV2[K],
                         centralDifferenceAt(Loss2, V0, K));
    MESHAD_CHECK_CLOSE("d assign/ds", DS, W[1] * V0[1]);
  }
  return meshad::test::summary();
}
