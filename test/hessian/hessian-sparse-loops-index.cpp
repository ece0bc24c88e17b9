// meshad::hessian(f, "x", meshad::Sparse) on loops that read x through
// index arrays (x[3*e[2*i] + c]: edge and triangle lists): the pattern
// comes from the index arrays' values at run time, built on the first call
// from the rows the iterations read (O(nnz), no dense pass) and kept while
// they stay the same; each call compares every iteration's rows with the
// recorded ones, so an index array changed in place, or another element
// count, rebuilds the pattern in the same call. Every sparse Hessian is
// checked against the dense forward-over-reverse Hessian entry by entry
// and against central differences of meshad::gradient on random inputs.
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

// A mass-spring energy over an edge list, 3 DOFs per vertex.
double springs(const double *x, const int *e, const double *L, int m,
               double k) {
  double E = 0;
  for (int i = 0; i < m; ++i) {
    int a = e[2 * i], b = e[2 * i + 1];
    double dx = x[3 * a] - x[3 * b];
    double dy = x[3 * a + 1] - x[3 * b + 1];
    double dz = x[3 * a + 2] - x[3 * b + 2];
    double len = sqrt(dx * dx + dy * dy + dz * dz);
    E += 0.5 * k * (len - L[i]) * (len - L[i]);
  }
  return E;
}
// The term over the edge's 6 DOFs; the rows of each iteration from the
// edge list's values.
// CHECK-LABEL: double springs_term(const int *e, const double *L, int m, double k, int i, const double *x) {
// CHECK-NEXT: double E = 0.;
// CHECK-NEXT: double dx = x[0] - x[3];
// CHECK-NEXT: double dy = x[1] - x[4];
// CHECK-NEXT: double dz = x[2] - x[5];
// CHECK-LABEL: void springs_term_hessian(const int *e, const double *L, int m, double k, int i, const double *x, double *H) {
// CHECK-NEXT: // Hessian pattern: 6 x 6, 6 unique values
// CHECK-LABEL: void springs_hessian_sparse_0(const double *x, const int *e, const double *L, int m, double k, meshad::SparseMatrix<double> *H) {
// CHECK-NEXT: meshad::sparseLoopBegin(H);
// CHECK-NEXT: for (int i = 0; i < m; ++i) {
// CHECK-NEXT: int x_rows[6] = {3 * e[2 * i], 3 * e[2 * i] + 1, 3 * e[2 * i] + 2, 3 * e[2 * i + 1], 3 * e[2 * i + 1] + 1, 3 * e[2 * i + 1] + 2};
// CHECK-NEXT: double x_l[6] = {x[x_rows[0]], x[x_rows[1]], x[x_rows[2]], x[x_rows[3]], x[x_rows[4]], x[x_rows[5]]};
// CHECK-NEXT: double hl[36];
// CHECK-NEXT: springs_term_hessian(e, L, m, k, i, x_l, hl);
// CHECK-NEXT: meshad::sparseLoopAdd<6, 68719476735ull>(H, x_rows, hl);
// CHECK-NEXT: }
// CHECK-NEXT: meshad::sparseLoopEnd(H);
// CHECK-NEXT: }
// REMARK: remark: sparse hessian of 'springs' w.r.t. 'x': each iteration of the loop over i reads x[3*a], x[3*a + 1], x[3*a + 2], x[3*b], x[3*b + 1], x[3*b + 2]; local Hessian of 6 entries: 6 unique values, 36 nonzero entries

// 2D triangles through a triangle list (the squared change of each
// signed area), and a vertex loop.
double triangles(const double *x, const int *t, const double *A0, int nt,
                 int nv) {
  double E = 0;
  for (int i = 0; i < nt; ++i) {
    double ux = x[2 * t[3 * i + 1]] - x[2 * t[3 * i]];
    double uy = x[2 * t[3 * i + 1] + 1] - x[2 * t[3 * i] + 1];
    double vx = x[2 * t[3 * i + 2]] - x[2 * t[3 * i]];
    double vy = x[2 * t[3 * i + 2] + 1] - x[2 * t[3 * i] + 1];
    double area = 0.5 * (ux * vy - uy * vx);
    E += (area - A0[i]) * (area - A0[i]);
  }
  for (int v = 0; v < nv; ++v)
    E += 0.01 * x[2 * v] * x[2 * v] * x[2 * v + 1];
  return E;
}
// CHECK-LABEL: double triangles_term(const int *t, const double *A0, int nt, int nv, int i, const double *x) {
// CHECK-NEXT: double E = 0.;
// CHECK-NEXT: double ux = x[0] - x[2];
// CHECK-LABEL: void triangles_term_hessian(const int *t, const double *A0, int nt, int nv, int i, const double *x, double *H) {
// CHECK-NEXT: // Hessian pattern: 6 x 6, 21 unique values
// CHECK-LABEL: double triangles_term2(const int *t, const double *A0, int nt, int nv, int v, const double *x) {
// CHECK-LABEL: void triangles_hessian_sparse_0(const double *x, const int *t, const double *A0, int nt, int nv, meshad::SparseMatrix<double> *H) {
// CHECK-NEXT: meshad::sparseLoopBegin(H);
// CHECK-NEXT: for (int i = 0; i < nt; ++i) {
// CHECK-NEXT: int x_rows[6] = {2 * t[3 * i + 1], 2 * t[3 * i + 1] + 1, 2 * t[3 * i], 2 * t[3 * i] + 1, 2 * t[3 * i + 2], 2 * t[3 * i + 2] + 1};
// CHECK:      meshad::sparseLoopAdd<6, 68719476735ull>(H, x_rows, hl);
// CHECK:      meshad::sparseLoopAffine<2, 7ull, 2, 0, 2, 1>(H, 0, nv);
// CHECK-NEXT: for (int v = 0; v < nv; ++v) {
// CHECK-NEXT: double x_l_1[2] = {x[2 * v], x[2 * v + 1]};
// CHECK:      meshad::sparseLoopAffineAdd<2, 7ull>(H, hl_1);
// CHECK:      meshad::sparseLoopEnd(H);
// REMARK: remark: sparse hessian of 'triangles' w.r.t. 'x': each iteration of loop 1 of 2 over i reads x[2*t[3 * i + 1]], x[2*t[3 * i + 1] + 1], x[2*t[3 * i]], x[2*t[3 * i] + 1], x[2*t[3 * i + 2]], x[2*t[3 * i + 2] + 1]; local Hessian of 6 entries: 21 unique values, 36 nonzero entries
// REMARK: remark: sparse hessian of 'triangles' w.r.t. 'x': each iteration of loop 2 of 2 over v reads x[2*v], x[2*v + 1]; local Hessian of 2 entries: 2 unique values, 3 nonzero entries

namespace mt = meshad::test;

/// The number of distinct (v, w) vertex pairs that share an element of
/// \p Idx (Arity vertices each), diagonal pairs included, times S*S.
static int blockNonzeros(const std::vector<int> &Idx, int Arity, int S) {
  std::vector<std::pair<int, int>> P;
  for (size_t E = 0; E < Idx.size(); E += Arity)
    for (int A = 0; A < Arity; ++A)
      for (int B = 0; B < Arity; ++B)
        P.push_back({Idx[E + A], Idx[E + B]});
  std::sort(P.begin(), P.end());
  P.erase(std::unique(P.begin(), P.end()), P.end());
  return static_cast<int>(P.size()) * S * S;
}

int main() {
  mt::RandomInputs Rng;
  meshad::SparseMatrix<double> H;

  // A tetrahedron's 6 edges and one more: 4 vertices, 12 DOFs.
  std::vector<int> Edges = {0, 1, 1, 2, 2, 0, 0, 3, 1, 3, 2, 3, 3, 0};
  const int M = 7, NV = 4, NX = 3 * NV;
  std::vector<double> X(NX), L(M), Dense(NX * NX);
  Rng.fill(X.data(), NX, -1.0, 1.0);
  Rng.fill(L.data(), M, 0.2, 0.8);
  double K = Rng.uniform(0.5, 2.0);
  auto sS = meshad::hessian(springs, "x", meshad::Sparse);
  auto dS = meshad::hessian(springs, "x[0:12]");
  auto gS = meshad::gradient(springs, "x");
  sS.execute(X.data(), Edges.data(), L.data(), M, K, &H);
  dS.execute(X.data(), Edges.data(), L.data(), M, K, Dense.data());
  mt::checkAgainstDense("springs", H, NX, blockNonzeros(Edges, 2, 3), Dense);
  mt::checkSparseHessian(
      "springs", X,
      [&](double *P, meshad::SparseMatrix<double> *S) {
        sS.execute(P, Edges.data(), L.data(), M, K, S);
      },
      [&](double *P, double *G) {
        gS.execute(P, Edges.data(), L.data(), M, K, G);
      });
  // Other positions: the pattern is reused (built once).
  Rng.fill(X.data(), NX, -1.0, 1.0);
  sS.execute(X.data(), Edges.data(), L.data(), M, K, &H);
  dS.execute(X.data(), Edges.data(), L.data(), M, K, Dense.data());
  mt::checkAgainstDense("springs again", H, NX, blockNonzeros(Edges, 2, 3),
                        Dense);
  MESHAD_CHECK_CLOSE("springs pattern kept", double(H.Rebuilds), 1.0);
  // The edge list changed in place (a path 0-1-2-3 and a repeated edge):
  // same pointer, same count, another pattern.
  std::vector<int> Path = {0, 1, 1, 2, 2, 3, 1, 0, 2, 1, 3, 2, 0, 1};
  std::copy(Path.begin(), Path.end(), Edges.begin());
  sS.execute(X.data(), Edges.data(), L.data(), M, K, &H);
  dS.execute(X.data(), Edges.data(), L.data(), M, K, Dense.data());
  mt::checkAgainstDense("springs path", H, NX, blockNonzeros(Path, 2, 3),
                        Dense);
  MESHAD_CHECK_CLOSE("springs path rebuilt", double(H.Rebuilds), 2.0);
  // Fewer edges: the first 3 of the path.
  sS.execute(X.data(), Edges.data(), L.data(), 3, K, &H);
  dS.execute(X.data(), Edges.data(), L.data(), 3, K, Dense.data());
  std::vector<int> First3(Path.begin(), Path.begin() + 6);
  mt::checkAgainstDense("springs 3 edges", H, NX, blockNonzeros(First3, 2, 3),
                        Dense);

  // Two triangles sharing an edge, and a third with a vertex of its own.
  std::vector<int> Tris = {0, 1, 2, 1, 3, 2, 3, 4, 2};
  const int NT = 3, NV2 = 5, NX2 = 2 * NV2;
  std::vector<double> X2(NX2), A0(NT), Dense2(NX2 * NX2);
  Rng.fill(X2.data(), NX2, -1.0, 1.0);
  Rng.fill(A0.data(), NT, -0.2, 0.2);
  auto sT = meshad::hessian(triangles, "x", meshad::Sparse);
  auto dT = meshad::hessian(triangles, "x[0:10]");
  auto gT = meshad::gradient(triangles, "x");
  sT.execute(X2.data(), Tris.data(), A0.data(), NT, NV2, &H);
  dT.execute(X2.data(), Tris.data(), A0.data(), NT, NV2, Dense2.data());
  mt::checkAgainstDense("triangles", H, NX2, blockNonzeros(Tris, 3, 2),
                        Dense2);
  mt::checkSparseHessian(
      "triangles", X2,
      [&](double *P, meshad::SparseMatrix<double> *S) {
        sT.execute(P, Tris.data(), A0.data(), NT, NV2, S);
      },
      [&](double *P, double *G) {
        gT.execute(P, Tris.data(), A0.data(), NT, NV2, G);
      });
  return mt::summary();
}
