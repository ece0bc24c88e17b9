// Virtual member functions of classes with base classes (issue 13): the
// bases are interfaces (public, not virtual, without data members, at any
// depth), and the dynamic type is known: a local or value parameter of the
// class, or a `final` class behind a reference. The call runs the class's
// final overrider, declared in the class or inherited from a base, which
// meshad inlines like any member function (cxx/virtual-calls.cpp for
// classes without bases). Bases with data members, and calls through a
// reference or pointer of a class that is not final, are errors
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

struct Base {
  virtual double scale(double x) const { return 2 * x; }
  virtual double offset() const { return 1.0; }
  virtual ~Base() {}
};

struct Mid : Base {
  double scale(double x) const override { return x * x; }
};

struct Leaf final : Mid {
  double w;
  double offset() const override { return w * w; }
};

struct Energy {
  virtual double eval(double a, double b) const = 0;
  virtual ~Energy() {}
};

struct Spring : Energy {
  double k;
  double eval(double a, double b) const override {
    return k * (a - b) * (a - b);
  }
};

double onLocal(double x, double y) {
  Mid m;
  return m.scale(x) * y + m.offset() + sin(m.scale(y));
}
// CHECK-LABEL: double onLocal_darg0(double x, double y) {
// CHECK-NOT: scale(
// CHECK-LABEL: void onLocal_grad(double x, double y, double *_d_x, double *_d_y) {
// CHECK-NOT: scale(
// CHECK-LABEL: void onLocal_hvp(

double useLeaf(const Leaf &l, double y) { return l.offset() * y; }
double byValue(Spring s, double y) { return s.eval(y, 0.5) + y; }

double onLeaf(double x, double y) {
  Leaf l;
  l.w = x * y;
  Spring s;
  s.k = x;
  return l.scale(y) + l.offset() * x + useLeaf(l, y) + byValue(s, y);
}
// CHECK-LABEL: double onLeaf_darg0(double x, double y) {
// CHECK-NOT: offset(
// CHECK-LABEL: void onLeaf_grad(double x, double y, double *_d_x, double *_d_y) {
// CHECK-NOT: offset(
// CHECK-LABEL: void onLeaf_hvp(

int main() {
  mt::RandomInputs Rng;
  checkAll("onLocal", onLocal, meshad::differentiate(onLocal, "x"),
           meshad::differentiate(onLocal, "y"),
           meshad::gradient(onLocal, "x, y"), meshad::hvp(onLocal, "x, y"),
           Rng);
  checkAll("onLeaf", onLeaf, meshad::differentiate(onLeaf, "x"),
           meshad::differentiate(onLeaf, "y"),
           meshad::gradient(onLeaf, "x, y"), meshad::hvp(onLeaf, "x, y"),
           Rng);
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
