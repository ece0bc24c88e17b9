// meshad::hessian(f, "x", meshad::Sparse) of grid energies: a nest of two
// loops of run-time trip counts over an n x m grid stored row by row
// (x[i * m + j], the row length a parameter), with boundary terms under
// conditions on the counters (`if (j + 1 < m)`): an entry read under a
// condition is gathered and added only where the condition holds (its
// row is meshad::SkipRow elsewhere), so the last row and column read
// nothing past the grid. The CSR against the dense
// meshad::hessian(f, "x[0:N]") entry by entry and against central
// differences of the gradient (relative error 1e-6), the nonzeros counted.
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

// A chain with boundary terms: the edge term only where i + 1 < n, a
// product of three neighbours only inside, a potential everywhere.
double boundary(const double *x, int n) {
  double e = 0;
  for (int i = 0; i < n; ++i) {
    e += x[i] * x[i] * x[i] * x[i];
    if (i + 1 < n) {
      double d = x[i + 1] - x[i];
      e += d * d * d * d;
    }
    if (i > 0 && i + 1 < n)
      e += x[i - 1] * x[i] * x[i + 1];
  }
  return e;
}
// CHECK-LABEL: double boundary_term(int n, int i, const double *x) {
// CHECK:      if (i + 1 < n) {
// CHECK:      if (i > 0 && i + 1 < n)
// CHECK-LABEL: void boundary_term_hessian(int n, int i, const double *x, double *H) {
// CHECK-LABEL: void boundary_term_hessian_packed(int n, int i, const double *x, double *vals) {
// CHECK-LABEL: void boundary_hessian_sparse(const double *x, int n, meshad::SparseMatrix<double> *H) {
// CHECK-NEXT: meshad::sparseLoopBegin(H);
// CHECK-NEXT: for (int i = 0; i < n; ++i) {
// CHECK-NEXT: int x_rows[3] = {i > 0 && i + 1 < n ? i - 1 : meshad::SkipRow, i, i + 1 < n ? i + 1 : meshad::SkipRow};
// CHECK-NEXT: double x_l[3] = {i > 0 && i + 1 < n ? x[x_rows[0]] : 0., x[x_rows[1]], i + 1 < n ? x[x_rows[2]] : 0.};
// CHECK-NEXT: double hl[9];
// CHECK-NEXT: boundary_term_hessian(n, i, x_l, hl);
// CHECK-NEXT: meshad::sparseLoopAdd<3, 510ull>(H, x_rows, hl);
// CHECK:      meshad::sparseLoopEnd(H);
// CHECK-LABEL: void boundary_hessian(const double *x, int n, double *H) {
// CHECK-LABEL: void boundary_hessian_packed(const double *x, int n, double *vals) {
// CHECK-LABEL: void boundary_grad(const double *x, int n, double *_d_x) {
// REMARK: remark: sparse hessian of 'boundary' w.r.t. 'x': each iteration of the loop over i reads x[i - 1] (under a condition), x[i], x[i + 1] (under a condition)

// Image smoothness over an n x m grid: the squared differences to the
// right and lower neighbours, raised to a power, and a data term.
double smooth(const double *x, const double *f, int n, int m) {
  double e = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < m; ++j) {
      double c = x[i * m + j];
      e += (c - f[i * m + j]) * (c - f[i * m + j]) * cos(c);
      if (j + 1 < m) {
        double d = x[i * m + j + 1] - c;
        e += d * d * d * d;
      }
      if (i + 1 < n) {
        double d = x[i * m + j + m] - c;
        e += d * d * d * d;
      }
    }
  return e;
}
// CHECK-LABEL: double smooth_term(const double *f, int n, int m, int i, int j, const double *x) {
// CHECK-LABEL: void smooth_term_hessian(const double *f, int n, int m, int i, int j, const double *x, double *H) {
// CHECK-LABEL: void smooth_term_hessian_packed(
// The term's branches keep its local pattern whole: the pair of the right
// and lower neighbours is an explicit zero of the matrix.
// CHECK-LABEL: void smooth_hessian_sparse_0(const double *x, const double *f, int n, int m, meshad::SparseMatrix<double> *H) {
// CHECK-NEXT: meshad::sparseLoopBegin(H);
// CHECK-NEXT: for (int i = 0; i < n; ++i) {
// CHECK-NEXT: for (int j = 0; j < m; ++j) {
// CHECK-NEXT: int x_rows[3] = {i + 1 < n ? i * m + m + j : meshad::SkipRow, i * m + j, j + 1 < m ? i * m + j + 1 : meshad::SkipRow};
// CHECK-NEXT: double x_l[3] = {i + 1 < n ? x[x_rows[0]] : 0., x[x_rows[1]], j + 1 < m ? x[x_rows[2]] : 0.};
// CHECK-NEXT: double hl[9];
// CHECK-NEXT: smooth_term_hessian(f, n, m, i, j, x_l, hl);
// CHECK-NEXT: meshad::sparseLoopAdd<3, 511ull>(H, x_rows, hl);
// CHECK-LABEL: void smooth_hessian_0(const double *x, const double *f, int n, int m, double *H) {
// CHECK-LABEL: void smooth_hessian_0_packed(
// CHECK-LABEL: void smooth_grad_0(const double *x, const double *f, int n, int m, double *_d_x) {
// REMARK: remark: sparse hessian of 'smooth' w.r.t. 'x': each iteration of the loop over i reads x[i*m + m + j] (under a condition), x[i*m + j], x[i*m + j + 1] (under a condition)

// A 2-D Laplacian (5-point) energy on the interior, cubed, then a quartic
// potential on every point (a second loop: the corners are read there).
double laplace(const double *x, int n, int m) {
  double e = 0;
  for (int i = 1; i < n - 1; ++i)
    for (int j = 1; j < m - 1; ++j) {
      double l = x[(i - 1) * m + j] + x[(i + 1) * m + j] + x[i * m + j - 1] +
                 x[i * m + j + 1] - 4 * x[i * m + j];
      e += l * l * l;
    }
  for (int p = 0; p < n * m; ++p)
    e += 0.1 * x[p] * x[p] * x[p] * x[p];
  return e;
}
// CHECK-LABEL: double laplace_term(int n, int m, int i, int j, const double *x) {
// CHECK-LABEL: void laplace_term_hessian(int n, int m, int i, int j, const double *x, double *H) {
// CHECK-LABEL: void laplace_term_hessian_packed(
// CHECK-LABEL: double laplace_term2(int n, int m, int p, const double *x) {
// CHECK-LABEL: void laplace_term2_hessian(int n, int m, int p, const double *x, double *H) {
// CHECK-LABEL: void laplace_term2_hessian_packed(
// CHECK-LABEL: void laplace_hessian_sparse(const double *x, int n, int m, meshad::SparseMatrix<double> *H) {
// CHECK-NEXT: meshad::sparseLoopBegin(H);
// CHECK-NEXT: for (int i = 1; i < n - 1; ++i) {
// CHECK-NEXT: for (int j = 1; j < m - 1; ++j) {
// CHECK-NEXT: int x_rows[5] = {i * m - m + j, i * m + m + j, i * m + j - 1, i * m + j, i * m + j + 1};
// CHECK-NEXT: double x_l[5] = {x[x_rows[0]], x[x_rows[1]], x[x_rows[2]], x[x_rows[3]], x[x_rows[4]]};
// CHECK-NEXT: double hl[25];
// CHECK-NEXT: laplace_term_hessian(n, m, i, j, x_l, hl);
// CHECK-NEXT: meshad::sparseLoopAdd<5, 33554431ull>(H, x_rows, hl);
// CHECK:      meshad::sparseLoopAffine<1, 1ull, 1, 0>(H, 0, n * m);
// CHECK-LABEL: void laplace_hessian(const double *x, int n, int m, double *H) {
// CHECK-LABEL: void laplace_hessian_packed(
// CHECK-LABEL: void laplace_grad(const double *x, int n, int m, double *_d_x) {

namespace mt = meshad::test;

/// The pairs of points (p, q) of an n x m grid that are neighbours or
/// equal, or (\p Stencil) that share an interior 5-point stencil.
static int countPairs(int N, int M, bool Stencil) {
  int Count = 0;
  for (int P = 0; P < N * M; ++P)
    for (int Q = 0; Q < N * M; ++Q) {
      int Dr = std::abs(P / M - Q / M), Dc = std::abs(P % M - Q % M);
      bool Near = Dr + Dc <= 1;
      if (Stencil) {
        Near = false;
        for (int I = 1; I < N - 1; ++I)
          for (int J = 1; J < M - 1; ++J) {
            auto In = [&](int V) {
              int R = V / M, C = V % M;
              return std::abs(R - I) + std::abs(C - J) <= 1;
            };
            Near = Near || (In(P) && In(Q));
          }
      }
      Count += Near;
    }
  return Count;
}

int main() {
  mt::RandomInputs Rng;
  meshad::SparseMatrix<double> H;
  {
    const int N = 7;
    std::vector<double> X(N), Dense(N * N);
    auto sB = meshad::hessian(boundary, "x", meshad::Sparse);
    auto dB = meshad::hessian(boundary, "x[0:7]");
    auto gB = meshad::gradient(boundary, "x");
    Rng.fill(X.data(), N, -1.0, 1.0);
    sB.execute(X.data(), N, &H);
    dB.execute(X.data(), N, Dense.data());
    mt::checkAgainstDense("boundary", H, N, 5 * N - 6, Dense);
    mt::checkSparseHessian(
        "boundary", X,
        [&](double *P, meshad::SparseMatrix<double> *S) {
          sB.execute(P, N, S);
        },
        [&](double *P, double *G) { gB.execute(P, N, G); });
  }
  {
    const int N = 3, M = 4, K = N * M;
    std::vector<double> X(K), F(K), Dense(K * K);
    auto sS = meshad::hessian(smooth, "x", meshad::Sparse);
    auto dS = meshad::hessian(smooth, "x[0:12]");
    auto gS = meshad::gradient(smooth, "x");
    Rng.fill(X.data(), K, -1.0, 1.0);
    Rng.fill(F.data(), K, -1.0, 1.0);
    sS.execute(X.data(), F.data(), N, M, &H);
    dS.execute(X.data(), F.data(), N, M, Dense.data());
    // Neighbours, and the explicit zeros (right, lower) of interior points.
    mt::checkAgainstDense("smooth", H, K,
                          countPairs(N, M, false) + 2 * (N - 1) * (M - 1),
                          Dense);
    mt::checkSparseHessian(
        "smooth", X,
        [&](double *P, meshad::SparseMatrix<double> *S) {
          sS.execute(P, F.data(), N, M, S);
        },
        [&](double *P, double *G) { gS.execute(P, F.data(), N, M, G); });
    // Another grid shape: the pattern rebuilt.
    std::vector<double> Y(K), DenseY(K * K);
    Rng.fill(Y.data(), K, -1.0, 1.0);
    meshad::SparseMatrix<double> HS;
    sS.execute(X.data(), F.data(), N, M, &HS);
    sS.execute(Y.data(), F.data(), M, N, &HS);
    dS.execute(Y.data(), F.data(), M, N, DenseY.data());
    mt::checkAgainstDense("smooth transposed", HS, K,
                          countPairs(M, N, false) + 2 * (N - 1) * (M - 1),
                          DenseY);
    MESHAD_CHECK_CLOSE("smooth builds", double(HS.Rebuilds), 2.0);
  }
  {
    const int N = 4, M = 5, K = N * M;
    std::vector<double> X(K), Dense(K * K);
    auto sL = meshad::hessian(laplace, "x", meshad::Sparse);
    auto dL = meshad::hessian(laplace, "x[0:20]");
    auto gL = meshad::gradient(laplace, "x");
    Rng.fill(X.data(), K, -1.0, 1.0);
    sL.execute(X.data(), N, M, &H);
    dL.execute(X.data(), N, M, Dense.data());
    // The stencils' pairs and the 4 corners' diagonal entries.
    mt::checkAgainstDense("laplace", H, K, countPairs(N, M, true) + 4, Dense);
    mt::checkSparseHessian(
        "laplace", X,
        [&](double *P, meshad::SparseMatrix<double> *S) {
          sL.execute(P, N, M, S);
        },
        [&](double *P, double *G) { gL.execute(P, N, M, G); });
  }
  return mt::summary();
}
