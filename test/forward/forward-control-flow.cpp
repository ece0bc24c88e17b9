// Forward mode through if/else, ?:, for/while/do loops with break and
// continue, and early returns.
//
// RUN: %clangxx -std=c++17 -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%I -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

double branches(double x, double y) {
  double r = 0;
  if (x > y)
    r = x * y;
  else if (x > 0)
    r = sin(x) - y;
  else
    r = y * y;
  r += x < 0.5 ? x * x : exp(y);
  return r;
}
// CHECK-LABEL: double branches_darg0(double x, double y) {
// CHECK: if (x > y) {
// CHECK: } else if (x >

double loops(double x, int n) {
  double acc = 1;
  for (int i = 0; i < n; ++i) {
    if (i == 3)
      continue;
    acc = acc * x + i;
    if (acc > 1e6)
      break;
  }
  int k = 0;
  while (k < 3) {
    acc += sin(acc * x);
    ++k;
  }
  do {
    acc = acc / (1 + x * x);
    k--;
  } while (k > 0);
  return acc;
}
// CHECK-LABEL: double loops_darg0(double x, int n) {
// CHECK: for (int i = 0; i < n; ++i) {
// CHECK: continue;
// CHECK: break;
// CHECK: while (k < 3) {
// CHECK: do {

double earlyReturn(double x, double y) {
  if (x < 0)
    return -x * y;
  double t = x * x;
  if (t > 4)
    return t * y;
  return t + y;
}
// CHECK-LABEL: double earlyReturn_darg1(double x, double y) {

int main() {
  meshad::test::RandomInputs Rng;
  auto db = meshad::differentiate(branches, "x");
  auto dl = meshad::differentiate(loops, "x");
  auto de = meshad::differentiate(earlyReturn, "y");
  for (int I = 0; I < 30; ++I) {
    double X = Rng.uniform(-3, 3), Y = Rng.uniform(-3, 3);
    // Stay away from branch switches, where the function is not smooth.
    if (std::fabs(X - Y) < 0.01 || std::fabs(X) < 0.01 || std::fabs(X - 0.5) < 0.01 ||
        std::fabs(X * X - 4) < 0.05)
      continue;
    MESHAD_CHECK_CLOSE("d branches/dx", db.execute(X, Y),
        meshad::test::centralDifference([&](double V) { return branches(V, Y); }, X));
    double XL = Rng.uniform(0.2, 0.9);
    MESHAD_CHECK_CLOSE("d loops/dx", dl.execute(XL, 7),
        meshad::test::centralDifference([&](double V) { return loops(V, 7); }, XL));
    MESHAD_CHECK_CLOSE("d earlyReturn/dy", de.execute(X, Y),
        meshad::test::centralDifference([&](double V) { return earlyReturn(X, V); }, Y));
  }
  return meshad::test::summary();
}
// NUM-NOT: FAIL
// NUM: PASS d branches/dx
// NUM: PASS d loops/dx
// NUM: PASS d earlyReturn/dy
