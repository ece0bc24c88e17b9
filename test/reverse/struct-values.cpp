// Struct locals in both modes: their shadow is a struct of the same type
// whose members hold the tangents or adjoints (members of floating type,
// and pointer members set from differentiated memory). Issue 9 (found while
// fixing it): forward mode returned 0 for a value read back from a struct
// member, and a user call returning a struct built from its inputs had its
// derivative dropped in both modes; that is now an error (in
// struct-values-diagnostics.cpp) until struct values are supported.
//
// RUN: %clangxx -std=c++17 -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%I -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

struct Pair {
  double a, b;
  double *p;
  int n;
};

double members(double x, double y) {
  Pair s;
  s.a = x * y;
  s.b = sin(x) + s.a;
  s.n = 3;
  return s.a * s.b + s.n;
}
// CHECK-LABEL: double members_darg0(double x, double y) {
// CHECK: return _d_s.a * s.b + s.a * _d_s.b;
// CHECK-LABEL: void members_grad(double x, double y, double *_d_x, double *_d_y) {

double pointerMember(double *x) {
  Pair s;
  s.p = x + 1;
  s.a = s.p[0] * x[0];
  return s.a * s.p[1];
}
// CHECK-LABEL: double pointerMember_darg0(double *x, double *_d_x) {
// CHECK: _d_s.p = _d_x + 1;
// CHECK-LABEL: void pointerMember_grad(double *x, double *_d_x) {

int main() {
  using meshad::test::centralDifference;
  using meshad::test::centralDifferenceAt;
  meshad::test::RandomInputs Rng;
  auto fm = meshad::differentiate(members, "x");
  auto gm = meshad::gradient(members, "x, y");
  auto fp = meshad::differentiate(pointerMember, "x");
  auto gp = meshad::gradient(pointerMember, "x");
  for (int I = 0; I < 5; ++I) {
    double X = Rng.uniform(-1.5, 1.5), Y = Rng.uniform(-1.5, 1.5);
    double FdX = centralDifference([&](double V) { return members(V, Y); }, X);
    double FdY = centralDifference([&](double V) { return members(X, V); }, Y);
    MESHAD_CHECK_CLOSE("fwd members/dx", fm.execute(X, Y), FdX);
    double DX = 0, DY = 0;
    gm.execute(X, Y, &DX, &DY);
    MESHAD_CHECK_CLOSE("rev members/dx", DX, FdX);
    MESHAD_CHECK_CLOSE("rev members/dy", DY, FdY);

    double P[3], Dir[3], DP[3] = {};
    Rng.fill(P, 3, -1.5, 1.5);
    Rng.fill(Dir, 3, -1, 1);
    gp.execute(P, DP);
    double Jvp = 0;
    for (int K = 0; K < 3; ++K) {
      double Fd = centralDifferenceAt([&] { return pointerMember(P); }, P, K);
      MESHAD_CHECK_CLOSE("rev pointerMember/dx[k]", DP[K], Fd);
      Jvp += Fd * Dir[K];
    }
    MESHAD_CHECK_CLOSE("fwd pointerMember . dir", fp.execute(P, Dir), Jvp);
  }
  return meshad::test::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 35 passed, 0 failed
