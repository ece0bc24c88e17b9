// Fuzzer finding (seed 1, program 73 of fuzz-smoke.test once the generator
// made struct-methods programs; a CRASH): a callee that overwrites its
// caller's memory runs as a recording variant (`h1_record`, each store's
// old value logged in the caller's meshad::UndoLog). It passed the address
// of its own parameter k to a reference helper, whose recording variant
// logged &k into the caller's log: restoring it wrote into a dead stack
// frame (a crash, or a silently wrong gradient). Fixed: a call that writes
// only the recording function's own locals is not recorded; one that may
// write both its locals and its caller's memory is an error.
//
// RUN: %clangxx -std=c++17 -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%I -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s --check-prefix=GEN < %t.dump
// RUN: %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

void halve(double &acc, double s) { acc = 0.5 * acc + 0.5 * sin(s); }
double h1(double *arr, double k) {
  halve(k, arr[0]);
  arr[0] = k * arr[1];
  return k * arr[0];
}
double f(double *a) {
  double e = h1(a, a[1] * a[2]);
  return e * a[0] + a[1];
}
// GEN-LABEL: double h1_record(double *arr, double k, meshad::UndoLog *_undo) {
// GEN-NEXT: halve(k, arr[0]);
// GEN-NOT: halve_record
// GEN: meshad::undoRecord(_undo, &arr[0]);

int main() {
  meshad::test::RandomInputs Rng;
  auto g = meshad::gradient(f, "a");
  for (int T = 0; T < 4; ++T) {
    double A[3], G[3] = {};
    Rng.fill(A, 3, -1, 1);
    double Copy[3] = {A[0], A[1], A[2]}; // f overwrites a[0]
    g.execute(Copy, G);
    for (int I = 0; I < 3; ++I) {
      double Fd = meshad::test::centralDifferenceAt([&] {
        double B[3] = {A[0], A[1], A[2]};
        return f(B);
      }, A, I);
      MESHAD_CHECK_CLOSE("df/da", G[I], Fd);
    }
  }
  return meshad::test::summary();
}
