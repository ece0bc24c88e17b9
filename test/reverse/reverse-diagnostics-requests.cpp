// Reverse-mode requests that meshad rejects at the request (complements
// reverse-diagnostics.cu): a parameter name the function lacks, a function
// returning int, and a callee with neither a definition nor a rule.
//
// RUN: %clangxx -std=c++17 -fsyntax-only -fplugin=%meshad_plugin -I%I %s -Xclang -verify
#include <meshad/Differentiator.h>

double scale(double x, int n) { return x * n; }
int toInt(double x) { return (int)x; }
double external(double);
double callsExternal(double x) {
  return external(x) * x; // expected-error {{cannot differentiate the call of 'external' in reverse mode: it has no derivative rule and no visible definition}}
}

int main() {
  meshad::gradient(scale, "z");         // expected-error {{'scale' has no parameter named 'z'}}
  meshad::gradient(toInt, "x");         // expected-error {{'toInt' returns int, which carries no derivative}}
  meshad::gradient(callsExternal, "x");
  return 0;
}
