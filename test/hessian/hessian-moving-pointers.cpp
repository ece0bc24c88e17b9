// meshad::hessian of functions that walk a selected array with a pointer
// (`const double *p = x + 3 * i;`, `p += 3;`, `++p`, `--p`): each pointer
// local into a selected array becomes an int offset into it
// (AD/HessianPointers.cpp; into a local array too), which folds to constants where the loops are
// small and constant (the pattern is then that of the twin written with
// x[...] directly) and stays a run-time index in other loops (every entry
// computed, guarded). Every entry against central differences of
// meshad::gradient (relative error 1e-6) on random inputs, and against the
// twin's dense Hessian.
//
// RUN: %clangxx -std=c++17 -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%I -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
// NUM-NOT: FAIL
// NUM: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
#include "HessianCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

double moving(const double *x) {
  const double *p = x;
  double s = 0;
  for (int i = 0; i < 2; ++i) {
    s += p[0] * p[0] * p[1];
    ++p;
  }
  --p;
  return s + exp(*p);
}
double movingTwin(const double *x) {
  return x[0] * x[0] * x[1] + x[1] * x[1] * x[2] + exp(x[1]);
}
// CHECK-LABEL: void moving_hessian(const double *x, double *H) {
// CHECK-NEXT: // Hessian pattern: 3 x 3, [[MOVING_VALUES:[0-9]+]] unique values
// CHECK-NOT:  _d2_p
// CHECK:      }
// CHECK-LABEL: void movingTwin_hessian(const double *x, double *H) {
// CHECK-NEXT: // Hessian pattern: 3 x 3, [[MOVING_VALUES]] unique values

// A pointer set from the counter in each trip of a small loop.
double pairs(const double *x, double w) {
  double s = 0;
  for (int i = 0; i < 3; ++i) {
    const double *q = x + 2 * i;
    s += w * q[0] * q[1] + sin(q[1]);
  }
  return s;
}
double pairsTwin(const double *x, double w) {
  return w * x[0] * x[1] + sin(x[1]) + w * x[2] * x[3] + sin(x[3]) +
         w * x[4] * x[5] + sin(x[5]);
}
// CHECK-LABEL: void pairs_hessian(const double *x, double w, double *H) {
// CHECK-NEXT: // Hessian pattern: 7 x 7, [[PAIRS_VALUES:[0-9]+]] unique values
// CHECK:      }
// CHECK-LABEL: void pairsTwin_hessian(const double *x, double w, double *H) {
// CHECK-NEXT: // Hessian pattern: 7 x 7, [[PAIRS_VALUES]] unique values

// A pointer walking a local array computed from the selected inputs (its
// tangent would be a pointer into the tangent array: an error before).
double localWalk(const double *x) {
  double buf[4] = {x[0] * x[1], x[1], sin(x[2]), x[0]};
  double *ptr = buf;
  double s = 0;
  for (int i = 0; i < 3; ++i) {
    s += ptr[0] * ptr[1];
    ++ptr;
  }
  return s;
}
// CHECK-LABEL: void localWalk_hessian(const double *x, double *H) {
// CHECK-NOT:  _d2_ptr
// CHECK:      }

// A pointer moved by 3 in a loop whose count is known at run time only:
// the offset stays an index, the adds are guarded.
double strided(const double *x, int n) {
  const double *p = x;
  double s = 0;
  for (int i = 0; i < n; ++i) {
    s += p[0] * p[1] * p[2] + sin(p[0] - p[2]);
    p += 3;
  }
  return s;
}
// CHECK-LABEL: void strided_hessian(const double *x, int n, double *H) {
// CHECK:      p_offset += 3;
// CHECK:      }

namespace mt = meshad::test;

int main() {
  mt::RandomInputs Rng;
  auto hM = meshad::hessian(moving, "x[0:3]");
  auto hMT = meshad::hessian(movingTwin, "x[0:3]");
  auto gM = meshad::gradient(moving, "x");
  auto hP = meshad::hessian(pairs, "x[0:6], w");
  auto hPT = meshad::hessian(pairsTwin, "x[0:6], w");
  auto gP = meshad::gradient(pairs, "x, w");
  auto hL = meshad::hessian(localWalk, "x[0:3]");
  auto gL = meshad::gradient(localWalk, "x");
  auto hS = meshad::hessian(strided, "x[0:9]");
  auto gS = meshad::gradient(strided, "x");
  for (int T = 0; T < 3; ++T) {
    std::vector<double> X(9);
    Rng.fill(X.data(), 9, -1.0, 1.0);
    std::vector<double> X3(X.begin(), X.begin() + 3);
    mt::checkHessian(
        "moving", X3, 0, 3, [&](double *P, double *H) { hM.execute(P, H); },
        [&](double *P, double *G) { gM.execute(P, G); });
    mt::checkSame("moving", 3, [&](double *H) { hM.execute(X3.data(), H); },
              [&](double *H) { hMT.execute(X3.data(), H); });
    std::vector<double> X7(X.begin(), X.begin() + 7);
    mt::checkHessian(
        "pairs", X7, 0, 7,
        [&](double *P, double *H) { hP.execute(P, P[6], H); },
        [&](double *P, double *G) { gP.execute(P, P[6], G, G + 6); });
    mt::checkSame("pairs", 7, [&](double *H) { hP.execute(X7.data(), X7[6], H); },
              [&](double *H) { hPT.execute(X7.data(), X7[6], H); });
    mt::checkHessian(
        "localWalk", X3, 0, 3, [&](double *P, double *H) { hL.execute(P, H); },
        [&](double *P, double *G) { gL.execute(P, G); });
    mt::checkHessian(
        "strided", X, 0, 9, [&](double *P, double *H) { hS.execute(P, 3, H); },
        [&](double *P, double *G) { gS.execute(P, 3, G); });
  }
  return mt::summary();
}
