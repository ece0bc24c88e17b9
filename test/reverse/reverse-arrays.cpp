// Reverse mode w.r.t. whole array parameters (one adjoint array of the same
// length each, accumulated), local arrays, two selected arrays read at
// shifted indices, and a void function whose output array carries the seed
// (on entry) and the adjoint of its initial contents (on exit: zero, since
// it is overwritten without being read).
//
// RUN: %clangxx -std=c++17 -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%I -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

double localArrays(const double *p, int n) {
  double local[3];
  for (int i = 0; i < 3; ++i)
    local[i] = p[i] * p[i + 3];
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += sin(p[i]) * local[i % 3];
  return s;
}
// CHECK-LABEL: void localArrays_grad(const double *p, int n, double *_d_p) {
// CHECK: _d_p[

double shiftedDot(const double *a, const double *b, int n) {
  double s = 0;
  for (int i = 0; i + 1 < n; ++i)
    s += a[i] * b[i + 1] + a[i + 1] * a[i + 1] * b[i];
  return s;
}
// CHECK-LABEL: void shiftedDot_grad(const double *a, const double *b, int n, double *_d_a, double *_d_b) {

void normalize(const double *in, double *out) {
  double len = sqrt(in[0] * in[0] + in[1] * in[1] + in[2] * in[2]);
  for (int i = 0; i < 3; ++i)
    out[i] = in[i] / len;
}
// CHECK-LABEL: void normalize_grad(const double *in, double *out, double *_d_in, double *_d_out) {

int main() {
  using meshad::test::centralDifferenceAt;
  meshad::test::RandomInputs Rng;
  auto gl = meshad::gradient(localArrays, "p");
  auto gd = meshad::gradient(shiftedDot, "a, b");
  auto gn = meshad::gradient(normalize, "in, out");
  for (int I = 0; I < 10; ++I) {
    double P[6], DP[6] = {};
    Rng.fill(P, 6, -1, 1);
    gl.execute(P, 6, DP);
    for (int K = 0; K < 6; ++K)
      MESHAD_CHECK_CLOSE("d localArrays/dp[k]", DP[K],
          centralDifferenceAt([&] { return localArrays(P, 6); }, P, K));

    double A[5], B[5], DA[5] = {}, DB[5] = {};
    Rng.fill(A, 5, 0.5, 1); // positive: no derivative cancels to ~0
    Rng.fill(B, 5, 0.5, 1);
    gd.execute(A, B, 5, DA, DB);
    for (int K = 0; K < 5; ++K) {
      MESHAD_CHECK_CLOSE("d shiftedDot/da[k]", DA[K],
          centralDifferenceAt([&] { return shiftedDot(A, B, 5); }, A, K));
      MESHAD_CHECK_CLOSE("d shiftedDot/db[k]", DB[K],
          centralDifferenceAt([&] { return shiftedDot(A, B, 5); }, B, K));
    }

    double In[3], Out[3], W[3], DIn[3] = {}, DOut[3];
    Rng.fill(In, 3, 0.5, 1.5);
    Rng.fill(W, 3, -1, 1);
    for (int J = 0; J < 3; ++J)
      DOut[J] = W[J];
    gn.execute(In, Out, DIn, DOut);
    auto Loss = [&] {
      double O[3];
      normalize(In, O);
      return W[0] * O[0] + W[1] * O[1] + W[2] * O[2];
    };
    for (int K = 0; K < 3; ++K) {
      MESHAD_CHECK_CLOSE("d normalize/din[k]", DIn[K],
                         centralDifferenceAt(Loss, In, K));
      meshad::test::checker().close("d normalize/dout_initial[k] == 0",
                                    DOut[K], 0.0, 0.0);
    }
  }
  return meshad::test::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 220 passed, 0 failed
