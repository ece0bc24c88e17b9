// Forward mode w.r.t. one element of an array (`"p[1]"`) has no tangent
// array to pass on: an array passed to a callee or aliased by a pointer
// local is rejected with one error at its use that says what to request
// instead (before, an alias got a second error, "cannot find the tangent
// memory of pointer 'q'", the fuzzer's most frequent forward rejection
// pair). Reading the elements directly differentiates: its value is checked
// against central differences.
//
// RUN: %clangxx -std=c++17 -fsyntax-only -fplugin=%meshad_plugin -I%I -I%test_inputs %s -Xclang -verify
// RUN: %clangxx -std=c++17 -DVALID -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%I -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

double direct(const double *p, double x) { return p[0] * sin(p[1]) * x; }
// CHECK-LABEL: double direct_darg0_1(const double *p, double x) {
// CHECK-NEXT: return p[0] * cos(p[1]) * x;

#ifndef VALID
double sum2(const double *a) { return a[0] + a[1] * a[1]; }
double passedOn(const double *p, double x) {
  return sum2(p) * x; // expected-error {{array 'p' is differentiated w.r.t. one element and cannot be passed on or aliased here; select the whole array ("p") with a direction instead}}
}
double aliased(const double *p, double x) {
  const double *q = p + 1; // expected-error {{array 'p' is differentiated w.r.t. one element and cannot be passed on or aliased here; select the whole array ("p") with a direction instead}}
  return q[0] * x;
}
#endif

int main() {
  meshad::test::RandomInputs Rng;
  auto d = meshad::differentiate(direct, "p[1]");
  for (int I = 0; I < 4; ++I) {
    double P[2], X = Rng.uniform(-1, 1);
    Rng.fill(P, 2, -1, 1);
    double Fd = meshad::test::centralDifferenceAt(
        [&] { return direct(P, X); }, P, 1);
    MESHAD_CHECK_CLOSE("direct/dp[1]", d.execute(P, X), Fd);
  }
#ifndef VALID
  meshad::differentiate(passedOn, "p[1]");
  meshad::differentiate(aliased, "p[1]");
#endif
  return meshad::test::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 4 passed, 0 failed
