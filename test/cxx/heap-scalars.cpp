// `T *p = new T(v);` (and `new T()`) with its `delete p;`, and `new T[n]`
// whose size n is a local initialized with a constant and never changed
// (issue 13): both become local arrays (`double p[1]`, `double t[3]`), the
// deletes are left out. Forward mode, reverse mode and HVPs against
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

double scalars(double x, double y) {
  double *p = new double(x);
  double *q = new double(y * x);
  double *acc = new double();
  *acc += *p * *q;
  *q = sin(*q);
  double s = *acc + p[0] * *q;
  delete p;
  delete q;
  delete acc;
  return s;
}
// CHECK-LABEL: double scalars_darg0(double x, double y) {
// CHECK: double p[1];
// CHECK: p[0] = x;
// CHECK: double acc[1] = {};
// CHECK-NOT: delete
// CHECK-LABEL: double scalars_darg1(double x, double y) {
// CHECK-LABEL: void scalars_grad(double x, double y, double *_d_x, double *_d_y) {
// CHECK-NOT: delete
// CHECK-LABEL: void scalars_hvp(

double localSize(double x, double y) {
  int n = 3;
  double *t = new double[n];
  for (int i = 0; i < n; ++i)
    t[i] = x * (i + 1) + y * y;
  double s = t[0] * t[1] + sqrt(t[2]);
  delete[] t;
  return s;
}
// CHECK-LABEL: double localSize_darg0(double x, double y) {
// CHECK: double t[3];
// CHECK-NOT: delete
// CHECK-LABEL: double localSize_darg1(double x, double y) {
// CHECK-LABEL: void localSize_grad(double x, double y, double *_d_x, double *_d_y) {
// CHECK-LABEL: void localSize_hvp(

int main() {
  mt::RandomInputs Rng;
  checkAll("scalars", scalars, meshad::differentiate(scalars, "x"),
           meshad::differentiate(scalars, "y"),
           meshad::gradient(scalars, "x, y"), meshad::hvp(scalars, "x, y"),
           Rng, 0.2, 1);
  checkAll("localSize", localSize, meshad::differentiate(localSize, "x"),
           meshad::differentiate(localSize, "y"),
           meshad::gradient(localSize, "x, y"),
           meshad::hvp(localSize, "x, y"), Rng, 0.2, 1);
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
