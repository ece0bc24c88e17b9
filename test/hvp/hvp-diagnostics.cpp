// meshad::hvp requests that cannot be served are errors at the request or
// at the construct, never a wrong Hessian-vector product.
//
// RUN: %clangxx -std=c++17 -fsyntax-only -fplugin=%meshad_plugin -I%I %s -Xclang -verify
#include <meshad/Differentiator.h>
#include <cmath>

void scale(const double *x, double *y, int n) {
  for (int i = 0; i < n; ++i)
    y[i] = x[i] * x[i];
}

double both(const double *x, double *y) {
  y[0] = x[0] * x[0];
  return x[0] * y[0];
}


double f(double x, double y) { return x * x * y; }

int main() {
  auto a = meshad::hvp(scale, "x"); // expected-error {{meshad::hvp needs a scalar}}
  auto b = meshad::hvp(scale, "y"); // expected-error {{meshad::hvp takes the Hessian w.r.t. inputs; 'scale' writes 'y'}}
  auto c = meshad::hvp(both, "x"); // expected-error {{a function that returns a value and also writes arrays is not supported yet}}
  auto e = meshad::hvp(f, "z"); // expected-error {{no parameter named 'z'}}
}
