// `switch` (issue 13): lowered to an if/else-if chain on the value, one arm
// per group of labels, the default arm last; an arm that falls through
// runs the statements of the next ones too. Forward and reverse mode,
// against central differences, for every arm.
//
// RUN: %clangxx -std=c++17 -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%I -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

enum class Shape { Line, Square, Cube };

double sq(double t) { return t * t; }

double arms(double x, int m) {
  double r = 0;
  switch (m) {
  case 0:
  case 1:
    r += x;
    break;
  case 2:
    r *= x;
    [[fallthrough]];
  case 3:
    r += 2 * sin(x);
    break;
  case 4: {
    double t = sq(x);
    r = t * x;
    break;
  }
  default:
    r -= exp(x);
  }
  for (int k = 0; k < 3; ++k) {
    switch (k + m) {
    case 2:
      continue;
    case 5:
      r *= x;
      break;
    default:
      r += 0.1 * x;
    }
    r += 0.5 * x;
  }
  return r;
}
// CHECK-LABEL: double arms_darg0(double x, int m) {
// CHECK:   if (m == 0 || m == 1) {
// CHECK:   } else if (m == 2) {
// CHECK:   } else if (m == 3) {
// CHECK:   } else if (m == 4) {
// CHECK:   } else {
// CHECK-LABEL: void arms_grad(double x, int m, double *_d_x) {

double shapes(double x, Shape s) {
  switch (s) {
  case Shape::Line:
    return x;
  case Shape::Square:
    return x * x;
  default:
    return x * x * x;
  }
}
// CHECK-LABEL: double shapes_darg0(double x, Shape s) {
// CHECK:   if (s == Shape::Line) {
// CHECK-LABEL: void shapes_grad(double x, Shape s, double *_d_x) {

// The default arm first: still the last else-branch.
double defaultFirst(double x, int m) {
  switch (m) {
  default:
    x *= 3;
    break;
  case 1:
    x += 1;
  }
  return x * x;
}
// CHECK-LABEL: double defaultFirst_darg0(double x, int m) {
// CHECK:   if (m == 1) {
// CHECK:   } else {
// CHECK-LABEL: void defaultFirst_grad(double x, int m, double *_d_x) {

int main() {
  using meshad::test::centralDifference;
  meshad::test::RandomInputs Rng;
  auto fa = meshad::differentiate(arms, "x");
  auto ga = meshad::gradient(arms, "x");
  auto fs = meshad::differentiate(shapes, "x");
  auto gs = meshad::gradient(shapes, "x");
  for (int M = -1; M <= 6; ++M) {
    double X = Rng.uniform(-1.5, 1.5);
    double Fd = centralDifference([&](double V) { return arms(V, M); }, X);
    MESHAD_CHECK_CLOSE("fwd arms", fa.execute(X, M), Fd);
    double D = 0;
    ga.execute(X, M, &D);
    MESHAD_CHECK_CLOSE("rev arms", D, Fd);
  }
  auto fd = meshad::differentiate(defaultFirst, "x");
  auto gd = meshad::gradient(defaultFirst, "x");
  for (int M = 0; M <= 2; ++M) {
    double X = Rng.uniform(-1.5, 1.5);
    double Fd =
        centralDifference([&](double V) { return defaultFirst(V, M); }, X);
    MESHAD_CHECK_CLOSE("fwd defaultFirst", fd.execute(X, M), Fd);
    double D = 0;
    gd.execute(X, M, &D);
    MESHAD_CHECK_CLOSE("rev defaultFirst", D, Fd);
  }
  for (Shape S : {Shape::Line, Shape::Square, Shape::Cube}) {
    double X = Rng.uniform(-1.5, 1.5);
    double Fd = centralDifference([&](double V) { return shapes(V, S); }, X);
    MESHAD_CHECK_CLOSE("fwd shapes", fs.execute(X, S), Fd);
    double D = 0;
    gs.execute(X, S, &D);
    MESHAD_CHECK_CLOSE("rev shapes", D, Fd);
  }
  return meshad::test::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
