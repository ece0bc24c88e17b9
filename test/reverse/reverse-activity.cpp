// Activity analysis: unselected parameters, values that do not depend on the
// selected inputs, and values that never reach the result get no adjoint
// code in a typical energy.
//
// RUN: %clangxx -std=c++17 -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%I -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

/// Stretching energy of a spring between p and q with stiffness k; `debug`
/// depends on p but is never used, `scale` does not depend on p.
double energy(const double *p, const double *q, double k, double rest) {
  double dx = p[0] - q[0], dy = p[1] - q[1];
  double debug = dx * dy * 3.0;
  double scale = k * 0.5;
  double len = sqrt(dx * dx + dy * dy);
  return scale * (len - rest) * (len - rest);
}

// CHECK-LABEL: void energy_grad_0(const double *p, const double *q, double k, double rest, double *_d_p) {
// CHECK-NOT: _d_q
// CHECK-NOT: _d_k
// CHECK-NOT: _d_rest
// CHECK-NOT: _d_debug
// CHECK-NOT: _d_scale
// CHECK: _d_p[0] +=
// CHECK: }

int main() {
  meshad::test::RandomInputs Rng;
  auto g = meshad::gradient(energy, "p");
  for (int I = 0; I < 10; ++I) {
    double P[2], Q[2], DP[2] = {0, 0};
    Rng.fill(P, 2, -1, 1);
    Rng.fill(Q, 2, 2, 3);
    double K = Rng.uniform(1, 2), Rest = Rng.uniform(0.5, 1);
    g.execute(P, Q, K, Rest, DP);
    for (int J = 0; J < 2; ++J)
      MESHAD_CHECK_CLOSE("d energy/dp", DP[J],
          meshad::test::centralDifferenceAt([&] { return energy(P, Q, K, Rest); }, P, J));
  }
  return meshad::test::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 20 passed, 0 failed
