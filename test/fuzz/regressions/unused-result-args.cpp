// Fuzzer finding (issue 9, the 5,000-program run of seed 5000, programs
// 2494 and 2671, reduced): a call whose value is unused but which writes
// an argument into the caller's memory (`double h = h1(v, 2 * erf(e - x))`
// with h1 storing its y into v[1]). The activity analysis took the call's
// arguments as useful only when its value was, so `e` (computed from x)
// carried no derivative: the x-part through e was missing, in both modes.
// (fixed: a call that may write useful memory makes all it reads useful)
//
// RUN: %clangxx -std=c++17 -fplugin=%meshad_plugin -I%I -I%test_inputs %s -o %t
// RUN: %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: numeric checks: 40 passed, 0 failed
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

double h0(const double *o, double a) { return cosh(sin(o[0])) - a; }

double h1(double *arr, double y) {
  double t = cos(y);
  arr[1] = y;
  return 2.0 * sin(exp(tanh(y)) * h0(arr, t));
}

void f(double *v, double x) {
  v[0] = 0.1 * (x + v[0]);
  const double e = log(1.0 + x * x);
  double h = h1(v, 2.0 * erf(e - x));
}

// The same with the value assigned to an existing local.
void g(double *v, double x) {
  double e = x * x, h = 0;
  h = h1(v, e * v[0]);
}

int main() {
  using meshad::test::centralDifference;
  using meshad::test::centralDifferenceAt;
  meshad::test::RandomInputs Rng;
  auto gf = meshad::gradient(f, "v, x");
  auto ff = meshad::differentiate(f, "x");
  auto gg = meshad::gradient(g, "v, x");
  for (int I = 0; I < 5; ++I) {
    double V0[2], W[2], X = Rng.uniform(-1.5, 1.5);
    Rng.fill(V0, 2, -1.5, 1.5);
    Rng.fill(W, 2, 0.5, 1.5);
    // L = W . v_final; the adjoint of v is seeded with W.
    auto LossOf = [&](void (*Fn)(double *, double)) {
      return [=](double *V, double Y) {
        double T[2] = {V[0], V[1]};
        Fn(T, Y);
        return W[0] * T[0] + W[1] * T[1];
      };
    };
    for (auto *Fn : {f, g}) {
      auto Loss = LossOf(Fn);
      double V[2] = {V0[0], V0[1]}, DV[2] = {W[0], W[1]}, DX = 0;
      (Fn == f ? gf : gg).execute(V, X, DV, &DX);
      double Vc[2] = {V0[0], V0[1]};
      MESHAD_CHECK_CLOSE("rev d/dx", DX,
          centralDifference([&](double Y) { return Loss(Vc, Y); }, X));
      for (int K = 0; K < 2; ++K)
        MESHAD_CHECK_CLOSE("rev d/dv[k]", DV[K],
            centralDifferenceAt([&] { return Loss(Vc, X); }, Vc, K));
    }
    // Forward: the tangents of v w.r.t. x.
    double T[2] = {V0[0], V0[1]}, DT[2] = {0, 0};
    ff.execute(T, X, DT);
    for (int K = 0; K < 2; ++K)
      MESHAD_CHECK_CLOSE("fwd d v[k]/dx", DT[K],
          centralDifference([&](double Y) {
            double U[2] = {V0[0], V0[1]};
            f(U, Y);
            return U[K];
          }, X));
  }
  return meshad::test::summary();
}
