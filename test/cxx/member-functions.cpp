// Member functions of plain structs and operators written as members
// (issue 13): `a.dot(b)`, `v.norm()` calling another member on `*this`,
// `a + b`, `v * s`, `v[i]`, `a.cross(b)` returning a struct, `c += n` and
// `c.scale(s)` updating the object. The lowering inlines them into the
// caller (Lower/LowerInline.cpp), so every mode differentiates plain code:
// forward mode, reverse mode and HVPs against central differences.
//
// RUN: %clangxx -std=c++17 -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%I -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

namespace mt = meshad::test;

struct Vec3 {
  double x, y, z;
  double dot(const Vec3 &o) const { return x * o.x + y * o.y + z * o.z; }
  double norm() const { return sqrt(dot(*this)); }
  Vec3 operator+(const Vec3 &o) const { return {x + o.x, y + o.y, z + o.z}; }
  Vec3 operator-(const Vec3 &o) const {
    return Vec3{x - o.x, y - o.y, z - o.z};
  }
  Vec3 operator*(double s) const { return {x * s, y * s, z * s}; }
  double operator[](int i) const { return i == 0 ? x : (i == 1 ? y : z); }
  Vec3 cross(const Vec3 &o) const {
    Vec3 r;
    r.x = y * o.z - z * o.y;
    r.y = z * o.x - x * o.z;
    r.z = x * o.y - y * o.x;
    return r;
  }
  void scale(double s) {
    x *= s;
    y *= s;
    z *= s;
  }
  Vec3 &operator+=(const Vec3 &o) {
    x += o.x;
    y += o.y;
    z += o.z;
    return *this;
  }
};

double dotNorm(double x, double y, double z) {
  Vec3 a{x, y * z, 1.5};
  return a.dot(a) * a.norm();
}

double methods(double x, double y, double z) {
  Vec3 a{x, y * z, 1.5};
  Vec3 b = {z, x, y};
  Vec3 c = a + b * 2.0;
  Vec3 n = a.cross(b);
  c += n;
  c.scale(x);
  double s = 0;
  for (int i = 0; i < 3; ++i)
    s += c[i] * a[i];
  return s + n.norm() * (a - b).dot(c);
}

// `a.dot(a) * a.norm()`: both bodies in place of the calls.
// CHECK-LABEL: double dotNorm_darg0(double x, double y, double z) {
// CHECK: double _t2 = sqrt(a.x * a.x + a.y * a.y + a.z * a.z);
// CHECK-LABEL: void dotNorm_grad(double x, double y, double z, double *_d_x, double *_d_y, double *_d_z) {
// CHECK-LABEL: void dotNorm_hvp(
// A struct result is written member by member into the variable it
// initializes; `c += n` and `c.scale(x)` update c.
// CHECK-LABEL: double methods_darg0(double x, double y, double z) {
// CHECK: Vec3 o;
// CHECK: o.x = b.x * 2.0;
// CHECK: c.x = a.x + o.x;
// CHECK: r.x = a.y * b.z - a.z * b.y;
// CHECK: n.x = r.x;
// CHECK: c.x += n.x;
// CHECK: double s_2 = x;
// CHECK: c.x *= s_2;
// CHECK: (i == 0 ? c.x : i == 1 ? c.y : c.z)
// CHECK-LABEL: double methods_darg1(
// CHECK-LABEL: double methods_darg2(
// CHECK-LABEL: void methods_grad(double x, double y, double z, double *_d_x, double *_d_y, double *_d_z) {
// CHECK-LABEL: void methods_hvp(

/// Forward, reverse and HVP of a function of 3 scalars against central
/// differences (of the function, then of its gradient along V).
template <class F, class Fwd, class Grad, class Hvp>
void check3(const char *Name, F Fn, Fwd Forward, Grad Gradient, Hvp HessVec,
            mt::RandomInputs &Rng) {
  for (int Trial = 0; Trial < 4; ++Trial) {
    double X[3], V[3];
    Rng.fill(X, 3, -1.2, 1.2);
    Rng.fill(V, 3, -1.0, 1.0);
    double G[3] = {}, H[3] = {};
    Gradient(X, G);
    HessVec(X, V, H);
    for (int I = 0; I < 3; ++I) {
      double Fd = mt::centralDifferenceAt([&] { return Fn(X); }, X, I);
      std::string Tag = std::string(Name) + "[" + std::to_string(I) + "]";
      MESHAD_CHECK_CLOSE(("fwd " + Tag).c_str(), Forward(I, X), Fd);
      MESHAD_CHECK_CLOSE(("rev " + Tag).c_str(), G[I], Fd);
      double Hd = mt::centralDifference(
          [&](double T) {
            double XT[3], GT[3] = {};
            for (int K = 0; K < 3; ++K)
              XT[K] = X[K] + T * V[K];
            Gradient(XT, GT);
            return GT[I];
          },
          0.0);
      MESHAD_CHECK_CLOSE(("hvp " + Tag).c_str(), H[I], Hd);
    }
  }
}

/// The three directional derivatives, the gradient and the HVP handles of
/// a function of (x, y, z), checked by check3.
template <class F, class D, class Gr, class Hv>
void checkHandles(const char *Name, F Fn, D &D0, D &D1, D &D2, Gr &G, Hv &H,
                  mt::RandomInputs &Rng) {
  check3(
      Name, [&](double *X) { return Fn(X[0], X[1], X[2]); },
      [&](int I, double *X) {
        auto &Di = I == 0 ? D0 : I == 1 ? D1 : D2;
        return Di.execute(X[0], X[1], X[2]);
      },
      [&](double *X, double *Out) {
        G.execute(X[0], X[1], X[2], &Out[0], &Out[1], &Out[2]);
      },
      [&](double *X, double *V, double *Out) {
        H.execute(X[0], X[1], X[2], V[0], V[1], V[2], &Out[0], &Out[1],
                  &Out[2]);
      },
      Rng);
}

int main() {
  mt::RandomInputs Rng;
  auto a0 = meshad::differentiate(dotNorm, "x");
  auto a1 = meshad::differentiate(dotNorm, "y");
  auto a2 = meshad::differentiate(dotNorm, "z");
  auto ag = meshad::gradient(dotNorm, "x, y, z");
  auto ah = meshad::hvp(dotNorm, "x, y, z");
  checkHandles("dotNorm", dotNorm, a0, a1, a2, ag, ah, Rng);
  auto b0 = meshad::differentiate(methods, "x");
  auto b1 = meshad::differentiate(methods, "y");
  auto b2 = meshad::differentiate(methods, "z");
  auto bg = meshad::gradient(methods, "x, y, z");
  auto bh = meshad::hvp(methods, "x, y, z");
  checkHandles("methods", methods, b0, b1, b2, bg, bh, Rng);
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 72 passed, 0 failed
