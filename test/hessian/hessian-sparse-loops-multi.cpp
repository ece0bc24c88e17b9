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
  MESHAD_CHECK_CLOSE("twoAccs pattern built once", double(H.Rebuilds), 1.0);
  return mt::summary();
}
