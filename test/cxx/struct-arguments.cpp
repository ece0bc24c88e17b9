// Structs holding derivative-carrying values passed to and returned from
// functions (issue 13): a `Particle` by value and by const reference, a
// struct returned by value (built member by member, from a brace list, or
// returned by another such call), a struct updated through a reference
// parameter, struct copies and assignments. Such calls are lowered into
// their callers and struct copies member by member (Lower/LowerInline.cpp,
// Lower/LowerStructs.cpp). Forward mode, reverse mode and HVPs against
// central differences.
//
// RUN: %clangxx -std=c++17 -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%I -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

namespace mt = meshad::test;

struct Particle {
  double x, v;
};
struct Spring {
  Particle a, b;
  double k;
};

Particle step(Particle p, double dt) {
  Particle q;
  q.v = p.v - dt * p.x * p.x * p.x;
  q.x = p.x + dt * q.v;
  return q;
}
double energy(const Particle &p) {
  return 0.5 * p.v * p.v + 0.25 * p.x * p.x * p.x * p.x;
}
Particle mirror(const Particle &p) { return {-p.x, p.v * p.v}; }
Particle twice(Particle p, double dt) { return step(step(p, dt), dt); }
void kick(Particle &p, double f) { p.v += f * sin(p.x); }
double springEnergy(const Spring &s) {
  double d = s.b.x - s.a.x;
  return s.k * d * d + energy(s.a) + energy(s.b);
}

// The element `slot` names is the one of the call, though the callee
// changes k first.
void record(const Particle &p, int &k, double &slot) {
  ++k;
  slot += p.x * p.v;
}

double simulate(double x, double y, double z) {
  Particle p{x, y};
  for (int i = 0; i < 3; ++i)
    p = step(p, 0.1 * z);
  Particle q = twice(mirror(p), 0.05);
  kick(q, z);
  Particle r = q;
  r.x *= y;
  double acc[2] = {0.5, 0.25};
  int k = 0;
  record(p, k, acc[k]);
  record(r, k, acc[k]);
  return energy(p) + energy(r) * x + acc[0] * acc[1];
}

double springs(double x, double y, double z) {
  Spring s{{x, y}, {z, x * y}, 0.5 + z * z};
  Spring t = s;
  t.a = step(s.b, 0.1);
  kick(t.b, x);
  return springEnergy(s) * springEnergy(t);
}
// `p = step(p, dt)`: step's value parameter names p (step does not change
// it), its result goes into a temporary, copied into p member by member.
// CHECK-LABEL: double simulate_darg0(double x, double y, double z) {
// CHECK: Particle _t0;
// CHECK: double dt = 0.1 * z;
// CHECK: q_1.v = p.v - _t4 * p.x;
// CHECK: _t0.x = q_1.x;
// CHECK: p.x = _t0.x;
// CHECK: int _i0 = k;
// CHECK-NEXT: ++k;
// CHECK: acc[_i0] += p.x * p.v;
// CHECK-LABEL: double simulate_darg1(
// CHECK-LABEL: double simulate_darg2(
// CHECK-LABEL: void simulate_grad(double x, double y, double z, double *_d_x, double *_d_y, double *_d_z) {
// CHECK-LABEL: void simulate_hvp(
// CHECK-LABEL: double springs_darg0(double x, double y, double z) {
// CHECK: s.a.x = x;
// CHECK: s.b.v = x * y;
// CHECK: t.a.x = s.a.x;
// CHECK-LABEL: double springs_darg1(
// CHECK-LABEL: double springs_darg2(
// CHECK-LABEL: void springs_grad(double x, double y, double z, double *_d_x, double *_d_y, double *_d_z) {
// CHECK-LABEL: void springs_hvp(

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
  auto a0 = meshad::differentiate(simulate, "x");
  auto a1 = meshad::differentiate(simulate, "y");
  auto a2 = meshad::differentiate(simulate, "z");
  auto ag = meshad::gradient(simulate, "x, y, z");
  auto ah = meshad::hvp(simulate, "x, y, z");
  checkHandles("simulate", simulate, a0, a1, a2, ag, ah, Rng);
  auto b0 = meshad::differentiate(springs, "x");
  auto b1 = meshad::differentiate(springs, "y");
  auto b2 = meshad::differentiate(springs, "z");
  auto bg = meshad::gradient(springs, "x, y, z");
  auto bh = meshad::hvp(springs, "x, y, z");
  checkHandles("springs", springs, b0, b1, b2, bg, bh, Rng);
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 72 passed, 0 failed
