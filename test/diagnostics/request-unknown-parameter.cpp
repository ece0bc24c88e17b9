// A spec naming a parameter the function does not have: the error lists the
// parameters and suggests the closest name when there is one (issue 16).
//
// RUN: %clangxx -std=c++17 -fsyntax-only -fplugin=%meshad_plugin -I%I %s -Xclang -verify
#include <meshad/Differentiator.h>

double spring(const double *p, const double *q, double stiffness) {
  double d = p[0] - q[0];
  return 0.5 * stiffness * d * d;
}
double none() { return 1.0; }

int main() {
  auto a = meshad::gradient(spring, "p, stifness"); // expected-error {{'spring' has no parameter named 'stifness' (did you mean 'stiffness'?); its parameters are p, q, stiffness}}
  auto b = meshad::differentiate(spring, "x"); // expected-error {{'spring' has no parameter named 'x'; its parameters are p, q, stiffness}}
  auto c = meshad::hvp(spring, "P"); // expected-error {{'spring' has no parameter named 'P' (did you mean 'p'?); its parameters are p, q, stiffness}}
  auto d = meshad::gradient(none, "x"); // expected-error {{'none' has no parameter named 'x'; it has no parameters}}
}
