// meshad::hessian(f, "x, v", meshad::Sparse): several selected arrays (the
// CSR matrix over their elements concatenated, x's rows first, then v's:
// ArrayOffsets), and iterations reading more than 8 entries (the local
// pattern's mask in several 64-bit words). Every sparse Hessian against
// the dense forward-over-reverse twin (meshad::hessian(f, "x[0:N], v[0:N]"))
// entry by entry and against central differences of meshad::gradient
// (relative error 1e-6) on random inputs; the nonzeros counted.
//
// RUN: %clangxx -std=c++17 -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -fplugin-arg-meshad-remarks -I%I -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: FileCheck %s --check-prefix=REMARK < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
// NUM-NOT: FAIL
// NUM: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
#include "SparseHessianCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

// Positions and velocities of n particles on a line: an edge term coupling
// both arrays of two neighbours, and a per-particle term coupling x[i] and
// v[i]; a parameter array m that is not selected.
double particles(const double *x, const double *v, const double *m, int n,
                 double h) {
  double e = 0;
  for (int i = 0; i < n - 1; ++i) {
    double d = x[i + 1] - x[i] + h * (v[i + 1] - v[i]);
    e += d * d * d * d;
  }
  for (int i = 0; i < n; ++i)
    e += 0.5 * m[i] * v[i] * v[i] * cos(x[i]);
  return e;
}
// The term takes the entries of each array it reads; the adds name each
// entry's array.
// CHECK-LABEL: double particles_term(const double *m, int n, double h, int i, const double *x, const double *v) {
// CHECK-NEXT: double e = 0.;
// CHECK-NEXT: double d = x[1] - x[0] + h * (v[1] - v[0]);
// CHECK-LABEL: void particles_term_hessian(const double *m, int n, double h, int i, const double *x, const double *v, double *H) {
// CHECK-LABEL: void particles_term_hessian_packed(
// CHECK-LABEL: double particles_term2(const double *m, int n, double h, int i, const double *x, const double *v) {
// CHECK-LABEL: void particles_term2_hessian(
// CHECK-LABEL: void particles_term2_hessian_packed(
// CHECK-LABEL: void particles_hessian_sparse_0_1(const double *x, const double *v, const double *m, int n, double h, meshad::SparseMatrix<double> *H) {
// Both loops are affine over the two arrays: announced once with the
// encoded forms (2 * element + array), no rows per iteration.
// CHECK-NEXT: meshad::sparseLoopBegin(H, 2);
// CHECK-NEXT: meshad::sparseLoopAffine<4, 65535ull, 2, 0, 2, 2, 2, 1, 2, 3>(H, 0, n - 1);
// CHECK-NEXT: for (int i = 0; i < n - 1; ++i) {
// CHECK-NEXT: double x_l[2] = {x[i], x[i + 1]};
// CHECK-NEXT: double v_l[2] = {v[i], v[i + 1]};
// CHECK-NEXT: double hl[16];
// CHECK-NEXT: particles_term_hessian(m, n, h, i, x_l, v_l, hl);
// CHECK-NEXT: meshad::sparseLoopAffineAdd<4, 65535ull>(H, hl);
// CHECK-NEXT: }
// CHECK-NEXT: meshad::sparseLoopAffine<2, 15ull, 2, 0, 2, 1>(H, 0, n);
// CHECK: meshad::sparseLoopEnd(H);
// CHECK-LABEL: void particles_hessian_0_1(const double *x, const double *v, const double *m, int n, double h, double *H) {
// CHECK-LABEL: void particles_hessian_0_1_packed(
// CHECK-LABEL: void particles_grad_0_1(const double *x, const double *v, const double *m, int n, double h, double *_d_x, double *_d_v) {
// REMARK: remark: sparse hessian of 'particles' w.r.t. 'x, v': each iteration of loop 1 of 2 over i reads x[i], x[i + 1], v[i], v[i + 1]; local Hessian of 4 entries{{.*}}; an affine loop: its bounds recorded and compared

// Four consecutive 3D points (12 entries): the squared norm of the third
// difference, squared; every pair of the 12 entries interacts (144 bits).
double bend4(const double *x, int n) {
  double e = 0;
  for (int i = 0; i < n - 3; ++i) {
    double s = 0;
    for (int k = 0; k < 3; ++k) {
      double d = x[3 * i + k] - 3 * x[3 * i + 3 + k] + 3 * x[3 * i + 6 + k] -
                 x[3 * i + 9 + k];
      s += d * d;
    }
    e += s * s;
  }
  return e;
}
// CHECK-LABEL: double bend4_term(int n, int i, const double *x) {
// CHECK-LABEL: void bend4_term_hessian(int n, int i, const double *x, double *H) {
// CHECK-LABEL: void bend4_term_hessian_packed(
// CHECK-LABEL: void bend4_hessian_sparse(const double *x, int n, meshad::SparseMatrix<double> *H) {
// CHECK-NEXT: meshad::sparseLoopBegin(H);
// CHECK-NEXT: for (int i = 0; i < n - 3; ++i) {
// CHECK-NEXT: int x_rows[12] = {3 * i, 3 * i + 1, 3 * i + 2, 3 * i + 3, 3 * i + 4, 3 * i + 5, 3 * i + 6, 3 * i + 7, 3 * i + 8, 3 * i + 9, 3 * i + 10, 3 * i + 11};
// CHECK:      meshad::sparseLoopAdd<12, 18446744073709551615ull, 18446744073709551615ull, 65535ull>(H, x_rows, hl);
// CHECK-LABEL: void bend4_hessian(const double *x, int n, double *H) {
// CHECK-LABEL: void bend4_hessian_packed(
// CHECK-LABEL: void bend4_grad(const double *x, int n, double *_d_x) {
// REMARK: remark: sparse hessian of 'bend4' w.r.t. 'x': each iteration of the loop over i reads x[3*i], {{.*}}; local Hessian of 12 entries: {{[0-9]+}} unique values, 144 nonzero entries

namespace mt = meshad::test;

static void checkParticles(mt::RandomInputs &Rng) {
  const int N = 5, N2 = 2 * N;
  std::vector<double> Z(N2), M(N), Dense(N2 * N2);
  auto sP = meshad::hessian(particles, "x, v", meshad::Sparse);
  auto dP = meshad::hessian(particles, "x[0:5], v[0:5]");
  auto gP = meshad::gradient(particles, "x, v");
  const double Hs = 0.3;
  Rng.fill(M.data(), N, 0.5, 2.0);
  meshad::SparseMatrix<double> H;
  for (int T = 0; T < 2; ++T) {
    Rng.fill(Z.data(), N2, -1.0, 1.0);
    sP.execute(Z.data(), Z.data() + N, M.data(), N, Hs, &H);
    dP.execute(Z.data(), Z.data() + N, M.data(), N, Hs, Dense.data());
    // Four tridiagonal blocks (x-x, x-v, v-x, v-v).
    mt::checkAgainstDense("particles", H, N2, 4 * (3 * N - 2), Dense);
    MESHAD_CHECK_CLOSE("particles arrays", double(H.Arrays), 2.0);
    MESHAD_CHECK_CLOSE("particles v's first row", double(H.ArrayOffsets[1]),
                       double(N));
    MESHAD_CHECK_CLOSE("particles builds", double(H.Rebuilds), 1.0);
    mt::checkSparseHessian(
        "particles", Z,
        [&](double *P, meshad::SparseMatrix<double> *S) {
          sP.execute(P, P + N, M.data(), N, Hs, S);
        },
        [&](double *P, double *G) {
          gP.execute(P, P + N, M.data(), N, Hs, G, G + N);
        });
  }
}

static void checkBend4(mt::RandomInputs &Rng) {
  const int V = 6, N = 3 * V;
  std::vector<double> X(N), Dense(N * N);
  auto sB = meshad::hessian(bend4, "x", meshad::Sparse);
  auto dB = meshad::hessian(bend4, "x[0:18]");
  auto gB = meshad::gradient(bend4, "x");
  meshad::SparseMatrix<double> H;
  Rng.fill(X.data(), N, -1.0, 1.0);
  sB.execute(X.data(), V, &H);
  dB.execute(X.data(), V, Dense.data());
  // 3x3 blocks between points at most 3 apart: 30 of them.
  mt::checkAgainstDense("bend4", H, N, 9 * 30, Dense);
  mt::checkSparseHessian(
      "bend4", X,
      [&](double *P, meshad::SparseMatrix<double> *S) {
        sB.execute(P, V, S);
      },
      [&](double *P, double *G) { gB.execute(P, V, G); });
}

int main() {
  mt::RandomInputs Rng;
  checkParticles(Rng);
  checkBend4(Rng);
  return mt::summary();
}
