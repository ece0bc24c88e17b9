// Callees that overwrite the caller's memory. A pullback runs its callee's
// forward sweep again, from the memory as it was before the call, and
// leaves behind what that run wrote: the caller restores what the callee
// overwrites before the pullback and again after it, also when the call's
// result is unused, in loops (from tapes) and for `&v` of a local scalar.
// Issue 9: a call whose result initialised an unused local was dropped, a
// callee's writes were replayed over values the caller read before the
// call, and `double o[1]; h(v, o); v = k * o[0];` twice gave 16, not 12.
//
// RUN: %clangxx -std=c++17 -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%I -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: FileCheck %s --check-prefix=FWD < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
// The code as the transformer builds it (before the simplifier):
// RUN: %clangxx -std=c++17 -fsyntax-only -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -fplugin-arg-meshad-no-simplify -I%I -I%test_inputs %s 2> %t.raw.dump
// RUN: FileCheck %s --check-prefix=RAW < %t.raw.dump
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

double squareFirst(double *arr) {
  arr[0] = arr[0] * arr[0];
  return 1.0;
}

// The call's value is unused; its write is not.
double unusedResult(double x) {
  double arr[2] = {x, 1};
  double temp = squareFirst(arr);
  return arr[0] + arr[1];
}
// FWD-LABEL: double unusedResult_darg0(double x) {
// FWD: squareFirst_pushforward(arr, _d_arr);
// FWD-NEXT: return _d_arr[0] + _d_arr[1];
// RAW-LABEL: double unusedResult_darg0(double x) {
// RAW: squareFirst_pushforward(arr, _d_arr);
// RAW-NEXT: double temp = _t0.value;
// CHECK-LABEL: void unusedResult_grad(double x, double *_d_x) {
// CHECK: temp = squareFirst(arr);
// CHECK: squareFirst_pullback{{.*}}(arr, 0., _d_arr);

// The caller reads a[0] before the call overwrites it.
double readBefore(double x) {
  double a[2] = {x, 2 * x};
  double y = x * a[0];
  squareFirst(a);
  return y + a[0] * a[1];
}

// The callee only writes o; the caller reads o[0] in each iteration.
void h(double v, double *o) { o[0] = v * v + 1; }
double twice(double v, double k) {
  for (int i = 0; i < 2; ++i) {
    double o[1];
    h(v, o);
    v = k * o[0];
  }
  return v;
}
// CHECK-LABEL: void twice_grad(double v, double k, double *_d_v, double *_d_k) {
// CHECK: meshad::pop(
// CHECK: h_pullback{{.*}}(v, o, 

// Memory of unknown size (the caller's own pointer parameter) that callees
// overwrite in place and read: the forward sweep calls recording variants
// that log each overwritten element, and the reverse sweep rolls the log
// back around each pullback. Nested callees and loops too.
void relax(double *v, int n) {
  for (int i = 1; i < n; ++i)
    v[i] = 0.5 * (v[i] + sin(v[i - 1]));
}
void relaxTwice(double *v, int n) {
  double *w = v + 1;
  relax(v, n);
  w[0] = w[0] * v[0];
  relax(v, n);
}
double inPlace(double *v, int n, double s) {
  double before = v[1] * s;
  for (int k = 0; k < 3; ++k) {
    relaxTwice(v, n);
    v[0] = v[0] * s;
  }
  return before * v[n - 1] + v[0] * v[1];
}
// CHECK-LABEL: void inPlace_grad(double *v, int n, double s, double *_d_v, double *_d_s) {
// CHECK: meshad::UndoLog _undo0;
// CHECK: relaxTwice_record(v, n, &_undo0);
// CHECK: meshad::undoRestore(_undo0, _mark0);
// CHECK-NEXT: relaxTwice_pullback(v, n, _d_v);
// CHECK-NEXT: meshad::undoTo(_undo0, _mark0);
// CHECK-LABEL: void relaxTwice_record(double *v, int n, meshad::UndoLog *_undo) {
// CHECK: relax_record(v, n, _undo);
// CHECK: meshad::undoRecord(_undo, &w[0]);
// CHECK-LABEL: void relax_record(double *v, int n, meshad::UndoLog *_undo) {
// CHECK: meshad::undoRecord(_undo, &v[i]);

// &v of a local scalar that the callee overwrites.
void scale(double *v, double s) { *v = *v * s; }
double scalarOut(double x, double y) {
  double v = x;
  double before = v * y;
  scale(&v, y);
  return before * v + v * v;
}

int main() {
  using meshad::test::centralDifference;
  using meshad::test::centralDifferenceAt;
  meshad::test::RandomInputs Rng;
  auto gu = meshad::gradient(unusedResult, "x");
  auto fu = meshad::differentiate(unusedResult, "x");
  auto fr = meshad::differentiate(readBefore, "x");
  auto gr = meshad::gradient(readBefore, "x");
  auto gt = meshad::gradient(twice, "v, k");
  auto gs = meshad::gradient(scalarOut, "x, y");
  auto gp = meshad::gradient(inPlace, "v, s");
  // The figures: v = 1, k = 2 gives d/dv = 12 with o = v * v.
  for (int I = 0; I < 6; ++I) {
    double X = Rng.uniform(-1.5, 1.5), Y = Rng.uniform(-1.5, 1.5);
    double DX = 0, DY = 0;
    gu.execute(X, &DX);
    MESHAD_CHECK_CLOSE("unusedResult/dx", DX,
        centralDifference([&](double V) { return unusedResult(V); }, X));
    MESHAD_CHECK_CLOSE("fwd unusedResult/dx", fu.execute(X),
        centralDifference([&](double V) { return unusedResult(V); }, X));
    MESHAD_CHECK_CLOSE("fwd readBefore/dx", fr.execute(X),
        centralDifference([&](double V) { return readBefore(V); }, X));
    DX = 0;
    gr.execute(X, &DX);
    MESHAD_CHECK_CLOSE("readBefore/dx", DX,
        centralDifference([&](double V) { return readBefore(V); }, X));
    DX = 0;
    gt.execute(X, Y, &DX, &DY);
    MESHAD_CHECK_CLOSE("twice/dv", DX,
        centralDifference([&](double V) { return twice(V, Y); }, X));
    MESHAD_CHECK_CLOSE("twice/dk", DY,
        centralDifference([&](double V) { return twice(X, V); }, Y));
    DX = 0, DY = 0;
    gs.execute(X, Y, &DX, &DY);
    MESHAD_CHECK_CLOSE("scalarOut/dx", DX,
        centralDifference([&](double V) { return scalarOut(V, Y); }, X));
    MESHAD_CHECK_CLOSE("scalarOut/dy", DY,
        centralDifference([&](double V) { return scalarOut(X, V); }, Y));

    double V[5], DV[5] = {}, DS = 0;
    Rng.fill(V, 5, -1.5, 1.5);
    double Saved[5];
    for (int K = 0; K < 5; ++K)
      Saved[K] = V[K];
    auto Run = [&] {
      double W[5];
      for (int K = 0; K < 5; ++K)
        W[K] = Saved[K];
      return inPlace(W, 5, Y);
    };
    gp.execute(V, 5, Y, DV, &DS);
    for (int K = 0; K < 5; ++K)
      MESHAD_CHECK_CLOSE("inPlace/dv[k]", DV[K],
                         centralDifferenceAt(Run, Saved, K));
    MESHAD_CHECK_CLOSE("inPlace/ds", DS, centralDifference([&](double S) {
      double W[5];
      for (int K = 0; K < 5; ++K)
        W[K] = Saved[K];
      return inPlace(W, 5, S);
    }, Y));
  }
  return meshad::test::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 84 passed, 0 failed
