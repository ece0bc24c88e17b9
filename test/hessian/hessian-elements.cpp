// meshad::hessian on host functions: dense row-major Hessians of the local
// energies of simulation elements, in the spec's order, every entry
// written. The lanes' zeros are folded: a structurally zero entry gets no
// add (the initial fill writes it); when every entry's index is a
// constant, only the lower triangle is computed and copied to the upper.
// The FileCheck lines count the adds and the copies. Every Hessian is
// checked against central differences of meshad::gradient on random
// inputs (HessianCheck.h).
//
// RUN: %clangxx -std=c++17 -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%I -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
// NUM-NOT: FAIL
// NUM: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
#include "HessianCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

// Scalars "a, b".
double poly(double a, double b) { return a * a * b + sin(a) * exp(b); }
// CHECK-LABEL: void poly_hessian(double a, double b, double *H) {
// CHECK-NEXT: // Hessian pattern: 2 x 2, 3 unique values
// CHECK-NEXT: {{^  //    v0   v1$}}
// CHECK-NEXT: {{^  //    v1   v2$}}
// CHECK-NEXT: for (int i = 0; i < 4; ++i) {
// CHECK-NEXT: H[i] = 0.;
// CHECK-NOT: H[1] +=
// CHECK: H[1] = H[2];
// CHECK-NEXT: }
// The packed variant writes the 3 values.
// CHECK-LABEL: void poly_hessian_packed(double a, double b, double *vals) {
// CHECK-NEXT: for (int i = 0; i < 3; ++i) {
// CHECK-NEXT: vals[i] = 0.;
// CHECK-NOT: H[
// CHECK: vals[2] +=
// CHECK-NOT: H[
// CHECK: {{^}$}}

// A separable sum: the diagonal only, no copies.
double separable(const double *x) {
  return x[0] * x[0] * x[0] + sin(x[1]) + 2.0 * exp(x[2]) +
         x[3] * x[3] * x[3] * x[3];
}
// CHECK-LABEL: void separable_hessian(const double *x, double *H) {
// CHECK-NEXT: // Hessian pattern: 4 x 4, 4 unique values
// CHECK-NEXT: {{^  //    v0    0    0    0$}}
// CHECK-NEXT: {{^  //     0   v1    0    0$}}
// CHECK-NEXT: {{^  //     0    0   v2    0$}}
// CHECK-NEXT: {{^  //     0    0    0   v3$}}
// CHECK-NOT: {{H\[([1-46-9]|1[1-46-9])\]}}
// CHECK: H[0] +=
// CHECK-NOT: {{H\[([1-46-9]|1[1-46-9])\]}}
// CHECK: H[5] +=
// CHECK-NOT: {{H\[([1-46-9]|1[1-46-9])\]}}
// CHECK: H[10] +=
// CHECK-NOT: {{H\[([1-46-9]|1[1-46-9])\]}}
// CHECK: H[15] +=
// CHECK-NOT: {{H\[([1-46-9]|1[1-46-9])\]}}
// CHECK: {{^}$}}

// A spring between two 3D points: blocks [K -K; -K K] with K symmetric, 6
// unique values: 6 adds, the 30 other entries copied.
double spring(const double *x, double k, double l0) {
  double dx = x[0] - x[3], dy = x[1] - x[4], dz = x[2] - x[5];
  double len = sqrt(dx * dx + dy * dy + dz * dz);
  return 0.5 * k * (len - l0) * (len - l0);
}
// CHECK-LABEL: void spring_hessian_0(const double *x, double k, double l0, double *H) {
// CHECK-NEXT: // Hessian pattern: 6 x 6, 6 unique values
// CHECK-NEXT: {{^  //    v0   v1   v3  -v0  -v1  -v3$}}
// CHECK-NEXT: {{^  //    v1   v2   v4  -v1  -v2  -v4$}}
// CHECK-NEXT: {{^  //    v3   v4   v5  -v3  -v4  -v5$}}
// CHECK-NEXT: {{^  //   -v0  -v1  -v3   v0   v1   v3$}}
// CHECK-NEXT: {{^  //   -v1  -v2  -v4   v1   v2   v4$}}
// CHECK-NEXT: {{^  //   -v3  -v4  -v5   v3   v4   v5$}}
// CHECK-COUNT-6: {{^  H\[(0|6|7|12|13|14)\] \+= }}
// CHECK-NOT: {{^  H\[[0-9]+\] \+= }}
// CHECK: {{^  }}H[1] = H[6];
// CHECK-NEXT: {{^  }}H[2] = H[12];
// CHECK-NEXT: {{^  }}H[3] = -H[0];
// CHECK-COUNT-27: {{^  H\[[0-9]+\] = -?H\[[0-9]+\];}}
// CHECK-NEXT: {{^}$}}
// CHECK-LABEL: void spring_hessian_0_packed(const double *x, double k, double l0, double *vals) {
// CHECK-NEXT: for (int i = 0; i < 6; ++i) {
// CHECK-COUNT-6: {{^  vals\[[0-5]\] \+= }}
// CHECK-NOT: H[
// CHECK: {{^}$}}

// The area of a triangle in 3D (9 x 9): the 36 entries below the diagonal
// are all structurally nonzero.
double triangleArea(const double *x) {
  double ux = x[3] - x[0], uy = x[4] - x[1], uz = x[5] - x[2];
  double vx = x[6] - x[0], vy = x[7] - x[1], vz = x[8] - x[2];
  double cx = uy * vz - uz * vy, cy = uz * vx - ux * vz, cz = ux * vy - uy * vx;
  return 0.5 * sqrt(cx * cx + cy * cy + cz * cz);
}
// CHECK-LABEL: void triangleArea_hessian(const double *x, double *H) {
// CHECK-COUNT-51: {{^  H\[[0-9]+\] \+= }}
// CHECK-NOT: {{^  H\[[0-9]+\] \+= }}
// CHECK-COUNT-36: {{^  H\[[0-9]+\] = H\[[0-9]+\];}}
// CHECK-NEXT: {{^}$}}

// Symmetric Dirichlet on a 2D triangle (6 x 6), rest shape through the
// inverse rest edge matrix Dinv (2 x 2) and the rest area.
double symDirichlet(const double *x, const double *Dinv, double area) {
  double e1x = x[2] - x[0], e1y = x[3] - x[1];
  double e2x = x[4] - x[0], e2y = x[5] - x[1];
  double f00 = e1x * Dinv[0] + e2x * Dinv[2], f01 = e1x * Dinv[1] + e2x * Dinv[3];
  double f10 = e1y * Dinv[0] + e2y * Dinv[2], f11 = e1y * Dinv[1] + e2y * Dinv[3];
  double fro = f00 * f00 + f01 * f01 + f10 * f10 + f11 * f11;
  double det = f00 * f11 - f01 * f10;
  return area * (fro + fro / (det * det));
}
// CHECK-LABEL: void symDirichlet_hessian_0(const double *x, const double *Dinv, double area, double *H) {
// CHECK-COUNT-24: {{^  H\[[0-9]+\] \+= }}
// CHECK-NOT: {{^  H\[[0-9]+\] \+= }}
// CHECK-COUNT-15: {{^  H\[[0-9]+\] = H\[[0-9]+\];}}
// CHECK-NEXT: {{^}$}}

// A neo-Hookean tetrahedron (12 x 12): F = Ds Dinv.
double neoHookean(const double *x, const double *Dinv, double mu,
                  double lambda) {
  double a0 = x[3] - x[0], a1 = x[4] - x[1], a2 = x[5] - x[2];
  double b0 = x[6] - x[0], b1 = x[7] - x[1], b2 = x[8] - x[2];
  double c0 = x[9] - x[0], c1 = x[10] - x[1], c2 = x[11] - x[2];
  double F00 = a0 * Dinv[0] + b0 * Dinv[3] + c0 * Dinv[6];
  double F01 = a0 * Dinv[1] + b0 * Dinv[4] + c0 * Dinv[7];
  double F02 = a0 * Dinv[2] + b0 * Dinv[5] + c0 * Dinv[8];
  double F10 = a1 * Dinv[0] + b1 * Dinv[3] + c1 * Dinv[6];
  double F11 = a1 * Dinv[1] + b1 * Dinv[4] + c1 * Dinv[7];
  double F12 = a1 * Dinv[2] + b1 * Dinv[5] + c1 * Dinv[8];
  double F20 = a2 * Dinv[0] + b2 * Dinv[3] + c2 * Dinv[6];
  double F21 = a2 * Dinv[1] + b2 * Dinv[4] + c2 * Dinv[7];
  double F22 = a2 * Dinv[2] + b2 * Dinv[5] + c2 * Dinv[8];
  double J = F00 * (F11 * F22 - F12 * F21) - F01 * (F10 * F22 - F12 * F20) +
             F02 * (F10 * F21 - F11 * F20);
  double Ic = F00 * F00 + F01 * F01 + F02 * F02 + F10 * F10 + F11 * F11 +
              F12 * F12 + F20 * F20 + F21 * F21 + F22 * F22;
  double logJ = log(J);
  return 0.5 * mu * (Ic - 3.0) - mu * logJ + 0.5 * lambda * logJ * logJ;
}
// CHECK-LABEL: void neoHookean_hessian_0(const double *x, const double *Dinv, double mu, double lambda, double *H) {
// CHECK-COUNT-90: {{^  H\[[0-9]+\] \+= }}
// CHECK-NOT: {{^  H\[[0-9]+\] \+= }}
// CHECK-COUNT-66: {{^  H\[[0-9]+\] = H\[[0-9]+\];}}
// CHECK-NEXT: {{^}$}}

// Dihedral-angle bending of two triangles sharing the edge x0-x1, wings x2
// and x3 (4 vertices, 12 x 12).
double bending(const double *x, double k, double theta0) {
  double ex = x[3] - x[0], ey = x[4] - x[1], ez = x[5] - x[2];
  double ax = x[6] - x[0], ay = x[7] - x[1], az = x[8] - x[2];
  double bx = x[9] - x[0], by = x[10] - x[1], bz = x[11] - x[2];
  double n1x = ey * az - ez * ay, n1y = ez * ax - ex * az, n1z = ex * ay - ey * ax;
  double n2x = by * ez - bz * ey, n2y = bz * ex - bx * ez, n2z = bx * ey - by * ex;
  double cx = n1y * n2z - n1z * n2y, cy = n1z * n2x - n1x * n2z,
         cz = n1x * n2y - n1y * n2x;
  double elen = sqrt(ex * ex + ey * ey + ez * ez);
  double s = (cx * ex + cy * ey + cz * ez) / elen;
  double c = n1x * n2x + n1y * n2y + n1z * n2z;
  double theta = atan2(s, c);
  return k * (theta - theta0) * (theta - theta0);
}
// CHECK-LABEL: void bending_hessian_0(const double *x, double k, double theta0, double *H) {
// CHECK-COUNT-90: {{^  H\[[0-9]+\] \+= }}
// CHECK-NOT: {{^  H\[[0-9]+\] \+= }}
// CHECK-COUNT-66: {{^  H\[[0-9]+\] = H\[[0-9]+\];}}
// CHECK-NEXT: {{^}$}}

// A loop over a small fixed-size local array: constant loops are unrolled
// for the Hessian (the user's function is not changed), so the elements
// are constants and it has the structure of straight-line code: the same
// blocks as a spring, [K -K; -K K], 6 unique values.
double loopEnergy(const double *x) {
  double d[3];
  for (int i = 0; i < 3; ++i)
    d[i] = x[i] - x[i + 3];
  double s = 0;
  for (int i = 0; i < 3; ++i)
    s += d[i] * d[i];
  return s * s;
}
// CHECK-LABEL: void loopEnergy_hessian(const double *x, double *H) {
// CHECK-NEXT: // Hessian pattern: 6 x 6, 6 unique values
// CHECK-NEXT: {{^  //    v0   v1   v3  -v0  -v1  -v3$}}
// CHECK: H[i] = 0.;
// CHECK-NOT: for (
// CHECK-COUNT-6: {{^  H\[(0|6|7|12|13|14)\] \+= }}
// CHECK-NOT: {{^  H\[[0-9]+\] \+= }}
// CHECK-COUNT-30: {{^  H\[[0-9]+\] = -?H\[[0-9]+\];}}
// CHECK-NEXT: {{^}$}}

// A separable sum in a loop: the diagonal.
double quartics(const double *x) {
  double s = 0;
  for (int i = 0; i < 4; ++i)
    s += x[i] * x[i] * x[i] * x[i];
  return s;
}
// CHECK-LABEL: void quartics_hessian(const double *x, double *H) {
// CHECK-NEXT: // Hessian pattern: 4 x 4, 4 unique values
// CHECK-NOT: {{H\[([1-46-9]|1[1-46-9])\]}}
// CHECK: {{^}$}}

// A callee taking elements: one call of its pullback's pushforward per
// lane whose directions are not all 0 (a call with zero directions adds
// nothing), so the Hessian is tridiagonal: 7 unique values.
double pairE(double a, double b) {
  double d = a - b;
  return d * d * d * d + cos(a * b);
}
double chainE(const double *x) {
  double e = 0;
  for (int i = 0; i < 3; ++i)
    e += pairE(x[i], x[i + 1]);
  return e;
}
// CHECK-LABEL: void chainE_hessian(const double *x, double *H) {
// CHECK-NEXT: // Hessian pattern: 4 x 4, 7 unique values
// CHECK-NEXT: {{^  //    v0   v1    0    0$}}
// CHECK-NEXT: {{^  //    v1   v2   v3    0$}}
// CHECK-NEXT: {{^  //     0   v3   v4   v5$}}
// CHECK-NEXT: {{^  //     0    0   v5   v6$}}
// CHECK-NOT: , 0., 0., &
// CHECK: pairE_pullback_pushforward_{{.*}}(x[2], x[3], 1., 1., 0., &_d2_r7_2, &_d2_r8_2);
// CHECK-NEXT: pairE_pullback_pushforward_{{.*}}(x[2], x[3], 1., 0., 1., &_d2_r7_3, &_d2_r8_3);
// CHECK-NOT: , 0., 0., &
// CHECK: {{^}$}}

// "p[0:3], w": part of an array read beyond the range (an index known at
// run time: the adds are guarded), then a scalar.
double weighted(const double *p, int n, double w) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += w * w * p[i] * p[i] * p[i];
  return s;
}
// CHECK-LABEL: void weighted_hessian(const double *p, int n, double w, double *H) {
// CHECK: H[15] += _r3;
// CHECK: if (i >= 0 && i < 3) {
// CHECK-NEXT: H[i * 4] += _t0 * _d2_r2_0;
// CHECK: {{^}$}}

namespace mt = meshad::test;

int main() {
  mt::RandomInputs Rng;
  auto hPoly = meshad::hessian(poly, "a, b");
  auto gPoly = meshad::gradient(poly, "a, b");
  for (int T = 0; T < 3; ++T)
    mt::checkHessian(
        "poly", {Rng.uniform(-1, 1), Rng.uniform(-1, 1)}, 0, 2,
        [&](double *X, double *H) { hPoly.execute(X[0], X[1], H); },
        [&](double *X, double *G) { gPoly.execute(X[0], X[1], G, G + 1); });

  auto hSep = meshad::hessian(separable, "x[0:4]");
  auto gSep = meshad::gradient(separable, "x");
  std::vector<double> X(12);
  Rng.fill(X.data(), 4, -1.0, 1.0);
  mt::checkHessian(
      "separable", {X.begin(), X.begin() + 4}, 0, 4,
      [&](double *P, double *H) { hSep.execute(P, H); },
      [&](double *P, double *G) { gSep.execute(P, G); });

  auto hSpring = meshad::hessian(spring, "x[0:6]");
  auto gSpring = meshad::gradient(spring, "x");
  double K = Rng.uniform(1, 2), L0 = Rng.uniform(0.2, 0.5);
  Rng.fill(X.data(), 6, -1.0, 1.0);
  mt::checkHessian(
      "spring", {X.begin(), X.begin() + 6}, 0, 6,
      [&](double *P, double *H) { hSpring.execute(P, K, L0, H); },
      [&](double *P, double *G) { gSpring.execute(P, K, L0, G); });

  auto hArea = meshad::hessian(triangleArea, "x[0:9]");
  auto gArea = meshad::gradient(triangleArea, "x");
  Rng.fill(X.data(), 9, -1.0, 1.0);
  mt::checkHessian(
      "triangleArea", {X.begin(), X.begin() + 9}, 0, 9,
      [&](double *P, double *H) { hArea.execute(P, H); },
      [&](double *P, double *G) { gArea.execute(P, G); });

  auto hSd = meshad::hessian(symDirichlet, "x[0:6]");
  auto gSd = meshad::gradient(symDirichlet, "x");
  double Dinv2[4] = {1.1, 0.1, -0.2, 0.9}, Area = Rng.uniform(0.5, 1);
  double Rest2[6] = {0, 0, 1, 0, 0, 1};
  for (int I = 0; I < 6; ++I)
    X[I] = Rest2[I] + Rng.uniform(-0.1, 0.1);
  mt::checkHessian(
      "symDirichlet", {X.begin(), X.begin() + 6}, 0, 6,
      [&](double *P, double *H) { hSd.execute(P, Dinv2, Area, H); },
      [&](double *P, double *G) { gSd.execute(P, Dinv2, Area, G); });

  auto hNh = meshad::hessian(neoHookean, "x[0:12]");
  auto gNh = meshad::gradient(neoHookean, "x");
  double Dinv3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  for (double &D : Dinv3)
    D += Rng.uniform(-0.1, 0.1);
  double Rest3[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
  for (int I = 0; I < 12; ++I)
    X[I] = Rest3[I] + Rng.uniform(-0.1, 0.1);
  double Mu = Rng.uniform(0.5, 1), Lambda = Rng.uniform(1, 2);
  mt::checkHessian(
      "neoHookean", X, 0, 12,
      [&](double *P, double *H) { hNh.execute(P, Dinv3, Mu, Lambda, H); },
      [&](double *P, double *G) { gNh.execute(P, Dinv3, Mu, Lambda, G); });

  auto hBend = meshad::hessian(bending, "x[0:12]");
  auto gBend = meshad::gradient(bending, "x");
  double Wing[12] = {0, 0, 0, 1, 0, 0, 0.5, 1, 0, 0.5, -1, 0.3};
  for (int I = 0; I < 12; ++I)
    X[I] = Wing[I] + Rng.uniform(-0.1, 0.1);
  double Kb = Rng.uniform(1, 2), Theta0 = Rng.uniform(0.1, 0.3);
  mt::checkHessian(
      "bending", X, 0, 12,
      [&](double *P, double *H) { hBend.execute(P, Kb, Theta0, H); },
      [&](double *P, double *G) { gBend.execute(P, Kb, Theta0, G); });

  auto hLoop = meshad::hessian(loopEnergy, "x[0:6]");
  auto gLoop = meshad::gradient(loopEnergy, "x");
  Rng.fill(X.data(), 6, -1.0, 1.0);
  mt::checkHessian(
      "loopEnergy", {X.begin(), X.begin() + 6}, 0, 6,
      [&](double *P, double *H) { hLoop.execute(P, H); },
      [&](double *P, double *G) { gLoop.execute(P, G); });

  auto hQuart = meshad::hessian(quartics, "x[0:4]");
  auto gQuart = meshad::gradient(quartics, "x");
  Rng.fill(X.data(), 4, -1.0, 1.0);
  mt::checkHessian(
      "quartics", {X.begin(), X.begin() + 4}, 0, 4,
      [&](double *P, double *H) { hQuart.execute(P, H); },
      [&](double *P, double *G) { gQuart.execute(P, G); });

  auto hChain = meshad::hessian(chainE, "x[0:4]");
  auto gChain = meshad::gradient(chainE, "x");
  Rng.fill(X.data(), 4, -1.0, 1.0);
  mt::checkHessian(
      "chainE", {X.begin(), X.begin() + 4}, 0, 4,
      [&](double *P, double *H) { hChain.execute(P, H); },
      [&](double *P, double *G) { gChain.execute(P, G); });

  // "p[0:3], w" of weighted(p, 5, w): x = p[0..4] then w.
  auto hW = meshad::hessian(weighted, "p[0:3], w");
  auto gW = meshad::gradient(weighted, "p, w");
  Rng.fill(X.data(), 6, -1.0, 1.0);
  std::vector<double> PW(X.begin(), X.begin() + 6);
  // Lanes 0..2 are p[0..2], lane 3 is w (x[5]); check through a 4-vector.
  mt::checkHessian(
      "weighted", {PW[0], PW[1], PW[2], PW[5]}, 0, 4,
      [&](double *V, double *H) {
        double P[5] = {V[0], V[1], V[2], PW[3], PW[4]};
        hW.execute(P, 5, V[3], H);
      },
      [&](double *V, double *G) {
        double P[5] = {V[0], V[1], V[2], PW[3], PW[4]}, GP[5] = {};
        gW.execute(P, 5, V[3], GP, G + 3);
        for (int I = 0; I < 3; ++I)
          G[I] += GP[I];
      });
  // The packed forms: exactly the dense ones once unpacked.
  double Xp[12];
  Rng.fill(Xp, 12, -1.0, 1.0);
  mt::checkPacked("poly", hPoly, 3, 4, 0.3, 0.7);
  mt::checkPacked("separable", hSep, 4, 4, (const double *)Xp);
  mt::checkPacked("spring", hSpring, 6, 36, (const double *)Xp, K, L0);
  mt::checkPacked("triangleArea", hArea, 45, 81, (const double *)Xp);
  mt::checkPacked("symDirichlet", hSd, 21, 36, (const double *)X.data(),
                  (const double *)Dinv2, Area);
  mt::checkPacked("loopEnergy", hLoop, 6, 36, (const double *)Xp);
  mt::checkPacked("quartics", hQuart, 4, 4, (const double *)Xp);
  mt::checkPacked("chainE", hChain, 7, 10, (const double *)Xp);
  return mt::summary();
}
