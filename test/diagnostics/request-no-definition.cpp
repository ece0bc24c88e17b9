// A request for a function whose body the translation unit does not see is
// one error at the request, with a note at the declaration (issue 16).
//
// RUN: %clangxx -std=c++17 -fsyntax-only -fplugin=%meshad_plugin -I%I %s -Xclang -verify
#include <meshad/Differentiator.h>

double energy(double x, double y); // expected-note 3 {{'energy' is declared here}}

int main() {
  auto g = meshad::gradient(energy, "x, y"); // expected-error {{cannot differentiate 'energy': its definition is not visible in this translation unit; define it here (or in a header this file includes)}}
  auto d = meshad::differentiate(energy, "x"); // expected-error {{cannot differentiate 'energy': its definition is not visible}}
  auto h = meshad::hvp(energy, "x"); // expected-error {{cannot differentiate 'energy': its definition is not visible}}
}
