// meshad::hvp on host functions: Hv = (d^2 f) v by forward mode over the
// unlowered reverse mode. Straight-line code, a loop whose reverse sweep
// pops a tape (the tangent tape is popped beside it), a callee (its
// pullback's pushforward), a callee taking an array, a local pointer into
// an array, and a loop that overwrites a local. Every HVP is checked against central finite
// differences of meshad::gradient along the direction, on random inputs
// and random directions.
//
// RUN: %clangxx -std=c++17 -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%I -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>
#include <string>
#include <vector>

double poly(double a, double b) { return a * a * b + sin(a) * exp(b); }
// CHECK-LABEL: void poly_hvp(double a, double b, double _d2_a, double _d2_b, double *_d2_d_a, double *_d2_d_b) {
// CHECK-NOT: MESHAD_UNLOWERED
// CHECK: }

double chain(const double *x, int n, double w) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s = s * w + sin(x[i]) * x[i];
  return s * s;
}
// CHECK-LABEL: void chain_hvp(const double *x, int n, double w, const double *_d2_x, double _d2_w, double *_d2_d_x, double *_d2_d_w) {
// CHECK: meshad::Tape<double> _d2_t0;
// CHECK: meshad::Tape<double> _t0;
// CHECK: meshad::push(_d2_t0, _d2_s);
// CHECK-NEXT: meshad::push(_t0, s);
// CHECK: _d2_s = meshad::pop(_d2_t0);
// CHECK-NEXT: s = meshad::pop(_t0);
// CHECK-NOT: {{[ (*]}}_d_x[
// CHECK: }

double pairEnergy(double a, double b) {
  double d = a - b;
  return d * d * d * d + cos(a * b);
}
double callees(const double *x, int n) {
  double e = 0;
  for (int i = 0; i + 1 < n; ++i)
    e += pairEnergy(x[i], x[i + 1]);
  return e;
}
// CHECK-LABEL: void callees_hvp(const double *x, int n, const double *_d2_x, double *_d2_d_x) {
// CHECK: pairEnergy_pullback_pushforward
// CHECK: }

// A callee taking the array: the gradient buffer passed to its pullback is
// dropped from a tangent-only variant of the pullback's pushforward.
double norm2(const double *p) { return p[0] * p[0] + p[1] * p[1]; }
double viaArray(const double *x) {
  return sin(norm2(x)) + norm2(x + 1) * x[0];
}
// CHECK-LABEL: void viaArray_hvp(const double *x, const double *_d2_x, double *_d2_d_x) {
// CHECK: norm2_pullback_pushforward_no_d_p(x + 1, _d__t1, _d2_x + 1, _d2_d__t1, _d2_d_x + 1);
// CHECK-LABEL: void norm2_pullback_pushforward_no_d_p(const double *p, double _d_y, const double *_d2_p, double _d2_d_y, double *_d2_d_p) {
// CHECK-NOT: {{[ (*]}}_d_p[
// CHECK: }

// A local pointer into the array: its adjoint alias is dropped too.
double alias(const double *x) {
  const double *q = x + 1;
  return q[0] * q[1] * x[0] + exp(q[1]);
}
// CHECK-LABEL: void alias_hvp(const double *x, const double *_d2_x, double *_d2_d_x) {
// CHECK: _d2_d_q = _d2_d_x + 1;
double overwrite(const double *x, double k) {
  double t = x[0];
  for (int i = 0; i < 4; ++i)
    t = k * sin(t) + x[1] * t;
  return t * x[2] + exp(k * x[0]);
}
// CHECK-LABEL: void overwrite_hvp(const double *x, double k, const double *_d2_x, double _d2_k, double *_d2_d_x, double *_d2_d_k) {

namespace mt = meshad::test;

/// Checks Hv against d/dt grad(x + t v) for a function of an array of N
/// values and one scalar, both through \p Grad(x, k, gx, &gk).
template <class GradFn, class HvpFn>
void checkHvp(const std::string &Name, int N, bool WithScalar, GradFn Grad,
              HvpFn Hvp, mt::RandomInputs &Rng) {
  for (int Trial = 0; Trial < 3; ++Trial) {
    std::vector<double> X(N), V(N), Hx(N, 0.0);
    Rng.fill(X.data(), N, -1.0, 1.0);
    Rng.fill(V.data(), N, -1.0, 1.0);
    double K = Rng.uniform(0.5, 1.5), VK = WithScalar ? Rng.uniform(-1, 1) : 0;
    double Hk = 0;
    Hvp(X.data(), K, V.data(), VK, Hx.data(), &Hk);
    for (int J = 0; J <= N; ++J) {
      if (J == N && !WithScalar)
        break;
      double Fd = mt::centralDifference(
          [&](double T) {
            std::vector<double> XT(N), G(N, 0.0);
            for (int I = 0; I < N; ++I)
              XT[I] = X[I] + T * V[I];
            double GK = 0;
            Grad(XT.data(), K + T * VK, G.data(), &GK);
            return J < N ? G[J] : GK;
          },
          0.0);
      MESHAD_CHECK_CLOSE((Name + "[" + std::to_string(J) + "]").c_str(),
                         J < N ? Hx[J] : Hk, Fd);
    }
  }
}

int main() {
  mt::RandomInputs Rng;
  auto hPoly = meshad::hvp(poly, "a, b");
  auto gPoly = meshad::gradient(poly, "a, b");
  checkHvp(
      "poly", 1, true,
      [&](const double *X, double K, double *GX, double *GK) {
        gPoly.execute(X[0], K, GX, GK);
      },
      [&](const double *X, double K, const double *V, double VK, double *HX,
          double *HK) { hPoly.execute(X[0], K, V[0], VK, HX, HK); },
      Rng);

  const int N = 6;
  auto hChain = meshad::hvp(chain, "x, w");
  auto gChain = meshad::gradient(chain, "x, w");
  checkHvp(
      "chain", N, true,
      [&](const double *X, double K, double *GX, double *GK) {
        gChain.execute(X, N, K, GX, GK);
      },
      [&](const double *X, double K, const double *V, double VK, double *HX,
          double *HK) { hChain.execute(X, N, K, V, VK, HX, HK); },
      Rng);

  auto hCallees = meshad::hvp(callees, "x");
  auto gCallees = meshad::gradient(callees, "x");
  checkHvp(
      "callees", N, false,
      [&](const double *X, double, double *GX, double *) {
        gCallees.execute(X, N, GX);
      },
      [&](const double *X, double, const double *V, double, double *HX,
          double *) { hCallees.execute(X, N, V, HX); },
      Rng);

  auto hVia = meshad::hvp(viaArray, "x");
  auto gVia = meshad::gradient(viaArray, "x");
  checkHvp(
      "viaArray", 3, false,
      [&](const double *X, double, double *GX, double *) {
        gVia.execute(X, GX);
      },
      [&](const double *X, double, const double *V, double, double *HX,
          double *) { hVia.execute(X, V, HX); },
      Rng);
  auto hAlias = meshad::hvp(alias, "x");
  auto gAlias = meshad::gradient(alias, "x");
  checkHvp(
      "alias", 3, false,
      [&](const double *X, double, double *GX, double *) {
        gAlias.execute(X, GX);
      },
      [&](const double *X, double, const double *V, double, double *HX,
          double *) { hAlias.execute(X, V, HX); },
      Rng);

  auto hOver = meshad::hvp(overwrite, "x, k");
  auto gOver = meshad::gradient(overwrite, "x, k");
  checkHvp(
      "overwrite", 3, true,
      [&](const double *X, double K, double *GX, double *GK) {
        gOver.execute(X, K, GX, GK);
      },
      [&](const double *X, double K, const double *V, double VK, double *HX,
          double *HK) { hOver.execute(X, K, V, VK, HX, HK); },
      Rng);
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: PASS poly[1]
// NUM: PASS chain[6]
// NUM: PASS callees[5]
// NUM: PASS viaArray[2]
// NUM: PASS alias[2]
// NUM: PASS overwrite[3]
