//===- benchmarks/elements/Energies.h - Element energies ------------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The three element energies of the element-kernel benchmark, written as a
/// user writes them (one function per element, reading its vertices'
/// positions), and their local gradients derived by hand for the
/// hand-written baselines. __host__ __device__: the CPU checks call them too.
///
///   spring:    E = (|xa - xb| - L)^2 / 2
///   symmetric Dirichlet (triangle in 3D, rest frame Minv = Dm^-1, area A):
///              J = [x1 - x0, x2 - x0] Minv (3x2), G = J^T J,
///              E = A (tr G + tr G^-1) = A tr G (1 + 1 / det G)
///   neo-Hookean (tet, Minv = Dm^-1 (3x3, row-major), volume V):
///              F = [x1 - x0, x2 - x0, x3 - x0] Minv, J = det F,
///              E = V (mu/2 (|F|^2 - 3) - mu ln J + lambda/2 (ln J)^2)
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_BENCH_ELEMENTS_ENERGIES_H
#define MESHAD_BENCH_ELEMENTS_ENERGIES_H

#include <cmath>

#define ELEM_HD __host__ __device__

namespace elements {

constexpr double NeoMu = 1.0;
constexpr double NeoLambda = 10.0;

// ---- Energies (what meshad differentiates) -------------------------------

ELEM_HD inline double springEnergy(const double *xa, const double *xb,
                                   double rest) {
  double dx = xa[0] - xb[0];
  double dy = xa[1] - xb[1];
  double dz = xa[2] - xb[2];
  double stretch = sqrt(dx * dx + dy * dy + dz * dz) - rest;
  return 0.5 * stretch * stretch;
}

/// Minv: 4 entries, row-major 2x2.
ELEM_HD inline double dirichletEnergy(const double *x0, const double *x1,
                                      const double *x2, const double *Minv,
                                      double area) {
  double e1x = x1[0] - x0[0], e1y = x1[1] - x0[1], e1z = x1[2] - x0[2];
  double e2x = x2[0] - x0[0], e2y = x2[1] - x0[1], e2z = x2[2] - x0[2];
  // J = [e1 e2] Minv, columns j0, j1.
  double j0x = e1x * Minv[0] + e2x * Minv[2];
  double j0y = e1y * Minv[0] + e2y * Minv[2];
  double j0z = e1z * Minv[0] + e2z * Minv[2];
  double j1x = e1x * Minv[1] + e2x * Minv[3];
  double j1y = e1y * Minv[1] + e2y * Minv[3];
  double j1z = e1z * Minv[1] + e2z * Minv[3];
  double g00 = j0x * j0x + j0y * j0y + j0z * j0z;
  double g01 = j0x * j1x + j0y * j1y + j0z * j1z;
  double g11 = j1x * j1x + j1y * j1y + j1z * j1z;
  double tr = g00 + g11;
  double det = g00 * g11 - g01 * g01;
  return area * tr * (1.0 + 1.0 / det);
}

/// Minv: 9 entries, row-major 3x3.
ELEM_HD inline double neoHookeanEnergy(const double *x0, const double *x1,
                                       const double *x2, const double *x3,
                                       const double *Minv, double volume) {
  double d0x = x1[0] - x0[0], d0y = x1[1] - x0[1], d0z = x1[2] - x0[2];
  double d1x = x2[0] - x0[0], d1y = x2[1] - x0[1], d1z = x2[2] - x0[2];
  double d2x = x3[0] - x0[0], d2y = x3[1] - x0[1], d2z = x3[2] - x0[2];
  // F = Ds Minv, Ds = [d0 d1 d2] (columns).
  double f00 = d0x * Minv[0] + d1x * Minv[3] + d2x * Minv[6];
  double f01 = d0x * Minv[1] + d1x * Minv[4] + d2x * Minv[7];
  double f02 = d0x * Minv[2] + d1x * Minv[5] + d2x * Minv[8];
  double f10 = d0y * Minv[0] + d1y * Minv[3] + d2y * Minv[6];
  double f11 = d0y * Minv[1] + d1y * Minv[4] + d2y * Minv[7];
  double f12 = d0y * Minv[2] + d1y * Minv[5] + d2y * Minv[8];
  double f20 = d0z * Minv[0] + d1z * Minv[3] + d2z * Minv[6];
  double f21 = d0z * Minv[1] + d1z * Minv[4] + d2z * Minv[7];
  double f22 = d0z * Minv[2] + d1z * Minv[5] + d2z * Minv[8];
  double norm2 = f00 * f00 + f01 * f01 + f02 * f02 + f10 * f10 + f11 * f11 +
                 f12 * f12 + f20 * f20 + f21 * f21 + f22 * f22;
  double J = f00 * (f11 * f22 - f12 * f21) - f01 * (f10 * f22 - f12 * f20) +
             f02 * (f10 * f21 - f11 * f20);
  double logJ = log(J);
  return volume * (0.5 * NeoMu * (norm2 - 3.0) - NeoMu * logJ +
                   0.5 * NeoLambda * logJ * logJ);
}

// ---- Local gradients, by hand (the baselines) ----------------------------

/// g: 6 entries, d/dxa then d/dxb.
ELEM_HD inline void springGradient(const double *xa, const double *xb,
                                   double rest, double *g) {
  double d[3] = {xa[0] - xb[0], xa[1] - xb[1], xa[2] - xb[2]};
  double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  double f = (len - rest) / len;
  for (int k = 0; k < 3; ++k) {
    g[k] = f * d[k];
    g[3 + k] = -f * d[k];
  }
}

/// g: 9 entries, d/dx0, d/dx1, d/dx2.
ELEM_HD inline void dirichletGradient(const double *x0, const double *x1,
                                      const double *x2, const double *Minv,
                                      double area, double *g) {
  double e1[3], e2[3], j0[3], j1[3];
  for (int k = 0; k < 3; ++k) {
    e1[k] = x1[k] - x0[k];
    e2[k] = x2[k] - x0[k];
    j0[k] = e1[k] * Minv[0] + e2[k] * Minv[2];
    j1[k] = e1[k] * Minv[1] + e2[k] * Minv[3];
  }
  double g00 = 0, g01 = 0, g11 = 0;
  for (int k = 0; k < 3; ++k) {
    g00 += j0[k] * j0[k];
    g01 += j0[k] * j1[k];
    g11 += j1[k] * j1[k];
  }
  double tr = g00 + g11, det = g00 * g11 - g01 * g01;
  // dE/dJ = A (2 (1 + 1/det) J - 2 tr/det^2 J adj(G)), adj(G) = [g11 -g01;
  // -g01 g00].
  double a = 2.0 * area * (1.0 + 1.0 / det);
  double b = 2.0 * area * tr / (det * det);
  double p0[3], p1[3];
  for (int k = 0; k < 3; ++k) {
    p0[k] = a * j0[k] - b * (j0[k] * g11 - j1[k] * g01);
    p1[k] = a * j1[k] - b * (-j0[k] * g01 + j1[k] * g00);
  }
  // dE/d[e1 e2] = P Minv^T.
  for (int k = 0; k < 3; ++k) {
    double de1 = p0[k] * Minv[0] + p1[k] * Minv[1];
    double de2 = p0[k] * Minv[2] + p1[k] * Minv[3];
    g[3 + k] = de1;
    g[6 + k] = de2;
    g[k] = -de1 - de2;
  }
}

/// g: 12 entries, d/dx0 .. d/dx3.
ELEM_HD inline void neoHookeanGradient(const double *x0, const double *x1,
                                       const double *x2, const double *x3,
                                       const double *Minv, double volume,
                                       double *g) {
  double Ds[3][3];
  for (int k = 0; k < 3; ++k) {
    Ds[k][0] = x1[k] - x0[k];
    Ds[k][1] = x2[k] - x0[k];
    Ds[k][2] = x3[k] - x0[k];
  }
  double F[3][3];
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c)
      F[r][c] = Ds[r][0] * Minv[c] + Ds[r][1] * Minv[3 + c] +
                Ds[r][2] * Minv[6 + c];
  // Cofactor matrix C = J F^-T.
  double C[3][3];
  C[0][0] = F[1][1] * F[2][2] - F[1][2] * F[2][1];
  C[0][1] = F[1][2] * F[2][0] - F[1][0] * F[2][2];
  C[0][2] = F[1][0] * F[2][1] - F[1][1] * F[2][0];
  C[1][0] = F[0][2] * F[2][1] - F[0][1] * F[2][2];
  C[1][1] = F[0][0] * F[2][2] - F[0][2] * F[2][0];
  C[1][2] = F[0][1] * F[2][0] - F[0][0] * F[2][1];
  C[2][0] = F[0][1] * F[1][2] - F[0][2] * F[1][1];
  C[2][1] = F[0][2] * F[1][0] - F[0][0] * F[1][2];
  C[2][2] = F[0][0] * F[1][1] - F[0][1] * F[1][0];
  double J = F[0][0] * C[0][0] + F[0][1] * C[0][1] + F[0][2] * C[0][2];
  double s = (NeoLambda * log(J) - NeoMu) / J;
  // P = mu F + (lambda ln J - mu) F^-T; dE/dDs = V P Minv^T.
  double P[3][3];
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c)
      P[r][c] = volume * (NeoMu * F[r][c] + s * C[r][c]);
  for (int k = 0; k < 3; ++k) {
    double Sum = 0;
    for (int c = 0; c < 3; ++c) {
      double D = P[k][0] * Minv[3 * c] + P[k][1] * Minv[3 * c + 1] +
                 P[k][2] * Minv[3 * c + 2];
      g[3 * (c + 1) + k] = D;
      Sum += D;
    }
    g[k] = -Sum;
  }
}

} // namespace elements

#endif // MESHAD_BENCH_ELEMENTS_ENERGIES_H
