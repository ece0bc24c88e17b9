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
