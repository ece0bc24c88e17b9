// A virtual call on `this` inside a member function that meshad inlines
// (issue 13), in a class that is not `final`: when the object's class is
// known (a local object or value parameter of the class, a temporary, an
// object of a `final` class, or, inside an inlined member function, `this`
// of such an object), the call runs that class's final overrider (the
// template method pattern: `Shape::report` calls `area()`, which `Square`
// overrides); otherwise it is the error of a virtual call of unknown
// dynamic type (cxx/diagnostics.cpp). Forward mode, reverse mode and HVPs
// against central differences.
//
// RUN: %clangxx -std=c++17 -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%I -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "NumericCheck.h"
#include "TwoInputChecks.h"
#include <cmath>
#include <meshad/Differentiator.h>

namespace mt = meshad::test;

struct Shape {
  virtual double area(double s) const { return s; }
  virtual double perimeter(double s) const { return 4 * s; }
  double report(double s) const { return area(s) + sin(perimeter(s)); }
  double twice(double s) const { return 2 * this->report(s); }
  virtual ~Shape() {}
};

struct Square : Shape {
  double area(double s) const override { return s * s; }
};

struct Tile : Square {
  double perimeter(double s) const override { return 3 * s * s; }
};

double onLocal(double x, double y) {
  Square q;
  return q.report(x * y) + y;
}
// CHECK-LABEL: double onLocal_darg0(double x, double y) {
// CHECK-NOT: area(
// CHECK-LABEL: void onLocal_grad(double x, double y, double *_d_x, double *_d_y) {
// CHECK-NOT: area(
// CHECK-LABEL: void onLocal_hvp(

// Two levels of calls on `this`, overriders from two classes.
double nested(double x, double y) {
  Tile t;
  Shape s;
  return t.twice(x) * y + s.report(y);
}
// CHECK-LABEL: double nested_darg0(double x, double y) {
// CHECK-LABEL: void nested_grad(double x, double y, double *_d_x, double *_d_y) {
// CHECK-LABEL: void nested_hvp(

int main() {
  mt::RandomInputs Rng;
  checkAll("onLocal", onLocal, meshad::differentiate(onLocal, "x"),
           meshad::differentiate(onLocal, "y"),
           meshad::gradient(onLocal, "x, y"), meshad::hvp(onLocal, "x, y"),
           Rng);
  checkAll("nested", nested, meshad::differentiate(nested, "x"),
           meshad::differentiate(nested, "y"), meshad::gradient(nested, "x, y"),
           meshad::hvp(nested, "x, y"), Rng);
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
