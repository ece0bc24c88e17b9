// The simplifier on composed derivatives: a Hessian-vector product
// (meshad::hvp, forward over reverse) of a function with math calls and an
// array, with and without the simplifier, against central finite
// differences of the hand-written gradient.
//
// RUN: %clangxx -std=c++17 -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%I -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
// RUN: %clangxx -std=c++17 -fplugin=%meshad_plugin -fplugin-arg-meshad-no-simplify -I%I -I%test_inputs %s -o %t.nosimp
// RUN: %t.nosimp | FileCheck %s --check-prefix=NUM
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

double energy(const double *p, int n, double w) {
  double e = 0;
  for (int i = 0; i < n; ++i)
    e += w * p[i] * p[i] * sin(p[i]) + exp(w * p[i]);
  return e;
}

// d energy / d p[i] and d energy / d w, by hand.
static void gradient(const double *p, int n, double w, double *gp,
                     double *gw) {
  *gw = 0;
  for (int i = 0; i < n; ++i) {
    double s = sin(p[i]), c = cos(p[i]), e = exp(w * p[i]);
    gp[i] = w * (2 * p[i] * s + p[i] * p[i] * c) + w * e;
    *gw += p[i] * p[i] * s + p[i] * e;
  }
}

// exp(w * p[i]) is computed once for the adjoint and its tangent:
// CHECK-LABEL: void energy_hvp(
// CHECK: double _t4 = exp(w * p[i]);
// CHECK-NEXT: double _d2_r3 = _r0 * (_t4 * (_d2_w * p[i] + w * _d2_p[i]));
// CHECK-NEXT: double _r3 = _r0 * _t4;

int main() {
  meshad::test::RandomInputs Rng;
  auto h = meshad::hvp(energy, "p, w");
  const int N = 4;
  for (int I = 0; I < 5; ++I) {
    double P[N], VP[N], HP[N] = {0, 0, 0, 0}, HW = 0;
    Rng.fill(P, N, -1, 1);
    Rng.fill(VP, N, -1, 1);
    double W = Rng.uniform(0.5, 1.5), VW = Rng.uniform(-1, 1);
    h.execute(P, N, W, VP, VW, HP, &HW);
    // H v = d/dt gradient(p + t vp, w + t vw) at t = 0.
    auto Along = [&](int K) {
      return [&, K](double T) {
        double Q[N], G[N], GW;
        for (int J = 0; J < N; ++J)
          Q[J] = P[J] + T * VP[J];
        gradient(Q, N, W + T * VW, G, &GW);
        return K < N ? G[K] : GW;
      };
    };
    for (int K = 0; K < N; ++K)
      MESHAD_CHECK_CLOSE("hvp p", HP[K],
                         meshad::test::centralDifference(Along(K), 0.0));
    MESHAD_CHECK_CLOSE("hvp w", HW,
                       meshad::test::centralDifference(Along(N), 0.0));
  }
  return meshad::test::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 25 passed, 0 failed
