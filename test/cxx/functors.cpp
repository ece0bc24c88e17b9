// Calls of operator() (issue 15, item 3) in host code: a functor struct
// whose members hold constants (its operator() reads them through `self`,
// a call of the primal is still spelled `f(x)`), a functor made on the
// spot, and lambdas that capture derivative-carrying values by copy and by
// reference, called by the local's name and where they are written. Forward
// mode, reverse mode and HVPs against central differences.
//
// RUN: %clangxx -std=c++17 -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%I -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

namespace mt = meshad::test;

struct Spring {
  double k, rest;
  double operator()(double a, double b) const {
    double d = b - a - rest;
    return 0.5 * k * d * d;
  }
};

struct Wave {
  double w;
  double operator()(double x) const { return sin(this->w * x); }
};

double springs(double x, double y) {
  Spring s{2.0, 0.25};
  return s(x, y) + s(y, x * x) + Wave{3.0}(y);
}
// CHECK-LABEL: double springs_darg0(double x, double y) {
// CHECK: Spring s;
// CHECK-NEXT: s.k = 2.0;
// CHECK-NEXT: s.rest = 0.25;
// CHECK: Spring_call_pushforward_1(s, x, y, 1.);
// CHECK-LABEL: meshad::ValueAndPushforward<double, double> Spring_call_pushforward_1(Spring self, double a, double b, double _d_a) {
// CHECK: double d = b - a - self.rest;
// CHECK-LABEL: meshad::ValueAndPushforward<double, double> Wave_call_pushforward(Wave self, double x, double _d_x) {
// CHECK-NEXT: double _t0 = self.w * x;
// CHECK-LABEL: void springs_grad(double x, double y, double *_d_x, double *_d_y) {
// CHECK: _t0 = s(x, y);
// CHECK: _t2 = {3.0};
// CHECK-NEXT: _t3 = _t2(y);
// CHECK: Wave_call_pullback(_t2, y, _d__t3, &_r7);
// CHECK: Spring_call_pullback(s, x, y, _d__t0, &_r1, &_r2);
// CHECK-LABEL: void Spring_call_pullback(Spring self, double a, double b, double _d_y, double *_d_a, double *_d_b) {
// CHECK-LABEL: void springs_hvp(double x, double y, double _d2_x, double _d2_y, double *_d2_d_x, double *_d2_d_y) {
// CHECK: Wave_call_pullback_pushforward_1_3_no_d_x(_t2, y, _d__t3, _d2_y, &_d2_r7);

double lambdas(double x, double y) {
  double a = x * y;
  auto f = [=](double t) { return a * sin(t) + t; };
  double s = 0;
  auto add = [&](double t) { return s + a * t * t; };
  s = f(x) + f(y);
  s = add(x);
  return s + [&](double t) { return y * t; }(x);
}
// CHECK-LABEL: double lambdas_darg0(double x, double y) {
// CHECK: f_lambda_pushforward(a, x, _d_a, 1.);
// CHECK: add_lambda_pushforward(s, a, x, _d_s, _d_a, 1.);
// CHECK: lambda_pushforward_1(y, x, 1.);
// CHECK-LABEL: inline meshad::ValueAndPushforward<double, double> f_lambda_pushforward(double a, double t, double _d_a, double _d_t) {
// CHECK-LABEL: void lambdas_grad(double x, double y, double *_d_x, double *_d_y) {
// CHECK: _t0 = f_lambda(a, x);
// CHECK: s = add_lambda(s, a, x);
// CHECK: add_lambda_pullback(s, a, x, _r8, &_r9, &_r10, &_r11);
// CHECK-LABEL: inline void f_lambda_pullback(double a, double t, double _d_y, double *_d_a, double *_d_t) {
// CHECK-LABEL: void lambdas_hvp(double x, double y, double _d2_x, double _d2_y, double *_d2_d_x, double *_d2_d_y) {

// A generic lambda (its instance is an overload of a plain function), a
// lambda made in each iteration of a loop (it captures the counter), a
// functor class template.
template <class T> struct Quad {
  T k;
  T operator()(T x) const { return k * x * x; }
};
double generic(double x, double y) {
  auto sq = [](auto t) { return t * t; };
  double s = 0;
  for (int i = 0; i < 3; ++i) {
    auto g = [=](double t) { return t * i * y; };
    s += g(x);
  }
  return sq(x) + sq(2 * y) + Quad<double>{3.0}(x * y) + s;
}
// CHECK-LABEL: double generic_darg0(double x, double y) {
// CHECK: sq_lambda_pushforward(x, 1.);
// CHECK-LABEL: void generic_grad(double x, double y, double *_d_x, double *_d_y) {
// CHECK: Quad_call_pullback(_t{{[0-9]+}}, x * y,
// CHECK: g_lambda_pullback(i, y, x,
// CHECK-LABEL: void generic_hvp(double x, double y, double _d2_x, double _d2_y, double *_d2_d_x, double *_d2_d_y) {
// The lambdas' primals, emitted after the generated functions:
// CHECK-LABEL: inline double f_lambda(double a, double t) {
// CHECK-NEXT: return a * sin(t) + t;
// CHECK-LABEL: inline double sq_lambda(double t) {

double springs_v(const double *X) { return springs(X[0], X[1]); }
double generic_v(const double *X) { return generic(X[0], X[1]); }
double lambdas_v(const double *X) { return lambdas(X[0], X[1]); }

template <class F, class Fwd0, class Fwd1, class Grad, class Hvp>
void check(const char *Name, F Fn, Fwd0 D0, Fwd1 D1, Grad G, Hvp H,
           mt::RandomInputs &Rng) {
  for (int Trial = 0; Trial < 4; ++Trial) {
    double X[2], V[2], Gr[2] = {}, Hv[2] = {};
    Rng.fill(X, 2, -1.2, 1.2);
    Rng.fill(V, 2, -1.0, 1.0);
    G(X, Gr);
    H(X, V, Hv);
    for (int I = 0; I < 2; ++I) {
      double Fd = mt::centralDifferenceAt([&] { return Fn(X); }, X, I);
      std::string Tag = std::string(Name) + "[" + std::to_string(I) + "]";
      MESHAD_CHECK_CLOSE(("fwd " + Tag).c_str(),
                         I == 0 ? D0(X[0], X[1]) : D1(X[0], X[1]), Fd);
      MESHAD_CHECK_CLOSE(("rev " + Tag).c_str(), Gr[I], Fd);
      double Hd = mt::centralDifference(
          [&](double T) {
            double XT[2] = {X[0] + T * V[0], X[1] + T * V[1]}, GT[2] = {};
            G(XT, GT);
            return GT[I];
          },
          0.0);
      MESHAD_CHECK_CLOSE(("hvp " + Tag).c_str(), Hv[I], Hd);
    }
  }
}

int main() {
  mt::RandomInputs Rng;
  auto s0 = meshad::differentiate(springs, "x");
  auto s1 = meshad::differentiate(springs, "y");
  auto sg = meshad::gradient(springs, "x, y");
  auto sh = meshad::hvp(springs, "x, y");
  check(
      "springs", springs_v,
      [&](double X, double Y) { return s0.execute(X, Y); },
      [&](double X, double Y) { return s1.execute(X, Y); },
      [&](double *X, double *G) { sg.execute(X[0], X[1], &G[0], &G[1]); },
      [&](double *X, double *V, double *H) {
        sh.execute(X[0], X[1], V[0], V[1], &H[0], &H[1]);
      },
      Rng);
  auto l0 = meshad::differentiate(lambdas, "x");
  auto l1 = meshad::differentiate(lambdas, "y");
  auto lg = meshad::gradient(lambdas, "x, y");
  auto lh = meshad::hvp(lambdas, "x, y");
  check(
      "lambdas", lambdas_v,
      [&](double X, double Y) { return l0.execute(X, Y); },
      [&](double X, double Y) { return l1.execute(X, Y); },
      [&](double *X, double *G) { lg.execute(X[0], X[1], &G[0], &G[1]); },
      [&](double *X, double *V, double *H) {
        lh.execute(X[0], X[1], V[0], V[1], &H[0], &H[1]);
      },
      Rng);
  auto q0 = meshad::differentiate(generic, "x");
  auto q1 = meshad::differentiate(generic, "y");
  auto qg = meshad::gradient(generic, "x, y");
  auto qh = meshad::hvp(generic, "x, y");
  check(
      "generic", generic_v,
      [&](double X, double Y) { return q0.execute(X, Y); },
      [&](double X, double Y) { return q1.execute(X, Y); },
      [&](double *X, double *G) { qg.execute(X[0], X[1], &G[0], &G[1]); },
      [&](double *X, double *V, double *H) {
        qh.execute(X[0], X[1], V[0], V[1], &H[0], &H[1]);
      },
      Rng);
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
