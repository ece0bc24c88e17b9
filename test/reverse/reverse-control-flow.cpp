// Reverse mode through if/else chains, ?:, early returns, for/while/do loops
// with break and continue, loops whose trip count is only known at run time,
// and branches inside loops: the reverse sweep must replay the branches and
// iterations that the forward sweep took.
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
    r = y * y * x;
  r += x < 0.5 ? x * x : exp(y) * x;
  return r;
}
// CHECK-LABEL: void branches_grad(double x, double y, double *_d_x, double *_d_y) {

double earlyReturn(double x, double y) {
  if (x < 0)
    return -x * y;
  double t = x * x;
  if (t > 4)
    return t * y;
  return t + sin(y) * x;
}
// CHECK-LABEL: void earlyReturn_grad(double x, double y, double *_d_x, double *_d_y) {

// A run-time trip count, continue, and a data-dependent break.
double loops(double x, int n) {
  double acc = 1;
  for (int i = 0; i < n; ++i) {
    if (i == 3)
      continue;
    acc = acc * x + i;
    if (acc > 1e6 || i == 7)
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
// CHECK-LABEL: void loops_grad(double x, int n, double *_d_x) {

// Branches inside a loop whose outcome changes from iteration to iteration.
double branchyLoop(double x, double y, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) {
    double t = x + 0.37 * i;
    if (i % 2 == 0)
      s += t * y;
    else if (t > 1.0)
      s += sin(t) * y * y;
    else
      s -= t * t;
  }
  return s;
}
// CHECK-LABEL: void branchyLoop_grad(double x, double y, int n, double *_d_x, double *_d_y) {

// Nested loops with a run-time inner bound that depends on the outer index.
double triangleSum(double x, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j <= i; ++j)
      s += cos(x * (j + 1)) / (i + 1);
  return s;
}
// CHECK-LABEL: void triangleSum_grad(double x, int n, double *_d_x) {

int main() {
  using meshad::test::centralDifference;
  meshad::test::RandomInputs Rng;
  auto gb = meshad::gradient(branches, "x, y");
  auto ge = meshad::gradient(earlyReturn, "x, y");
  auto gl = meshad::gradient(loops, "x");
  auto gy = meshad::gradient(branchyLoop, "x, y");
  auto gt = meshad::gradient(triangleSum, "x");
  for (int I = 0; I < 20; ++I) {
    // x covers every branch; keep it 0.05 away from each switching point.
    double X = Rng.uniform(-2, 3), Y = Rng.uniform(-1, 1.5);
    if (std::fabs(X - Y) < 0.05 || std::fabs(X) < 0.05 ||
        std::fabs(X - 0.5) < 0.05 || std::fabs(X - 2) < 0.05)
      X += 0.2;
    double DX = 0, DY = 0;
    gb.execute(X, Y, &DX, &DY);
    MESHAD_CHECK_CLOSE("d branches/dx", DX,
        centralDifference([&](double V) { return branches(V, Y); }, X));
    MESHAD_CHECK_CLOSE("d branches/dy", DY,
        centralDifference([&](double V) { return branches(X, V); }, Y));

    DX = 0, DY = 0;
    ge.execute(X, Y, &DX, &DY);
    MESHAD_CHECK_CLOSE("d earlyReturn/dx", DX,
        centralDifference([&](double V) { return earlyReturn(V, Y); }, X));
    MESHAD_CHECK_CLOSE("d earlyReturn/dy", DY,
        centralDifference([&](double V) { return earlyReturn(X, V); }, Y));

    // Trip counts 0..9 at run time: the loop breaks at i == 7 for n > 8
    // (x in (0.3, 1.2) keeps acc far below 1e6).
    int N = I % 10;
    double XL = Rng.uniform(0.3, 1.2);
    double DL = 0;
    gl.execute(XL, N, &DL);
    MESHAD_CHECK_CLOSE("d loops/dx", DL,
        centralDifference([&](double V) { return loops(V, N); }, XL));

    // t = x + 0.37 i crosses 1.0 somewhere for x in (0, 1): keep away from
    // the crossing.
    double XB = Rng.uniform(0, 1);
    for (int J = 0; J < 8; ++J)
      if (std::fabs(XB + 0.37 * J - 1.0) < 0.02)
        XB += 0.05;
    DX = 0, DY = 0;
    gy.execute(XB, Y, 8, &DX, &DY);
    MESHAD_CHECK_CLOSE("d branchyLoop/dx", DX,
        centralDifference([&](double V) { return branchyLoop(V, Y, 8); }, XB));
    MESHAD_CHECK_CLOSE("d branchyLoop/dy", DY,
        centralDifference([&](double V) { return branchyLoop(XB, V, 8); }, Y));

    double DT = 0;
    gt.execute(X, 2 + I % 5, &DT);
    MESHAD_CHECK_CLOSE("d triangleSum/dx", DT,
        centralDifference([&](double V) { return triangleSum(V, 2 + I % 5); }, X));
  }
  return meshad::test::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 160 passed, 0 failed
