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

template <class F, class D0, class D1, class Gr, class H>
void checkAll(const char *Name, F Fn, const D0 &f0, const D1 &f1, const Gr &g,
              const H &h, mt::RandomInputs &Rng) {
  std::string N = Name;
  for (int Trial = 0; Trial < 4; ++Trial) {
    double X = Rng.uniform(0.2, 1), Y = Rng.uniform(0.2, 1);
    double VX = Rng.uniform(-1, 1), VY = Rng.uniform(-1, 1);
    double GX = 0, GY = 0, HX = 0, HY = 0;
    g.execute(X, Y, &GX, &GY);
    double FdX = mt::centralDifference([&](double T) { return Fn(T, Y); }, X);
    double FdY = mt::centralDifference([&](double T) { return Fn(X, T); }, Y);
    MESHAD_CHECK_CLOSE((N + " fwd d/dx").c_str(), f0.execute(X, Y), FdX);
    MESHAD_CHECK_CLOSE((N + " fwd d/dy").c_str(), f1.execute(X, Y), FdY);
    MESHAD_CHECK_CLOSE((N + " rev d/dx").c_str(), GX, FdX);
    MESHAD_CHECK_CLOSE((N + " rev d/dy").c_str(), GY, FdY);
    h.execute(X, Y, VX, VY, &HX, &HY);
    for (int I = 0; I < 2; ++I) {
      double Ref = mt::centralDifference(
          [&](double T) {
            double G[2] = {};
            g.execute(X + T * VX, Y + T * VY, &G[0], &G[1]);
            return G[I];
          },
          0.0);
      MESHAD_CHECK_CLOSE((N + " hvp").c_str(), I == 0 ? HX : HY, Ref);
    }
  }
}

int main() {
  mt::RandomInputs Rng;
  checkAll("scalars", scalars, meshad::differentiate(scalars, "x"),
           meshad::differentiate(scalars, "y"),
           meshad::gradient(scalars, "x, y"), meshad::hvp(scalars, "x, y"),
           Rng);
  checkAll("localSize", localSize, meshad::differentiate(localSize, "x"),
           meshad::differentiate(localSize, "y"),
           meshad::gradient(localSize, "x, y"),
           meshad::hvp(localSize, "x, y"), Rng);
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
