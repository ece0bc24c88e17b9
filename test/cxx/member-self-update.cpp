// A store to a struct member or a double3 component whose value reads the
// same object (`p.a = p.a * p.b`, `v.x = v.x * v.y + v.z`): reverse mode
// must reset the member's adjoint before adding the value's adjoints into
// it (it once reset it after, and the gradient lost the member's own
// contribution: a silent wrong derivative found by the corpus,
// clad_gr_struct_members_active). Reverse mode and HVPs against central
// differences (forward mode alongside).
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "NumericCheck.h"
#include "TwoInputChecks.h"
#include <cmath>
#include <meshad/Differentiator.h>

namespace mt = meshad::test;

struct Pair {
  double a, b;
  double prod() const { return a * b; }
};

double pairUpdate(double x, double y) {
  Pair p{x, y};
  p.a = p.a * p.b;
  p.b = sin(p.b) * p.a;
  return p.prod() + p.a;
}
// CHECK-LABEL: void pairUpdate_grad(double x, double y, double *_d_x, double *_d_y) {
// CHECK: p.a = _t{{[0-9]+}};
// CHECK-NEXT: double [[R:_r[0-9]+]] = _d_p.a;
// CHECK-NEXT: _d_p.a = 0.;
// CHECK-NEXT: _d_p.a += [[R]] * p.b;

double vecUpdate(double x, double y) {
  double3 v = make_double3(x, y, x * y);
  v.x = v.x * v.y + v.z;
  v.y = v.y * v.x;
  return v.x * v.y + v.z;
}
// CHECK-LABEL: void vecUpdate_grad(double x, double y, double *_d_x, double *_d_y) {

int main() {
  mt::RandomInputs Rng;
  checkAll("pairUpdate", pairUpdate, meshad::differentiate(pairUpdate, "x"),
           meshad::differentiate(pairUpdate, "y"),
           meshad::gradient(pairUpdate, "x, y"),
           meshad::hvp(pairUpdate, "x, y"), Rng);
  checkAll("vecUpdate", vecUpdate, meshad::differentiate(vecUpdate, "x"),
           meshad::differentiate(vecUpdate, "y"),
           meshad::gradient(vecUpdate, "x, y"),
           meshad::hvp(vecUpdate, "x, y"), Rng);
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
