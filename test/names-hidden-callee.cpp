// A user variable named like a math function that the derivative calls (a
// local `cos` in a function that calls sin: d sin = cos) would hide it in
// the generated code: a clear error at the variable in both modes, not
// generated code that does not compile. A variable named like a user
// function is fine: calls of user and generated functions are qualified
// where a variable hides them (see names-namespaces.cpp).
//
// RUN: %clangxx -std=c++17 -fsyntax-only -fplugin=%meshad_plugin -I%I %s -Xclang -verify
#include <cmath>
#include <meshad/Differentiator.h>

double hidesCos(double x) {
  double cos = 0.5; // expected-error {{meshad: the variable 'cos' of 'hidesCos' hides the function 'cos' that its derivative 'hidesCos_grad' calls; rename the variable}} expected-error {{meshad: the variable 'cos' of 'hidesCos' hides the function 'cos' that its derivative 'hidesCos_darg0' calls; rename the variable}}
  return sin(x) * cos;
}

int main() {
  meshad::gradient(hidesCos, "x");
  meshad::differentiate(hidesCos, "x");
  return 0;
}
