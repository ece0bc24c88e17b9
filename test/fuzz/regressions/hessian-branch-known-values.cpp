// Fuzzer finding (tools/fuzz/FINDINGS.md, "Hessian lanes: a value known in
// one branch"): the dense Hessian's constant folding (foldLaneConstants)
// folded both branches of an `if` with one table of known values, the
// `else` first (argument order): `_d2_d_t_local_0 = 0.` in the `else`
// made the `then` branch read it as 0, which dropped the entry's adds:
// H[0][0] of branchReset was 0 instead of 4 f''. Also the shapes the
// fuzzer's 'D' mode reached once a scalar parameter that the function
// overwrites (`a -= w`) got a local tangent per lane (it was an internal
// error before): overwritten in straight-line code, in a branch, and
// inside a loop.
//
// RUN: %clangxx -std=c++17 -fplugin=%meshad_plugin -I%I -I%test_inputs %s -o %t
// RUN: %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
#include "HessianCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

double branchReset(double k, double s) {
  double t = s;
  if (k > 0.3) {
    t += -(k + k);
  } else {
    t = floor(k);
  }
  return sin(2.0 * atan(t - 0.1));
}

double overwritten(double a, double b) {
  a -= b * b;
  return a * a * b + sin(a);
}

double overwrittenInBranch(double k, double s) {
  if (k > 0.3) {
    s += -(k + k);
  } else {
    s = floor(k);
  }
  return sin(2.0 * atan(s - 0.1)) * k;
}

double overwrittenInLoop(double a, double b) {
  for (int i = 0; i < 3; ++i)
    a = a * b + 0.5 * sin(a);
  return a;
}

namespace mt = meshad::test;

int main() {
  mt::RandomInputs Rng;
  auto hB = meshad::hessian(branchReset, "k, s");
  auto gB = meshad::gradient(branchReset, "k, s");
  auto hO = meshad::hessian(overwritten, "a, b");
  auto gO = meshad::gradient(overwritten, "a, b");
  auto hI = meshad::hessian(overwrittenInBranch, "k, s");
  auto gI = meshad::gradient(overwrittenInBranch, "k, s");
  auto hL = meshad::hessian(overwrittenInLoop, "a, b");
  auto gL = meshad::gradient(overwrittenInLoop, "a, b");
  for (int T = 0; T < 3; ++T) {
    // k > 0.3: the branch that adds (the else is constant in k).
    std::vector<double> X = {Rng.uniform(0.5, 1.5), Rng.uniform(-1, 1)};
    mt::checkHessian(
        "branchReset", X, 0, 2,
        [&](double *P, double *H) { hB.execute(P[0], P[1], H); },
        [&](double *P, double *G) { gB.execute(P[0], P[1], G, G + 1); });
    mt::checkHessian(
        "overwritten", X, 0, 2,
        [&](double *P, double *H) { hO.execute(P[0], P[1], H); },
        [&](double *P, double *G) { gO.execute(P[0], P[1], G, G + 1); });
    mt::checkHessian(
        "overwrittenInBranch", X, 0, 2,
        [&](double *P, double *H) { hI.execute(P[0], P[1], H); },
        [&](double *P, double *G) { gI.execute(P[0], P[1], G, G + 1); });
    mt::checkHessian(
        "overwrittenInLoop", X, 0, 2,
        [&](double *P, double *H) { hL.execute(P[0], P[1], H); },
        [&](double *P, double *G) { gL.execute(P[0], P[1], G, G + 1); });
  }
  return mt::summary();
}
