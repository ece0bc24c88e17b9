// meshad::hessian of functions that pass a selected array, or a pointer
// into one, to a callee (`norm2(x)`, `spring(x, x + 3, k)`, `edge(&x[3],
// ...)`, nested callees, a callee with a loop whose count is an argument, a
// callee updating the caller's local through a reference): the callees are
// inlined into the copy of the primal the Hessian derives from
// (AD/HessianInline.cpp), so the lanes see every element they read as an
// element of x, and the sparsity passes find the same structure as in the
// function written without callees: the pattern and the stores below are
// those of the hand-inlined twins. Every entry against central differences
// of meshad::gradient (relative error 1e-6) on random inputs, and against
// the twin's dense Hessian; the packed form against the dense one.
//
// RUN: %clangxx -std=c++17 -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%I -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
// NUM-NOT: FAIL
// NUM: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
#include "HessianCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

double norm2(const double *p) { return p[0] * p[0] + p[1] * p[1]; }
double viaCallee(const double *x) { return sin(norm2(x)) * x[2]; }
// CHECK-LABEL: void viaCallee_hessian(const double *x, double *H) {
// CHECK-NEXT: // Hessian pattern: 3 x 3, 5 unique values
// CHECK-NOT:  norm2_pushforward
// CHECK:      }

// Two springs sharing a point: blocks [K -K; -K K] of each, 3 points.
double spring(const double *a, const double *b, double k) {
  double d0 = a[0] - b[0], d1 = a[1] - b[1], d2 = a[2] - b[2];
  double l = sqrt(d0 * d0 + d1 * d1 + d2 * d2);
  return 0.5 * k * (l - 1) * (l - 1);
}
double springs(const double *x, double k) {
  return spring(x, x + 3, k) + spring(&x[3], &x[6], k);
}
double springsTwin(const double *x, double k) {
  double a0 = x[0] - x[3], a1 = x[1] - x[4], a2 = x[2] - x[5];
  double la = sqrt(a0 * a0 + a1 * a1 + a2 * a2);
  double b0 = x[3] - x[6], b1 = x[4] - x[7], b2 = x[5] - x[8];
  double lb = sqrt(b0 * b0 + b1 * b1 + b2 * b2);
  return 0.5 * k * (la - 1) * (la - 1) + 0.5 * k * (lb - 1) * (lb - 1);
}
// CHECK-LABEL: void springs_hessian{{(_0)?}}(const double *x, double k, double *H) {
// CHECK-NEXT: // Hessian pattern: 9 x 9, [[SPRING_VALUES:[0-9]+]] unique values
// CHECK-NOT:  spring_pushforward
// CHECK:      }
// CHECK-LABEL: void springsTwin_hessian{{(_0)?}}(const double *x, double k, double *H) {
// CHECK-NEXT: // Hessian pattern: 9 x 9, [[SPRING_VALUES]] unique values

// A callee with a loop whose count is an argument (unrolled once the count
// is known), through a pointer past the first element, and nested callees.
double cyclic(const double *p, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += p[i] * p[i] * p[(i + 1) % n];
  return s;
}
double scaled(const double *p, double w) { return w * norm2(p + 1) * p[0]; }
double nested(const double *x, double w) {
  return exp(0.1 * cyclic(x + 1, 3)) + scaled(x, w);
}
double nestedTwin(const double *x, double w) {
  double c = x[1] * x[1] * x[2] + x[2] * x[2] * x[3] + x[3] * x[3] * x[1];
  return exp(0.1 * c) + w * (x[1] * x[1] + x[2] * x[2]) * x[0];
}
// CHECK-LABEL: void nested_hessian(const double *x, double w, double *H) {
// CHECK-NEXT: // Hessian pattern: 5 x 5, [[NESTED_VALUES:[0-9]+]] unique values
// CHECK-NOT:  cyclic_pushforward
// CHECK:      }
// CHECK-LABEL: void nestedTwin_hessian(const double *x, double w, double *H) {
// CHECK-NEXT: // Hessian pattern: 5 x 5, [[NESTED_VALUES]] unique values

// A callee that updates the caller's local through a reference.
void addProduct(double &acc, const double *p) { acc += p[0] * p[1]; }
double updates(const double *x) {
  double s = 0;
  addProduct(s, x);
  addProduct(s, &x[1]);
  return s * s;
}
// CHECK-LABEL: void updates_hessian(const double *x, double *H) {
// CHECK-NOT:  addProduct
// CHECK:      }

namespace mt = meshad::test;

int main() {
  mt::RandomInputs Rng;
  auto hV = meshad::hessian(viaCallee, "x[0:3]");
  auto gV = meshad::gradient(viaCallee, "x");
  auto hS = meshad::hessian(springs, "x[0:9]");
  auto hST = meshad::hessian(springsTwin, "x[0:9]");
  auto gS = meshad::gradient(springs, "x");
  auto hN = meshad::hessian(nested, "x[0:4], w");
  auto hNT = meshad::hessian(nestedTwin, "x[0:4], w");
  auto gN = meshad::gradient(nested, "x, w");
  auto hU = meshad::hessian(updates, "x[0:3]");
  auto gU = meshad::gradient(updates, "x");
  for (int T = 0; T < 3; ++T) {
    std::vector<double> X(10);
    Rng.fill(X.data(), 10, -1.0, 1.0);
    mt::checkHessian(
        "viaCallee", std::vector<double>(X.begin(), X.begin() + 3), 0, 3,
        [&](double *P, double *H) { hV.execute(P, H); },
        [&](double *P, double *G) { gV.execute(P, G); });
    mt::checkHessian(
        "springs", X, 0, 9,
        [&](double *P, double *H) { hS.execute(P, 1.5, H); },
        [&](double *P, double *G) { gS.execute(P, 1.5, G); });
    mt::checkSame("springs", 9, [&](double *H) { hS.execute(X.data(), 1.5, H); },
              [&](double *H) { hST.execute(X.data(), 1.5, H); });
    mt::checkPacked("springs", hS, hST.pattern().NumValues,
                    hST.pattern().numNonzeros(), X.data(), 1.5);
    std::vector<double> Y(X.begin(), X.begin() + 5);
    mt::checkHessian(
        "nested", Y, 0, 5,
        [&](double *P, double *H) { hN.execute(P, P[4], H); },
        [&](double *P, double *G) { gN.execute(P, P[4], G, G + 4); });
    mt::checkSame("nested", 5, [&](double *H) { hN.execute(Y.data(), Y[4], H); },
              [&](double *H) { hNT.execute(Y.data(), Y[4], H); });
    mt::checkHessian(
        "updates", std::vector<double>(X.begin(), X.begin() + 3), 0, 3,
        [&](double *P, double *H) { hU.execute(P, H); },
        [&](double *P, double *G) { gU.execute(P, G); });
  }
  return mt::summary();
}
