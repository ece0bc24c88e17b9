// Stores through moving pointers and pointers chosen by a condition (found
// by the corpus of issue 13): `*w++ = v` into a local array in a loop (the
// temporary pointer the side effect leaves, `_t0 = w; ++w; *_t0 = v;`, was
// not saved per iteration: every reverse iteration used the last one, a
// wrong gradient), `*p++` over an input, a `const` local array read in a
// loop (hoisted without const, not an error), and `c ? x + 2 : x` (its
// adjoint pointer makes the same choice). Forward and reverse mode against
// central differences.
//
// RUN: %clangxx -std=c++17 -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%I -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

namespace mt = meshad::test;

double staged(const double *x) {
  double buf[4];
  double *w = buf;
  for (int i = 0; i < 4; ++i)
    *w++ = x[i] * x[(i + 1) % 4];
  return buf[0] + buf[1] * buf[2] - buf[3];
}
// CHECK-LABEL: void staged_grad(const double *x, double *_d_x) {
// CHECK:         meshad::push(_t{{[0-9]+}}, _t0);
// CHECK-NEXT:    _t0 = w;
// CHECK:         _t0 = meshad::pop(_t{{[0-9]+}});

double walk(const double *x) {
  const double *p = x;
  double s = 0;
  for (int i = 0; i < 4; ++i)
    s += *p++ * (i + 1);
  return s * s;
}

double horner(const double *x) {
  const double c[4] = {1.0, -2.0, 0.5, 3.0};
  double r = 0;
  for (int i = 3; i >= 0; --i)
    r = r * x[0] + c[i];
  return r;
}
// CHECK-LABEL: void horner_grad(const double *x, double *_d_x) {
// CHECK-NEXT:    double c[4];

double pick(const double *x) {
  const double *p = x[0] > 0.1 ? x + 2 : x;
  return p[0] * p[1] + x[0];
}
// CHECK-LABEL: void pick_grad(const double *x, double *_d_x) {
// CHECK:         _d_p = x[0] > 0.1 ? _d_x + 2 : _d_x;

/// Forward (along a random direction) and reverse mode of \p Fn against
/// central differences.
template <class F, class Fwd, class Rev>
void check(const char *Name, F Fn, Fwd Forward, Rev Reverse,
           mt::RandomInputs &Rng) {
  for (int Trial = 0; Trial < 3; ++Trial) {
    double X[4], V[4], G[4] = {}, Dir = 0;
    Rng.fill(X, 4, 0.2, 0.8);
    Rng.fill(V, 4, -1, 1);
    Reverse.execute(X, G);
    for (int I = 0; I < 4; ++I) {
      double Fd = mt::centralDifferenceAt([&] { return Fn(X); }, X, I);
      MESHAD_CHECK_CLOSE((std::string("rev ") + Name).c_str(), G[I], Fd);
      Dir += Fd * V[I];
    }
    MESHAD_CHECK_CLOSE((std::string("fwd ") + Name).c_str(),
                       Forward.execute(X, V), Dir);
  }
}

int main() {
  mt::RandomInputs Rng;
  check("staged", staged, meshad::differentiate(staged, "x"),
        meshad::gradient(staged, "x"), Rng);
  check("walk", walk, meshad::differentiate(walk, "x"),
        meshad::gradient(walk, "x"), Rng);
  check("horner", horner, meshad::differentiate(horner, "x"),
        meshad::gradient(horner, "x"), Rng);
  check("pick", pick, meshad::differentiate(pick, "x"),
        meshad::gradient(pick, "x"), Rng);
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 60 passed, 0 failed
