// meshad::hvp through callees: the HVP calls the pushforward of a callee's
// pullback, which returns the first-order adjoints of the callee's
// arguments through pointers beside their tangents. Where the caller reads
// none of a first-order adjoint (it only fed the gradient buffer that the
// HVP drops), the HVP calls a variant without that result
// (<g>_pullback_pushforward_..._no_d_a), whose stores and the work that
// only fed them are gone; nested callees follow. Where the caller reads it
// (the adjoint of a local that flows back through sin, whose second
// derivative it weighs), the result stays. Every HVP is checked against
// central differences of meshad::gradient along random directions.
//
// RUN: %clangxx -std=c++17 -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%I -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>
#include <string>
#include <vector>

double pairEnergy(double a, double b) {
  double d = a - b;
  return d * d * d * d + cos(a * b);
}

// Both results unread: neither first-order adjoint is computed.
double direct(const double *x, int n) {
  double e = 0;
  for (int i = 0; i + 1 < n; ++i)
    e += pairEnergy(x[i], x[i + 1]);
  return e;
}
// CHECK-LABEL: void direct_hvp(const double *x, int n, const double *_d2_x, double *_d2_d_x) {
// CHECK: pairEnergy_pullback_pushforward_0_1_3_4_no_d_a_no_d_b(x[i], x[i + 1], _d_e, _d2_x[i], _d2_x[i + 1], &_d2_r1, &_d2_r2);
// CHECK-NOT: {{[ &(]}}_r1
// CHECK: }
// CHECK-LABEL: void pairEnergy_pullback_pushforward_0_1_3_4_no_d_a_no_d_b(double a, double b, double _d_y, double _d2_a, double _d2_b, double *_d2_d_a, double *_d2_d_b) {
// CHECK-NOT: {{[ (]}}_d_d
// CHECK-NOT: *_d_
// CHECK: }

// The adjoint of the local u is read (u = sin(x[0])): only b's goes.
double throughLocal(const double *x) {
  double u = sin(x[0]);
  return pairEnergy(u, x[1]);
}
// CHECK-LABEL: void throughLocal_hvp(const double *x, const double *_d2_x, double *_d2_d_x) {
// CHECK: pairEnergy_pullback_pushforward_0_1_3_4_no_d_b(u, x[1], 1., &_r1, _d2_u, _d2_x[1], &_d2_r1, &_d2_r2);
// CHECK: _d_u += _r1;
// CHECK: _d2_d_x[0] += _d2_d_u * cos(x[0]) + _d_u * (-sin(x[0]) * _d2_x[0]);
// CHECK-LABEL: void pairEnergy_pullback_pushforward_0_1_3_4_no_d_b(double a, double b, double _d_y, double *_d_a, double _d2_a, double _d2_b, double *_d2_d_a, double *_d2_d_b) {
// CHECK: *_d_a += _r3 * b;
// CHECK: *_d_a += _d_d;
// CHECK: }

// A callee of a callee: the variant's own call gets a variant.
double nested(double a, double b) { return pairEnergy(a * b, b) * a; }
double viaNested(const double *x) {
  return nested(x[0], x[1]) + x[2] * nested(x[1], x[2]);
}
// CHECK-LABEL: void viaNested_hvp(const double *x, const double *_d2_x, double *_d2_d_x) {
// CHECK: nested_pullback_pushforward_no_d_a_no_d_b(x[1], x[2], _d__t1, _d2_x[1], _d2_x[2], _d2_d__t1, &_d2_r4, &_d2_r5);
// CHECK: nested_pullback_pushforward_0_1_3_4_no_d_a_no_d_b(x[0], x[1], _d__t0, _d2_x[0], _d2_x[1], &_d2_r1, &_d2_r2);
// CHECK-LABEL: void nested_pullback_pushforward_no_d_a_no_d_b(
// CHECK: pairEnergy_pullback_pushforward_no_d_b(a * b, b, _d__t0, &_r1,
// CHECK-LABEL: void pairEnergy_pullback_pushforward_no_d_b(
// CHECK-LABEL: void nested_pullback_pushforward_0_1_3_4_no_d_a_no_d_b(

// A second HVP calling the same variant (after the gradient of direct made
// pairEnergy's pullback again) reuses it: one definition.
double scaled(const double *x) { return pairEnergy(x[0], x[1]) * 2.0; }
// CHECK-LABEL: void scaled_hvp(const double *x, const double *_d2_x, double *_d2_d_x) {
// CHECK: pairEnergy_pullback_pushforward_0_1_3_4_no_d_a_no_d_b(x[0], x[1], _d__t0,
// CHECK-NOT: no_d_a_no_d_b_1

namespace mt = meshad::test;

/// Checks Hv against d/dt grad(x + t v) for a function of N values,
/// through \p Grad(x, g) and \p Hvp(x, v, h).
template <class GradFn, class HvpFn>
void checkHvp(const std::string &Name, int N, GradFn Grad, HvpFn Hvp,
              mt::RandomInputs &Rng) {
  for (int Trial = 0; Trial < 3; ++Trial) {
    std::vector<double> X(N), V(N), Hx(N, 0.0);
    Rng.fill(X.data(), N, -1.0, 1.0);
    Rng.fill(V.data(), N, -1.0, 1.0);
    Hvp(X.data(), V.data(), Hx.data());
    for (int J = 0; J < N; ++J) {
      double Fd = mt::centralDifference(
          [&](double T) {
            std::vector<double> XT(N), G(N, 0.0);
            for (int I = 0; I < N; ++I)
              XT[I] = X[I] + T * V[I];
            Grad(XT.data(), G.data());
            return G[J];
          },
          0.0);
      MESHAD_CHECK_CLOSE((Name + "[" + std::to_string(J) + "]").c_str(),
                         Hx[J], Fd);
    }
  }
}

int main() {
  mt::RandomInputs Rng;
  const int N = 6;
  auto hDirect = meshad::hvp(direct, "x");
  auto gDirect = meshad::gradient(direct, "x");
  checkHvp(
      "direct", N, [&](const double *X, double *G) { gDirect.execute(X, N, G); },
      [&](const double *X, const double *V, double *H) {
        hDirect.execute(X, N, V, H);
      },
      Rng);
  auto hLocal = meshad::hvp(throughLocal, "x");
  auto gLocal = meshad::gradient(throughLocal, "x");
  checkHvp(
      "throughLocal", 2, [&](const double *X, double *G) { gLocal.execute(X, G); },
      [&](const double *X, const double *V, double *H) {
        hLocal.execute(X, V, H);
      },
      Rng);
  auto hNested = meshad::hvp(viaNested, "x");
  auto gNested = meshad::gradient(viaNested, "x");
  checkHvp(
      "viaNested", 3, [&](const double *X, double *G) { gNested.execute(X, G); },
      [&](const double *X, const double *V, double *H) {
        hNested.execute(X, V, H);
      },
      Rng);
  auto hScaled = meshad::hvp(scaled, "x");
  auto gScaled = meshad::gradient(scaled, "x");
  checkHvp(
      "scaled", 2, [&](const double *X, double *G) { gScaled.execute(X, G); },
      [&](const double *X, const double *V, double *H) {
        hScaled.execute(X, V, H);
      },
      Rng);
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: PASS direct[5]
// NUM: PASS throughLocal[1]
// NUM: PASS viaNested[2]
// NUM: PASS scaled[1]
