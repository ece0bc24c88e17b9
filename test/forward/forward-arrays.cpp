// Forward mode w.r.t. one element of an array parameter ("p[2]"), w.r.t. a
// whole array with a direction (a Jacobian-vector product), local arrays,
// and a void function whose output array receives the tangents.
//
// RUN: %clangxx -std=c++17 -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%I -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

double triangleArea2(const double *p, int n) {
  double local[3];
  for (int i = 0; i < 3; ++i)
    local[i] = p[i] * p[i + 3];
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += sin(p[i]) * local[i % 3];
  return s;
}
// CHECK-LABEL: double triangleArea2_darg0_2(const double *p, int n) {
// CHECK: i == 2 ? 1. : 0.
// CHECK-LABEL: double triangleArea2_darg0(const double *p, int n, const double *_d_p) {
// CHECK: _d_p[i]

void normalize(const double *in, double *out) {
  double len = sqrt(in[0] * in[0] + in[1] * in[1] + in[2] * in[2]);
  for (int i = 0; i < 3; ++i)
    out[i] = in[i] / len;
}
// CHECK-LABEL: void normalize_darg0(const double *in, double *out, const double *_d_in, double *_d_out) {
// CHECK: _d_out[i] =

int main() {
  meshad::test::RandomInputs Rng;
  auto de = meshad::differentiate(triangleArea2, "p[2]");
  auto dv = meshad::differentiate(triangleArea2, "p");
  auto dn = meshad::differentiate(normalize, "in");
  for (int I = 0; I < 10; ++I) {
    double P[6], Dir[6];
    Rng.fill(P, 6, -1, 1);
    Rng.fill(Dir, 6, -1, 1);
    auto F = [&] { return triangleArea2(P, 6); };
    MESHAD_CHECK_CLOSE("d area/dp[2]", de.execute(P, 6),
                       meshad::test::centralDifferenceAt(F, P, 2));
    double Jvp = 0;
    for (int K = 0; K < 6; ++K)
      Jvp += Dir[K] * meshad::test::centralDifferenceAt(F, P, K);
    MESHAD_CHECK_CLOSE("area jvp", dv.execute(P, 6, Dir), Jvp);

    double In[3], Out[3], DIn[3], DOut[3] = {0, 0, 0};
    Rng.fill(In, 3, 0.5, 1.5);
    Rng.fill(DIn, 3, -1, 1);
    dn.execute(In, Out, DIn, DOut);
    for (int J = 0; J < 3; ++J) {
      double Ref = 0;
      for (int K = 0; K < 3; ++K) {
        double O[3];
        Ref += DIn[K] * meshad::test::centralDifferenceAt(
                            [&] { normalize(In, O); return O[J]; }, In, K);
      }
      MESHAD_CHECK_CLOSE("normalize jvp", DOut[J], Ref);
    }
  }
  return meshad::test::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 50 passed, 0 failed
