// meshad::hessian of functions whose helpers update a caller's scalar
// through a reference: the HVP's calls of the helper's pushforward update
// the primal, and those of its pullback's pushforward add into first-order
// adjoints; copied once per lane, they would update them once per
// selected input. Lane 0 updates them; lanes 1.. get copies of their
// values before the call (`double s_1 = s;`; small local arrays too).
// Each column against central
// differences of meshad::gradient on random inputs, and H v against
// meshad::hvp.
//
// RUN: %clangxx -std=c++17 -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%I -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
// NUM-NOT: FAIL
// NUM: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
#include "HessianCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

void relax(double &acc, double s) { acc += 0.25 * sin(s) - 0.25 * acc; }

// The helper updates the parameter s (found by the fuzzer's 'D' mode).
double viaReference(double a, double s) {
  relax(s, 0.8 * s);
  return a * erf(s);
}
// Lane 1 updates its copy of s; its pullback's pushforward adds into a copy
// of the first-order adjoint _d_s_local.
// CHECK-LABEL: void viaReference_hessian(double a, double s, double *H) {
// CHECK:      double s_1 = s;
// CHECK-NEXT: relax_pushforward(s, 0.8 * s, _d2_s_v_0, 0.);
// CHECK-NEXT: relax_pushforward(s_1, 0.8 * s_1, _d2_s_v_1, 0.8);
// CHECK:      double [[S:s_1_1]] = s;
// CHECK-NEXT: double [[D:_d_s_local_1]] = _d_s_local;
// CHECK:      relax_pullback_pushforward(s, 0.8 * s, _d_s_local, &_r0, _d2_s_v_0, 0., _d2_d_s_local_0, &_d2_r0_0);
// CHECK-NEXT: relax_pullback_pushforward([[S]], 0.8 * [[S]], [[D]], &_r0_1, _d2_s_v_1, 0.8, _d2_d_s_local_1, &_d2_r0_1);

// A reference updated in a loop over selected elements.
double accumulate(const double *x, double w) {
  double acc = w;
  for (int i = 0; i < 3; ++i)
    relax(acc, x[i] * acc);
  return acc * acc;
}
// CHECK-LABEL: void accumulate_hessian(const double *x, double w, double *H) {

// A helper updating a local array through a pointer: lanes 1.. copy the
// array (`{q[0], q[1]}`) and its first-order adjoint. (Before, the array
// argument was not recognised as updated: a wrong Hessian.)
void relaxArray(double *acc, double s) {
  acc[0] += 0.25 * sin(s) - 0.25 * acc[1];
}
double viaArray(double a, double s) {
  double q[2] = {s, a};
  relaxArray(q, 0.8 * s);
  return a * erf(q[0]);
}
// CHECK-LABEL: void viaArray_hessian(double a, double s, double *H) {
// CHECK:      double q_1[2] = {q[0], q[1]};
// CHECK-NEXT: relaxArray_pushforward(q, 0.8 * s, _d2_q_0, 0.);
// CHECK-NEXT: relaxArray_pushforward(q_1, 0.8 * s, _d2_q_1, 0.8);
// CHECK:      double _d_q_1[2] = {_d_q[0], _d_q[1]};

// A helper updating two references.
void rotate(double &u, double &v, double t) {
  double c = cos(t), s = sin(t);
  double u2 = c * u - s * v;
  v = s * u + c * v;
  u = u2;
}
double twoRefs(double a, double b, double t) {
  rotate(a, b, t);
  return a * a * b + t * a;
}
// CHECK-LABEL: void twoRefs_hessian(double a, double b, double t, double *H) {

namespace mt = meshad::test;

int main() {
  mt::RandomInputs Rng;
  auto hRef = meshad::hessian(viaReference, "a, s");
  auto gRef = meshad::gradient(viaReference, "a, s");
  auto vRef = meshad::hvp(viaReference, "a, s");
  for (int T = 0; T < 3; ++T) {
    std::vector<double> X = {Rng.uniform(-1, 1), Rng.uniform(-1, 1)};
    mt::checkHessian(
        "viaReference", X, 0, 2,
        [&](double *P, double *H) { hRef.execute(P[0], P[1], H); },
        [&](double *P, double *G) { gRef.execute(P[0], P[1], G, G + 1); });
    double H[4], V[2] = {Rng.uniform(-1, 1), Rng.uniform(-1, 1)}, Hv[2] = {};
    hRef.execute(X[0], X[1], H);
    vRef.execute(X[0], X[1], V[0], V[1], &Hv[0], &Hv[1]);
    for (int I = 0; I < 2; ++I)
      MESHAD_CHECK_CLOSE("viaReference H v", H[2 * I] * V[0] + H[2 * I + 1] * V[1],
                         Hv[I]);
  }

  auto hAcc = meshad::hessian(accumulate, "x[0:3], w");
  auto gAcc = meshad::gradient(accumulate, "x, w");
  for (int T = 0; T < 3; ++T) {
    std::vector<double> X(4);
    Rng.fill(X.data(), 4, -1.0, 1.0);
    mt::checkHessian(
        "accumulate", X, 0, 4,
        [&](double *P, double *H) { hAcc.execute(P, P[3], H); },
        [&](double *P, double *G) { gAcc.execute(P, P[3], G, G + 3); });
  }

  auto hArr = meshad::hessian(viaArray, "a, s");
  auto gArr = meshad::gradient(viaArray, "a, s");
  for (int T = 0; T < 3; ++T)
    mt::checkHessian(
        "viaArray", {Rng.uniform(-1, 1), Rng.uniform(-1, 1)}, 0, 2,
        [&](double *P, double *H) { hArr.execute(P[0], P[1], H); },
        [&](double *P, double *G) { gArr.execute(P[0], P[1], G, G + 1); });

  auto hRot = meshad::hessian(twoRefs, "a, b, t");
  auto gRot = meshad::gradient(twoRefs, "a, b, t");
  for (int T = 0; T < 3; ++T) {
    std::vector<double> X(3);
    Rng.fill(X.data(), 3, -1.0, 1.0);
    mt::checkHessian(
        "twoRefs", X, 0, 3,
        [&](double *P, double *H) { hRot.execute(P[0], P[1], P[2], H); },
        [&](double *P, double *G) {
          gRot.execute(P[0], P[1], P[2], G, G + 1, G + 2);
        });
  }
  return mt::summary();
}
