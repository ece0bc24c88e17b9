// The simplifier on the quickstart's spring energy (forward mode, d/d p[1]):
// the tangents of dx and dz are structurally zero and the one of dy is the
// seed 1, so they are propagated and dropped (no `_d_dx = 0.`), the products
// `_d_dx * dx + dx * _d_dx` fold away (and `_d_dy * dy + dy * _d_dy` to
// `2. * dy`), and sqrt is computed once. -fplugin-arg-meshad-no-simplify
// gives the code as the transformer builds it; both are checked against
// central finite differences.
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%I -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -fplugin-arg-meshad-no-simplify -I%I -I%test_inputs %s -o %t.nosimp 2> %t.nosimp.dump
// RUN: FileCheck %s --check-prefix=NOSIMP < %t.nosimp.dump
// RUN: %t.nosimp | FileCheck %s --check-prefix=NUM
#include "NumericCheck.h"
#include <meshad/Differentiator.h>
#include <cmath>

__host__ __device__ double springEnergy(const double *p, const double *q,
                                        double k, double rest) {
  double dx = p[0] - q[0];
  double dy = p[1] - q[1];
  double dz = p[2] - q[2];
  double len = sqrt(dx * dx + dy * dy + dz * dz);
  double stretch = len - rest;
  return 0.5 * k * stretch * stretch;
}

// CHECK-LABEL: double springEnergy_darg0_1(const double *p, const double *q, double k, double rest) {
// CHECK-NOT: _d_dx
// CHECK-NOT: _d_dz
// CHECK-NOT: _d_dy
// CHECK:      double dx = p[0] - q[0];
// CHECK-NEXT: double dy = p[1] - q[1];
// CHECK-NEXT: double dz = p[2] - q[2];
// CHECK-NEXT: double len = sqrt(dx * dx + dy * dy + dz * dz);
// CHECK-NEXT: double _d_stretch = 0.5 * (2. * dy) / len;
// CHECK-NEXT: double stretch = len - rest;
// CHECK-NEXT: double _t0 = 0.5 * k;
// CHECK-NEXT: return _t0 * _d_stretch * stretch + _t0 * stretch * _d_stretch;
// CHECK-NEXT: }

// NOSIMP-LABEL: double springEnergy_darg0_1(const double *p, const double *q, double k, double rest) {
// NOSIMP: double _d_dx = 0.;
// NOSIMP: double _d_dy = 1.;
// The tangent of the square root reads its result, len (d sqrt = 0.5 / r):
// NOSIMP: double len = sqrt(dx * dx + dy * dy + dz * dz);
// NOSIMP-NEXT: double _d_len = 0.5 * (_d_dx * dx + dx * _d_dx + {{.*}}) / len;

int main() {
  meshad::test::RandomInputs Rng;
  auto dEdP1 = meshad::differentiate(springEnergy, "p[1]");
  for (int I = 0; I < 20; ++I) {
    double P[3], Q[3];
    Rng.fill(P, 3, -2, 2);
    Rng.fill(Q, 3, -2, 2);
    double K = Rng.uniform(0.5, 3), Rest = Rng.uniform(0.1, 1);
    MESHAD_CHECK_CLOSE(
        "d springEnergy/dp[1]", dEdP1.execute(P, Q, K, Rest),
        meshad::test::centralDifferenceAt(
            [&] { return springEnergy(P, Q, K, Rest); }, P, 1));
  }
  return meshad::test::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 20 passed, 0 failed
