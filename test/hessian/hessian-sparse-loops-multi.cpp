// meshad::hessian(f, "x", meshad::Sparse) on functions with several loops
// and several strides: the pattern is the union of the loops' patterns.
// A 2D polyline (an edge loop over x[2*i] .. x[2*i + 3] with rest lengths
// L[i] and a stiffness local computed before the loops, then a vertex loop
// over x[j]); two accumulators returned as a difference, one of them added
// to by both loops, and one loop reading x with the strides 0, 1 and 2
// (x[0], x[i], x[2*i]: the three are the same element at i = 0). Every
// sparse Hessian is checked against the dense forward-over-reverse Hessian
// (meshad::hessian(f, "x[0:N]")) entry by entry and against central
// differences of meshad::gradient on random inputs; the nonzeros against
// the union of the loops' structures.
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

// n points in 2D: springs between consecutive points, a potential on
// every coordinate.
double polyline(const double *x, const double *L, int n, double k) {
  double e = 0;
  double half = 0.5 * k;
  for (int i = 0; i < n - 1; ++i) {
    double dx = x[2 * i + 2] - x[2 * i];
    double dy = x[2 * i + 3] - x[2 * i + 1];
    double len = sqrt(dx * dx + dy * dy);
    e += half * (len - L[i]) * (len - L[i]);
  }
  for (int j = 0; j < 2 * n; ++j)
    e += 0.1 * cos(x[j]);
  return e;
}
// One term per loop: the edge's 4 entries (the invariant local `half` a
// parameter of the term), then the vertex's one; the rows of each
// iteration, the gather, the local Hessian and the add per loop.
// CHECK-LABEL: double polyline_term(const double *L, int n, double k, double half, int i, const double *x) {
// CHECK-NEXT: double e = 0.;
// CHECK-NEXT: double dx = x[2] - x[0];
// CHECK-NEXT: double dy = x[3] - x[1];
// CHECK:      e += half * (len - L[i]) * (len - L[i]);
// CHECK-NEXT: return e;
// CHECK-LABEL: void polyline_term_hessian(const double *L, int n, double k, double half, int i, const double *x, double *H) {
// CHECK-LABEL: double polyline_term2(const double *L, int n, double k, int j, const double *x) {
// CHECK-NEXT: double e = 0.;
// CHECK-NEXT: e += 0.1 * cos(x[0]);
// CHECK-NEXT: return e;
// CHECK-LABEL: void polyline_term2_hessian(const double *L, int n, double k, int j, const double *x, double *H) {
// CHECK-LABEL: void polyline_hessian_sparse_0(const double *x, const double *L, int n, double k, meshad::SparseMatrix<double> *H) {
// CHECK-NEXT: double half = 0.5 * k;
// CHECK-NEXT: meshad::sparseLoopBegin(H);
// CHECK-NEXT: meshad::sparseLoopAffine<4, 65535ull, 2, 0, 2, 1, 2, 2, 2, 3>(H, 0, n - 1);
// CHECK-NEXT: for (int i = 0; i < n - 1; ++i) {
// CHECK-NEXT: double x_l[4] = {x[2 * i], x[2 * i + 1], x[2 * i + 2], x[2 * i + 3]};
// CHECK-NEXT: double hl[16];
// CHECK-NEXT: polyline_term_hessian(L, n, k, half, i, x_l, hl);
// CHECK-NEXT: meshad::sparseLoopAffineAdd<4, 65535ull>(H, hl);
// CHECK-NEXT: }
// CHECK-NEXT: meshad::sparseLoopAffine<1, 1ull, 1, 0>(H, 0, 2 * n);
// CHECK-NEXT: for (int j = 0; j < 2 * n; ++j) {
// CHECK-NEXT: double x_l_1[1] = {x[j]};
// CHECK-NEXT: double hl_1[1];
// CHECK-NEXT: polyline_term2_hessian(L, n, k, j, x_l_1, hl_1);
// CHECK-NEXT: meshad::sparseLoopAffineAdd<1, 1ull>(H, hl_1);
// CHECK-NEXT: }
// CHECK-NEXT: meshad::sparseLoopEnd(H);
// CHECK-NEXT: }
// REMARK: remark: sparse hessian of 'polyline' w.r.t. 'x': each iteration of loop 1 of 2 over i reads x[2*i], x[2*i + 1], x[2*i + 2], x[2*i + 3]; local Hessian of 4 entries: 3 unique values, 16 nonzero entries
// REMARK: remark: sparse hessian of 'polyline' w.r.t. 'x': each iteration of loop 2 of 2 over j reads x[j]; local Hessian of 1 entries: 1 unique values, 1 nonzero entries

// Two accumulators, a loop with three strides, a loop adding to both.
double twoAccs(const double *x, const double *w, int n) {
  double a = 0, b = 0;
  for (int i = 0; i < n; ++i)
    a += w[i] * x[i] * x[2 * i] + x[0] * x[i];
  for (int i = 1; i < 2 * n; ++i) {
    double d = x[i] - x[i - 1];
    b += d * d * d + sin(x[i] * x[i - 1]);
    a += 0.5 * x[i] * x[i];
  }
  return a - b;
}
// x[0], x[i], x[2*i] are three entries (the same element at i = 0); the
// second loop's term returns its accumulators signed as in the return.
// CHECK-LABEL: double twoAccs_term(const double *w, int n, int i, const double *x) {
// CHECK-NEXT: double a = 0.;
// CHECK-NEXT: a += w[i] * x[1] * x[2] + x[0] * x[1];
// CHECK-NEXT: return a;
// CHECK-LABEL: double twoAccs_term2(const double *w, int n, int i, const double *x) {
// CHECK-NEXT: double b = 0.;
// CHECK-NEXT: double a = 0.;
// CHECK:      return a - b;
// CHECK-LABEL: void twoAccs_hessian_sparse_0(const double *x, const double *w, int n, meshad::SparseMatrix<double> *H) {
// CHECK-NEXT: meshad::sparseLoopBegin(H);
// CHECK-NEXT: meshad::sparseLoopAffine<3, 170ull, 0, 0, 1, 0, 2, 0>(H, 0, n);
// CHECK-NEXT: for (int i = 0; i < n; ++i) {
// CHECK-NEXT: double x_l[3] = {x[0], x[i], x[2 * i]};
// CHECK:      meshad::sparseLoopAffineAdd<3, 170ull>(H, hl);
// CHECK:      meshad::sparseLoopAffine<2, 15ull, 1, -1, 1, 0>(H, 1, 2 * n);
// CHECK-NEXT: for (int i = 1; i < 2 * n; ++i) {
// CHECK-NEXT: double x_l_1[2] = {x[i - 1], x[i]};
// CHECK:      meshad::sparseLoopAffineAdd<2, 15ull>(H, hl_1);
// CHECK:      meshad::sparseLoopEnd(H);
// REMARK: remark: sparse hessian of 'twoAccs' w.r.t. 'x': each iteration of loop 1 of 2 over i reads x[0], x[i], x[2*i]; local Hessian of 3 entries: 2 unique values, 4 nonzero entries
// REMARK: remark: sparse hessian of 'twoAccs' w.r.t. 'x': each iteration of loop 2 of 2 over i reads x[i - 1], x[i]; local Hessian of 2 entries: 3 unique values, 4 nonzero entries

namespace mt = meshad::test;

int main() {
  mt::RandomInputs Rng;
  meshad::SparseMatrix<double> H;

  const int N = 4, NX = 2 * N;
  std::vector<double> X(NX), L(N), W(N), Dense(NX * NX);
  auto sP = meshad::hessian(polyline, "x", meshad::Sparse);
  auto dP = meshad::hessian(polyline, "x[0:8]");
  auto gP = meshad::gradient(polyline, "x");
  double K = Rng.uniform(0.5, 2.0);
  for (int I = 0; I < N; ++I) {
    X[2 * I] = I + Rng.uniform(-0.2, 0.2);
    X[2 * I + 1] = Rng.uniform(-0.5, 0.5);
  }
  Rng.fill(L.data(), N, 0.5, 1.5);
  sP.execute(X.data(), L.data(), N, K, &H);
  dP.execute(X.data(), L.data(), N, K, Dense.data());
  // 2x2 blocks: 4 diagonal ones, 3 edges' off-diagonal pairs.
  mt::checkAgainstDense("polyline", H, NX, 4 * 4 + 3 * 2 * 4, Dense);
  mt::checkSparseHessian(
      "polyline", X,
      [&](double *P, meshad::SparseMatrix<double> *S) {
        sP.execute(P, L.data(), N, K, S);
      },
      [&](double *P, double *G) { gP.execute(P, L.data(), N, K, G); });

  auto sT = meshad::hessian(twoAccs, "x", meshad::Sparse);
  auto dT = meshad::hessian(twoAccs, "x[0:8]");
  auto gT = meshad::gradient(twoAccs, "x");
  Rng.fill(X.data(), NX, -1.0, 1.0);
  Rng.fill(W.data(), N, 0.5, 2.0);
  sT.execute(X.data(), W.data(), N, &H);
  dT.execute(X.data(), W.data(), N, Dense.data());
  // The chain of the second loop (8 + 14) and the first loop's (0, 2),
  // (0, 3), (2, 4), (3, 6) both ways.
  mt::checkAgainstDense("twoAccs", H, NX, 8 + 14 + 8, Dense);
  mt::checkSparseHessian(
      "twoAccs", X,
      [&](double *P, meshad::SparseMatrix<double> *S) {
        sT.execute(P, W.data(), N, S);
      },
      [&](double *P, double *G) { gT.execute(P, W.data(), N, G); });
  // Other values: the pattern is kept.
  int Builds = H.Rebuilds;
  Rng.fill(X.data(), NX, -1.0, 1.0);
  sT.execute(X.data(), W.data(), N, &H);
  dT.execute(X.data(), W.data(), N, Dense.data());
  mt::checkAgainstDense("twoAccs again", H, NX, 8 + 14 + 8, Dense);
  MESHAD_CHECK_CLOSE("twoAccs pattern kept", double(H.Rebuilds),
                     double(Builds));
  return mt::summary();
}
