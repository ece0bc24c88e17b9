// Every problem with a request or with the code to differentiate is an error
// at the construct's location, never wrong code and never a crash.
//
// RUN: %clangxx -std=c++17 -fsyntax-only -fplugin=%meshad_plugin -I%I %s -Xclang -verify
#include <cmath>
#include <meshad/Differentiator.h>

double f(double x, int n, double *p) { return x * n + p[0]; }

double withGoto(double x) {
  if (x > 0)
    goto done; // expected-error {{goto}}
  x = -x;
done: // expected-error {{label is not supported}}
  return x;
}

double external(double x);
double callsExternal(double x) { return external(x) * x; } // expected-error {{cannot differentiate the call of 'external': it has no derivative rule and no visible definition}}

double opaque(double x) { return ::j0(x); } // expected-error {{cannot differentiate the call of}}

int count(double x) { return x > 0; }

void requests() {
  meshad::differentiate(f, "z");     // expected-error {{'f' has no parameter named 'z'}}
  meshad::differentiate(f, "n");     // expected-error {{parameter 'n' has type int, which carries no derivative}}
  meshad::differentiate(f, "x, p");  // expected-error {{forward mode differentiates w.r.t. one parameter or one array element}}
  meshad::differentiate(f, "x[1]");  // expected-error {{parameter 'x' is not an array}}
  meshad::differentiate(f, "p[0:4]");// expected-error {{names a range}}
  meshad::differentiate(f, "x[");    // expected-error {{invalid argument spec "x["}}
  meshad::differentiate(f, "7");     // expected-error {{'f' has no parameter number 7}}
  meshad::differentiate(count, "x"); // expected-error {{'count' returns int, which carries no derivative}}
  meshad::hessian(f, "p");           // expected-error {{meshad::hessian: the size of 'p' cannot be known}}
  meshad::differentiate(withGoto, "x");
  meshad::differentiate(callsExternal, "x");
  meshad::differentiate(opaque, "x");
}
