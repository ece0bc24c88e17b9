// meshad::hessian of functions that read selected arrays through pointer
// locals set once (`const double *row = p + 1;`): the HVP's tangent and
// adjoint-tangent pointers (`_d2_row = _d2_p + 1;`) are replaced by the
// parameters they alias (`_d2_p[i + 1]`), which the lanes expand like
// direct indexing. Every entry against central differences of
// meshad::gradient on random inputs. A pointer that moves (`ptr++`) stays
// an error (hessian-diagnostics.cpp). (`*cur` of a `const double *cur`
// made reverse mode's adjoint `*_d_cur` const: an internal error of the
// HVP's verifier before.)
//
// RUN: %clangxx -std=c++17 -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%I -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
// NUM-NOT: FAIL
// NUM: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
#include "HessianCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

double aliases(const double *p, const double *q, double x) {
  const double *ptr = q;
  const double *cur = p + 1;
  double s = sin(ptr[0] * cur[0]) + ptr[1] * ptr[1] * x + *cur * x;
  for (int i = 0; i < 2; ++i)
    s += cur[i] * exp(ptr[i]);
  return s;
}
// The entries of p[1], p[2] (cur[0], cur[1]) are rows 1 and 2; p[0] is a
// structural zero.
// CHECK-LABEL: void aliases_hessian(const double *p, const double *q, double x, double *H) {
// CHECK-NEXT: // Hessian pattern: 6 x 6, 7 unique values
// CHECK-NEXT: {{^  //     0    0    0    0    0    0$}}
// CHECK-NOT:  _d2_cur
// CHECK:      }

// A pointer set from another one, with a negative offset.
double chained(const double *x, double w) {
  const double *mid = x + 2;
  const double *left = mid - 1;
  return w * left[0] * mid[1] + exp(left[1] * mid[0]);
}
// CHECK-LABEL: void chained_hessian(const double *x, double w, double *H) {

namespace mt = meshad::test;

int main() {
  mt::RandomInputs Rng;
  auto hA = meshad::hessian(aliases, "p[0:3], q[0:2], x");
  auto gA = meshad::gradient(aliases, "p, q, x");
  for (int T = 0; T < 3; ++T) {
    std::vector<double> X(6);
    Rng.fill(X.data(), 6, -1.0, 1.0);
    mt::checkHessian(
        "aliases", X, 0, 6,
        [&](double *P, double *H) { hA.execute(P, P + 3, P[5], H); },
        [&](double *P, double *G) {
          gA.execute(P, P + 3, P[5], G, G + 3, G + 5);
        });
  }
  auto hC = meshad::hessian(chained, "x[0:4], w");
  auto gC = meshad::gradient(chained, "x, w");
  for (int T = 0; T < 3; ++T) {
    std::vector<double> X(5);
    Rng.fill(X.data(), 5, -1.0, 1.0);
    mt::checkHessian(
        "chained", X, 0, 5,
        [&](double *P, double *H) { hC.execute(P, P[4], H); },
        [&](double *P, double *G) { gC.execute(P, P[4], G, G + 4); });
  }
  return mt::summary();
}
