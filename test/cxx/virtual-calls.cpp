// Calls of virtual member functions whose dynamic type is known (issue 13):
// on a local object of the class (not through a reference or pointer), on
// a class marked `final`, or of a function marked `final`; the class has no
// bases. The call runs the function the class declares, which meshad
// inlines like any member function (cxx/member-functions.cpp). Through a
// reference or pointer of unknown dynamic type it is an error
// (cxx/diagnostics.cpp). Forward mode, reverse mode and HVPs against
// central differences.
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
  double s;
  virtual double area(double k) const { return k * s * s; }
  virtual ~Shape() {}
};

struct Square final {
  double side;
  virtual double area() const { return side * side; }
};

struct Circle {
  double r;
  virtual double area() const final { return 3.0 * r * r; }
  double scaled(double k) const { return k * area(); }
};

double onLocal(double x, double y) {
  Shape sh;
  sh.s = x * y;
  return sh.area(y) + sin(sh.area(1.0));
}
// CHECK-LABEL: double onLocal_darg0(double x, double y) {
// CHECK-NOT: area(
// CHECK-LABEL: void onLocal_grad(double x, double y, double *_d_x, double *_d_y) {
// CHECK-NOT: area(
// CHECK-LABEL: void onLocal_hvp(

double squareArea(const Square &q, double y) { return q.area() * y; }
double onFinalClass(double x, double y) {
  Square q;
  q.side = x + y;
  return squareArea(q, y);
}
// CHECK-LABEL: double onFinalClass_darg0(double x, double y) {
// CHECK-LABEL: void onFinalClass_grad(double x, double y, double *_d_x, double *_d_y) {
// CHECK-LABEL: void onFinalClass_hvp(

double onFinalFunction(double x, double y) {
  Circle c;
  c.r = x;
  return c.scaled(y) + x;
}
// CHECK-LABEL: double onFinalFunction_darg0(double x, double y) {
// CHECK-LABEL: void onFinalFunction_grad(double x, double y, double *_d_x, double *_d_y) {
// CHECK-LABEL: void onFinalFunction_hvp(

int main() {
  mt::RandomInputs Rng;
  checkAll("onLocal", onLocal, meshad::differentiate(onLocal, "x"),
           meshad::differentiate(onLocal, "y"), meshad::gradient(onLocal, "x, y"),
           meshad::hvp(onLocal, "x, y"), Rng);
  checkAll("onFinalClass", onFinalClass, meshad::differentiate(onFinalClass, "x"),
           meshad::differentiate(onFinalClass, "y"), meshad::gradient(onFinalClass, "x, y"),
           meshad::hvp(onFinalClass, "x, y"), Rng);
  checkAll("onFinalFunction", onFinalFunction, meshad::differentiate(onFinalFunction, "x"),
           meshad::differentiate(onFinalFunction, "y"), meshad::gradient(onFinalFunction, "x, y"),
           meshad::hvp(onFinalFunction, "x, y"), Rng);
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
