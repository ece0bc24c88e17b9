// Fuzzer finding (tools/fuzz/FINDINGS.md, D4): the dense Hessian's lanes
// called a helper's pushforward once, with lane 0's direction, when its
// pair was a temporary (`double w[4] = {h(q[0])};` keeps the pair in `_t1`
// and reads `_t1.pushforward` into each lane's tangent): every lane got
// lane 0's tangent, and H[1][1] (d2/dq0^2) was wrong (0.006 instead of
// -0.073 at the point of the finding). The pair is one per lane now.
//
// RUN: %clangxx -std=c++17 -fplugin=%meshad_plugin -I%I -I%test_inputs %s -o %t
// RUN: %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
#include "HessianCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

double h1(double y) {
  double w[2] = {y, y};
  double o = atan2(y, 2.0 + cos(w[0]));
  return log2(2.0 + sin(o));
}

double viaArrayInit(const double *q) {
  double w[4] = {h1(q[0]), h1(q[1])};
  return lgamma(2.0 + sin(2.0 * atan(w[0] - q[2]))) + q[2] * w[1];
}

namespace mt = meshad::test;

int main() {
  mt::RandomInputs Rng;
  auto h = meshad::hessian(viaArrayInit, "q[0:3]");
  auto g = meshad::gradient(viaArrayInit, "q");
  for (int T = 0; T < 3; ++T) {
    std::vector<double> Q(3);
    Rng.fill(Q.data(), 3, -1.0, 1.0);
    mt::checkHessian(
        "viaArrayInit", Q, 0, 3,
        [&](double *P, double *H) { h.execute(P, H); },
        [&](double *P, double *G) { g.execute(P, G); });
  }
  return mt::summary();
}
