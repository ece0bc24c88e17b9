// Non-const references (issue 13): reference parameters of callees that are
// read and written (the IR passes them as pointers; the generated code
// spells them as references: `double &acc`, `acc += ...`, calls with the
// object itself), references to locals, array elements
// and other references (aliases: every use names the object; an index the
// code after the declaration changes is copied first). Forward mode, reverse
// mode and HVPs against central differences.
//
// RUN: %clangxx -std=c++17 -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%I -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

namespace mt = meshad::test;

void update(double &acc, double x) { acc += x * x; }
void scaleBoth(double &a, double &b, double s) {
  a *= s;
  b = b * s + a;
}
void advance(int &k) { k += 2; }

double refParams(double x, double y) {
  double acc = 0;
  update(acc, x);
  update(acc, y * x);
  double u = x, v = sin(y);
  scaleBoth(u, v, y);
  int k = 1;
  advance(k);
  return acc * u + v * k;
}

double refLocals(double x, double y, double z) {
  double a[4] = {x, y, y * z, z};
  double s = 0;
  for (int i = 0; i < 4; ++i) {
    double &r = a[i];
    r *= x;
    r += a[(i + 1) % 4];
    s += r * r;
  }
  int j = 1;
  double &e = a[j];
  j = 3; // e still names a[1]
  e = e * a[j];
  double &t = s;
  t += e;
  double &w = t;
  w *= y;
  return s;
}

void accumulate(double &acc, double v) {
  update(acc, v);
  acc *= 0.5 + v;
}
double refArgs(double x, double y) {
  double b[3] = {x, y, x * y};
  for (int i = 0; i < 3; ++i)
    accumulate(b[i], x + i);
  double &r = b[2];
  update(r, y);
  return b[0] * b[1] + b[2];
}

// A parameter passed on by reference: its adjoint lives in a local and is
// added to what the caller's adjoint held (the fuzzer found the seed scaled
// by the callee's pullback, seed 11 program 27; `h(&x)` too).
void halve(double &acc, double s) { acc = 0.5 * acc + 0.5 * s; }
double refToParam(double x, double y) {
  halve(x, y);
  return x * x * y;
}

// CHECK-LABEL: double refParams_darg0(double x, double y) {
// CHECK: update_pushforward(acc, x, _d_acc, 1.);
// CHECK: scaleBoth_pushforward_0_1(u, v, y, _d_u, _d_v);
// CHECK: advance(k);
// CHECK-LABEL: void update_pushforward(double &acc, double x, double &_d_acc, double _d_x) {
// CHECK-NEXT: _d_acc += 2. * _d_x * x;
// CHECK-NEXT: acc += x * x;
// CHECK-LABEL: void refParams_grad(double x, double y, double *_d_x, double *_d_y) {
// CHECK: update(acc, x);
// CHECK: update_pullback(acc, y * x, _d_acc, &_r1);
// CHECK-LABEL: void update_pullback(double &acc, double x, double &_d_acc, double *_d_x) {
// CHECK-NEXT: acc += x * x;
// CHECK-NEXT: double _r0 = _d_acc;
// CHECK-LABEL: void refParams_hvp(double x, double y, double _d2_x, double _d2_y, double *_d2_d_x, double *_d2_d_y) {
// CHECK: update_pullback_pushforward(acc, y * x, _d_acc, &_r1, _d2_acc, _d2_y * x + y * _d2_x, _d2_d_acc, &_d2_r1);
// CHECK-LABEL: void update_pullback_pushforward(double &acc, double x, double &_d_acc, double *_d_x, double &_d2_acc, double _d2_x, double &_d2_d_acc, double *_d2_d_x) {
// CHECK-LABEL: double refLocals_darg0(double x, double y, double z) {
// CHECK: _d_a[i] = _d_a[i] * x + a[i];
// CHECK-NEXT: a[i] *= x;
// CHECK: int _i0 = j;
// CHECK-NEXT: j = 3;
// CHECK-NEXT: _d_a[_i0] = _d_a[_i0] * a[j] + a[_i0] * _d_a[j];
// CHECK-LABEL: void refLocals_grad(double x, double y, double z, double *_d_x, double *_d_y, double *_d_z) {
// CHECK-LABEL: void refLocals_hvp(double x, double y, double z, double _d2_x, double _d2_y, double _d2_z, double *_d2_d_x, double *_d2_d_y, double *_d2_d_z) {
// CHECK-LABEL: double refArgs_darg0(double x, double y) {
// CHECK: accumulate_pushforward(b[i], x + (double)i, _d_b[i], 1.);
// CHECK: update_pushforward_0(b[2], y, _d_b[2]);
// CHECK-LABEL: void accumulate_pushforward(double &acc, double v, double &_d_acc, double _d_v) {
// CHECK-NEXT: update_pushforward(acc, v, _d_acc, _d_v);
// CHECK-LABEL: void refArgs_grad(double x, double y, double *_d_x, double *_d_y) {
// CHECK: accumulate(b[i], x + (double)i);
// CHECK: update(b[2], y);
// CHECK-LABEL: void accumulate_pullback_local0(double &acc, double v, double &_d_acc, double *_d_v) {
// CHECK: update_record(acc, v, &_undo0);
// CHECK: _d_acc = _r1 * (0.5 + v);
// CHECK: update_pullback(acc, v, _d_acc, &_r0);
// CHECK-LABEL: void refToParam_grad(double x, double y, double *_d_x, double *_d_y) {
// CHECK-NEXT: double _d_x_local = 0.;
// CHECK: halve_pullback(x, y, _d_x_local, &_r0);
// CHECK: *_d_x += _d_x_local;

/// Forward, reverse and HVP of a function of N scalars against central
/// differences (of the function, then of its gradient along V).
template <int N, class F, class Fwd, class Grad, class Hvp>
void checkAll(const char *Name, F Fn, Fwd Forward, Grad Gradient, Hvp HessVec,
              mt::RandomInputs &Rng) {
  for (int Trial = 0; Trial < 4; ++Trial) {
    double X[N], V[N];
    Rng.fill(X, N, -1.2, 1.2);
    Rng.fill(V, N, -1.0, 1.0);
    double G[N] = {}, H[N] = {};
    Gradient(X, G);
    HessVec(X, V, H);
    for (int I = 0; I < N; ++I) {
      double Fd = mt::centralDifferenceAt([&] { return Fn(X); }, X, I);
      std::string Tag = std::string(Name) + "[" + std::to_string(I) + "]";
      MESHAD_CHECK_CLOSE(("fwd " + Tag).c_str(), Forward(I, X), Fd);
      MESHAD_CHECK_CLOSE(("rev " + Tag).c_str(), G[I], Fd);
      double Hd = mt::centralDifference(
          [&](double T) {
            double XT[N], GT[N] = {};
            for (int K = 0; K < N; ++K)
              XT[K] = X[K] + T * V[K];
            Gradient(XT, GT);
            return GT[I];
          },
          0.0);
      MESHAD_CHECK_CLOSE(("hvp " + Tag).c_str(), H[I], Hd);
    }
  }
}

int main() {
  mt::RandomInputs Rng;
  auto p0 = meshad::differentiate(refParams, "x");
  auto p1 = meshad::differentiate(refParams, "y");
  auto pg = meshad::gradient(refParams, "x, y");
  auto ph = meshad::hvp(refParams, "x, y");
  checkAll<2>(
      "refParams", [](double *X) { return refParams(X[0], X[1]); },
      [&](int I, double *X) {
        return (I == 0 ? p0 : p1).execute(X[0], X[1]);
      },
      [&](double *X, double *G) { pg.execute(X[0], X[1], &G[0], &G[1]); },
      [&](double *X, double *V, double *H) {
        ph.execute(X[0], X[1], V[0], V[1], &H[0], &H[1]);
      },
      Rng);

  auto l0 = meshad::differentiate(refLocals, "x");
  auto l1 = meshad::differentiate(refLocals, "y");
  auto l2 = meshad::differentiate(refLocals, "z");
  auto lg = meshad::gradient(refLocals, "x, y, z");
  auto lh = meshad::hvp(refLocals, "x, y, z");
  checkAll<3>(
      "refLocals", [](double *X) { return refLocals(X[0], X[1], X[2]); },
      [&](int I, double *X) {
        auto &D = I == 0 ? l0 : I == 1 ? l1 : l2;
        return D.execute(X[0], X[1], X[2]);
      },
      [&](double *X, double *G) {
        lg.execute(X[0], X[1], X[2], &G[0], &G[1], &G[2]);
      },
      [&](double *X, double *V, double *H) {
        lh.execute(X[0], X[1], X[2], V[0], V[1], V[2], &H[0], &H[1], &H[2]);
      },
      Rng);

  // refArgs's callee passes its reference on to a callee that writes it:
  // forward and reverse mode (its HVP is an error, cxx/diagnostics.cpp).
  auto a0 = meshad::differentiate(refArgs, "x");
  auto a1 = meshad::differentiate(refArgs, "y");
  auto ag = meshad::gradient(refArgs, "x, y");
  checkAll<2>(
      "refArgs", [](double *X) { return refArgs(X[0], X[1]); },
      [&](int I, double *X) {
        return (I == 0 ? a0 : a1).execute(X[0], X[1]);
      },
      [&](double *X, double *G) { ag.execute(X[0], X[1], &G[0], &G[1]); },
      [&](double *X, double *V, double *H) {
        // The HVP of the reference: central differences of the gradient.
        for (int I = 0; I < 2; ++I)
          H[I] = mt::centralDifference(
              [&](double T) {
                double XT[2] = {X[0] + T * V[0], X[1] + T * V[1]}, G[2] = {};
                ag.execute(XT[0], XT[1], &G[0], &G[1]);
                return G[I];
              },
              0.0);
      },
      Rng);
  auto tg = meshad::gradient(refToParam, "x, y");
  for (int Trial = 0; Trial < 3; ++Trial) {
    double X = Rng.uniform(-1, 1), Y = Rng.uniform(0.5, 1.5);
    double GX = 0.5, GY = 0.25; // adjoints accumulate into these
    tg.execute(X, Y, &GX, &GY);
    MESHAD_CHECK_CLOSE("refToParam d/dx (seeded)", GX - 0.5,
                       mt::centralDifference(
                           [&](double T) { return refToParam(T, Y); }, X));
    MESHAD_CHECK_CLOSE("refToParam d/dy (seeded)", GY - 0.25,
                       mt::centralDifference(
                           [&](double T) { return refToParam(X, T); }, Y));
  }
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
