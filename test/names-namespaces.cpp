// Calls of functions in namespaces, from generated code in another
// namespace: a function template (ns::sq<double>), a function of a nested
// namespace declared on one line with the closing braces of both
// namespaces, a function defined out of line (double ns::g(...) {...}: its
// derivatives are defined as ns::g_pullback there), one of an unnamed
// namespace, a request for a function of a namespace, and a global function
// whose generated derivative a local of the caller hides (h_pullback), and
// a callee of a namespace that overwrites memory its caller reads (its
// recording variant ns::relax_record). The
// callees and their derivatives are called by their qualified names where
// the unqualified ones would not find them. Both modes, checked against
// central finite differences.
//
// RUN: %clangxx -std=c++17 -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%I -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

namespace ns {
template <class T> T sq(T x) { return x * x; }
double cube(double x) { return x * sq(x); }
namespace inner { double quad(double x) { return sq(x) * sq(x) + cube(x); } }
double g(double x);
void relax(double *v, int n) {
  for (int i = 0; i < n; ++i)
    v[i] = v[i] * v[i];
}
} // namespace ns

double ns::g(double x) { return sin(x) * cube(x); }

namespace {
double twice(double x) { return 2 * x + ns::sq(x); }
} // namespace

double h(double x) { return x * exp(x); }

double f(double x) {
  double h_pullback = h(x); // hides the generated h_pullback
  return ns::sq(x) + ns::cube(x) + ns::inner::quad(x) + ns::g(x) +
         twice(x) * h_pullback;
}

namespace other {
double f2(double x, double y) { return ns::sq(x * y) + ::h(y); }
// relax overwrites v, which this reverse sweep reads: its recording variant
// ns::relax_record runs in the forward sweep.
double overwrite(double *v, int n) {
  double a = v[0];
  ns::relax(v, n);
  return a * v[1];
}
} // namespace other

// CHECK-LABEL: void f_grad(double x, double *_d_x) {
// CHECK: h_pullback = h(x);
// CHECK: _t0 = ::ns::sq<double>(x);
// CHECK: _t1 = ::ns::cube(x);
// CHECK: _t2 = ::ns::inner::quad(x);
// CHECK: _t3 = ::ns::g(x);
// CHECK: _t4 = twice(x);
// CHECK: {{^}}  twice_pullback(x,
// CHECK: ::ns::g_pullback(x,
// CHECK: ::ns::inner::quad_pullback(x,
// CHECK: ::ns::cube_pullback(x,
// CHECK: ::ns::sq_pullback(x,
// CHECK: ::h_pullback(x,
// CHECK-LABEL: void h_pullback(double x, double _d_y, double *_d_x) {
// CHECK-LABEL: void sq_pullback(double x, double _d_y, double *_d_x) {
// CHECK-LABEL: void cube_pullback(double x, double _d_y, double *_d_x) {
// CHECK: _t0 = sq<double>(x);
// CHECK: {{^}}  sq_pullback(x,
// CHECK-LABEL: void quad_pullback(double x, double _d_y, double *_d_x) {
// CHECK: ::ns::sq_pullback(x,
// CHECK-LABEL: void ns::g_pullback(double x, double _d_y, double *_d_x) {
// CHECK: {{^}}  cube_pullback(x,
// CHECK-LABEL: void twice_pullback(double x, double _d_y, double *_d_x) {
// CHECK: ::ns::sq_pullback(x,
// The seed _d_x = 1 is propagated by the simplifier into the calls:
// CHECK-LABEL: double f_darg0(double x) {
// CHECK: ::ns::sq_pushforward(x, 1.);
// CHECK: ::ns::inner::quad_pushforward(x, 1.);
// CHECK: ::ns::g_pushforward(x, 1.);
// CHECK-LABEL: meshad::ValueAndPushforward<double, double> ns::g_pushforward(double x, double _d_x) {
// CHECK-LABEL: void f2_grad(double x, double y, double *_d_x, double *_d_y) {
// CHECK: ::ns::sq_pullback(
// CHECK-LABEL: void overwrite_grad(double *v, int n, double *_d_v) {
// CHECK: ::ns::relax_record(v, n, &_undo0);
// CHECK: ::ns::relax_pullback(v, n, _d_v);

int main() {
  using meshad::test::centralDifference;
  meshad::test::RandomInputs Rng;
  auto gf = meshad::gradient(f, "x");
  auto df = meshad::differentiate(f, "x");
  auto gf2 = meshad::gradient(other::f2, "x, y");
  auto df2 = meshad::differentiate(other::f2, "y");
  auto go = meshad::gradient(other::overwrite, "v");
  for (int I = 0; I < 10; ++I) {
    double X = Rng.uniform(-1.5, 1.5), Y = Rng.uniform(-1.5, 1.5);
    double Ref = centralDifference([&](double V) { return f(V); }, X);
    double GX = 0;
    gf.execute(X, &GX);
    MESHAD_CHECK_CLOSE("gradient d f/dx", GX, Ref);
    MESHAD_CHECK_CLOSE("forward d f/dx", df.execute(X), Ref);
    double G2X = 0, G2Y = 0;
    gf2.execute(X, Y, &G2X, &G2Y);
    double Ref2Y =
        centralDifference([&](double V) { return other::f2(X, V); }, Y);
    MESHAD_CHECK_CLOSE("gradient d f2/dx", G2X,
                       centralDifference(
                           [&](double V) { return other::f2(V, Y); }, X));
    MESHAD_CHECK_CLOSE("gradient d f2/dy", G2Y, Ref2Y);
    MESHAD_CHECK_CLOSE("forward d f2/dy", df2.execute(X, Y), Ref2Y);
    double V[2] = {X, Y}, DV[2] = {0, 0};
    go.execute(V, 2, DV);
    V[0] = X, V[1] = Y;
    // overwrite = v0 v1^2.
    MESHAD_CHECK_CLOSE("gradient d overwrite/dv[0]", DV[0], Y * Y);
    MESHAD_CHECK_CLOSE("gradient d overwrite/dv[1]", DV[1], 2 * X * Y);
  }
  return meshad::test::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 70 passed, 0 failed
