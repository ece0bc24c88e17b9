// Classes whose bases hold data members (issue 13): public, non-virtual
// bases without user-declared constructors, at any depth, none of whose
// members is hidden by one of the same name. Their members are named on the
// derived object (`b.m`, `m` in a base's member function that runs on it),
// copies and brace lists (`Ball b{{m, v}, r}`) go member by member, bases'
// members first; the base's member functions, a derived object passed to a
// function taking the derived class or a reference to the base, copied
// into a base object, virtual functions of the derived object. A base with a constructor or a hidden member is an error
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

struct Body {
  double m, v;
  double momentum() const { return m * v; }
  void push(double dv) { v += dv / m; }
};

struct Ball : Body {
  double r;
  double energy() const { return 0.5 * m * v * v + r * momentum(); }
};

struct Spinning : Ball {
  double w;
  double total() const { return energy() + 0.4 * m * r * r * w * w; }
};

// Members of the base read and written through the derived object.
double throughDerived(double x, double y) {
  Ball b;
  b.m = x * x + 1;
  b.v = y;
  b.r = x * y;
  b.push(sin(x));
  return b.energy() + b.v * b.r;
}
// CHECK-LABEL: double throughDerived_darg0(double x, double y) {
// CHECK: b.m = x * x + 1;
// CHECK-LABEL: void throughDerived_grad(double x, double y, double *_d_x, double *_d_y) {
// CHECK: _d_b.m
// CHECK-LABEL: void throughDerived_hvp(

// Brace lists with the bases' members first, two levels of bases, copies.
Spinning spin(Spinning s, double dt) {
  s.push(dt * s.w);
  s.w = s.w * (1 - dt * s.r);
  return s;
}
double bracedAndCopied(double x, double y) {
  Spinning s{{{x + 2, y}, 0.5 * x}, y * y};
  Spinning t = spin(s, 0.1);
  t = spin(t, x * 0.2);
  return t.total() + s.momentum();
}
// CHECK-LABEL: double bracedAndCopied_darg0(double x, double y) {
// CHECK-LABEL: void bracedAndCopied_grad(double x, double y, double *_d_x, double *_d_y) {
// CHECK-LABEL: void bracedAndCopied_hvp(

// A derived object where its base is expected: a reference parameter of
// the base's type (the object itself), a copy of the base (its members).
double kinetic(const Body &b) { return 0.5 * b.m * b.v * b.v; }
double asBase(double x, double y) {
  Ball b{{x, y}, x * y};
  Body c = b;
  c.v *= 2;
  return kinetic(b) + kinetic(c) * b.r;
}
// CHECK-LABEL: double asBase_darg0(double x, double y) {
// CHECK-LABEL: void asBase_grad(double x, double y, double *_d_x, double *_d_y) {
// CHECK-LABEL: void asBase_hvp(

// A virtual function of a class whose base holds data.
struct Shape {
  double scale;
  virtual double area() const { return scale; }
};
struct Disc final : Shape {
  double r;
  double area() const override { return scale * 3.0 * r * r; }
};
double discArea(const Disc &d, double y) { return d.area() * y; }
double virtualOnDerived(double x, double y) {
  Disc d;
  d.scale = y;
  d.r = x;
  return discArea(d, y) + d.area();
}
// CHECK-LABEL: double virtualOnDerived_darg0(double x, double y) {
// CHECK-LABEL: void virtualOnDerived_grad(double x, double y, double *_d_x, double *_d_y) {
// CHECK-LABEL: void virtualOnDerived_hvp(

int main() {
  mt::RandomInputs Rng;
  checkAll("throughDerived", throughDerived,
           meshad::differentiate(throughDerived, "x"),
           meshad::differentiate(throughDerived, "y"),
           meshad::gradient(throughDerived, "x, y"),
           meshad::hvp(throughDerived, "x, y"), Rng);
  checkAll("bracedAndCopied", bracedAndCopied,
           meshad::differentiate(bracedAndCopied, "x"),
           meshad::differentiate(bracedAndCopied, "y"),
           meshad::gradient(bracedAndCopied, "x, y"),
           meshad::hvp(bracedAndCopied, "x, y"), Rng);
  checkAll("asBase", asBase, meshad::differentiate(asBase, "x"),
           meshad::differentiate(asBase, "y"), meshad::gradient(asBase, "x, y"),
           meshad::hvp(asBase, "x, y"), Rng);
  checkAll("virtualOnDerived", virtualOnDerived,
           meshad::differentiate(virtualOnDerived, "x"),
           meshad::differentiate(virtualOnDerived, "y"),
           meshad::gradient(virtualOnDerived, "x, y"),
           meshad::hvp(virtualOnDerived, "x, y"), Rng);
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
