// What meshad does not differentiate through yet is an error at the
// construct, never a dropped derivative (issue 9): a call of a function
// returning a library struct built from derivative-carrying values (the
// generated pushforwards' ValueAndPushforward pairs, differentiated again in
// reverse mode), and a pointer-to-const member of a struct whose adjoint
// reverse mode would have to write. (A user struct returned by a function is
// lowered into the caller since issue 13: cxx/struct-arguments.cpp.)
//
// RUN: %clangxx -std=c++17 -fsyntax-only -fplugin=%meshad_plugin -I%I %s -Xclang -verify
#include <meshad/Differentiator.h>
#include <cmath>

struct Pair {
  double a, b;
};
// A pushforward as meshad-gen writes it, differentiated again.
meshad::ValueAndPushforward<double, double> hpf(double x, double dx) {
  double t0 = sin(x);
  return {t0 * x, cos(x) * dx * x + t0 * dx};
}
double fdarg(double x) {
  meshad::ValueAndPushforward<double, double> t = hpf(x, 1.0); // expected-error {{cannot differentiate the call of 'hpf': it returns a 'meshad::ValueAndPushforward<double, double>'}}
  return t.pushforward * x + t.value;
}

// A struct that is not built from the inputs is fine.
Pair constant() {
  Pair p;
  p.a = 1;
  p.b = 2;
  return p;
}
double usesConstant(double x) {
  Pair p = constant();
  return p.a * x;
}

struct View {
  const double *p;
};
double constMember(const double *x) {
  View v;
  v.p = x + 1; // expected-error {{cannot find the adjoint memory of pointer 'v'}}
  return v.p[0] * x[0];
}

int main() {
  meshad::gradient(fdarg, "x");
  meshad::gradient(usesConstant, "x");
  meshad::differentiate(usesConstant, "x");
  meshad::gradient(constMember, "x");
  return 0;
}
