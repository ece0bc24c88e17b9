// Fuzzer finding (issue 9, tools/fuzz/FINDINGS.md): pointer arithmetic on a
// pointer local (p += 1, ++p, p++) is not mirrored on its tangent and
// adjoint pointers (p = p + 1 is).
// (bug: p += 1, ++p, p++ not mirrored)
//
// RUN: %clangxx -std=c++17 -fplugin=%meshad_plugin -I%I -I%test_inputs %s -o %t
// RUN: %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
#include "NumericCheck.h"
#include <algorithm>
#include <cmath>
#include <meshad/Differentiator.h>

double walk(double *a) {
  double *p = a;
  double s = p[0] * p[0];
  p += 1;
  s += p[0] * p[1];
  ++p;
  s += sin(p[0]);
  p++;
  return s + p[0] * s;
}

int main() {
  using meshad::test::centralDifferenceAt;
  meshad::test::RandomInputs Rng;
  auto g = meshad::gradient(walk, "a");
  auto d = meshad::differentiate(walk, "a");
  for (int I = 0; I < 5; ++I) {
    double A[4], DA[4] = {};
    Rng.fill(A, 4, -1.5, 1.5);
    g.execute(A, DA);
    for (int K = 0; K < 4; ++K)
      MESHAD_CHECK_CLOSE("d walk/da[k]", DA[K],
                         centralDifferenceAt([&] { return walk(A); }, A, K));
    double Dir[4], Jvp = 0;
    Rng.fill(Dir, 4, -1, 1);
    for (int K = 0; K < 4; ++K)
      Jvp += Dir[K] * centralDifferenceAt([&] { return walk(A); }, A, K);
    MESHAD_CHECK_CLOSE("forward d walk/da . dir", d.execute(A, Dir), Jvp);
  }
  return meshad::test::summary();
}
