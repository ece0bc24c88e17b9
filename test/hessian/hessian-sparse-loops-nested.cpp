// meshad::hessian(f, "x", meshad::Sparse) of loops whose bodies hold small
// loops of constant trip count (`for (int k = 0; k < 3; ++k)` over a
// vertex's coordinates or a stencil's weights): the inner loops are
// unrolled in a copy of f before the shape analysis, so each iteration
// reads the affine entries 3i + k, and the outer loop stays a loop (an
// affine one: sparseLoopAffine). The CSR against the dense
// meshad::hessian(f, "x[0:N]") entry by entry and against central
// differences of the gradient (relative error 1e-6), the nonzeros counted.
//
// RUN: %clangxx -std=c++17 -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%I -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
// NUM-NOT: FAIL
// NUM: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
#include "HessianCheck.h"
#include "SparseHessianCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

// Springs between consecutive 3D points: 3x3 blocks, 6 entries per edge.
double springs3(const double *x, int n) {
  double e = 0;
  for (int i = 0; i < n - 1; ++i) {
    double d2 = 0;
    for (int k = 0; k < 3; ++k) {
      double d = x[3 * i + k] - x[3 * i + 3 + k];
      d2 += d * d;
    }
    e += (sqrt(d2) - 1) * (sqrt(d2) - 1);
  }
  return e;
}
// CHECK-LABEL: void springs3_hessian_sparse(const double *x, int n, meshad::SparseMatrix<double> *H) {
// CHECK-NEXT: meshad::sparseLoopBegin(H);
// CHECK-NEXT: meshad::sparseLoopAffine<6, 68719476735ull, 3, 0, 3, 1, 3, 2, 3, 3, 3, 4, 3, 5>(H, 0, n - 1);
// CHECK-NEXT: for (int i = 0; i < n - 1; ++i) {
// CHECK-NEXT: double x_l[6] = {x[3 * i], x[3 * i + 1], x[3 * i + 2], x[3 * i + 3], x[3 * i + 4], x[3 * i + 5]};

// A 3-point window with weights, cubed: each window couples 3 entries.
double window(const double *x, const double *w, int n) {
  double e = 0;
  for (int i = 0; i < n - 2; ++i) {
    double s = 0;
    for (int k = 0; k < 3; ++k)
      s += w[k] * x[i + k];
    e += s * s * s;
  }
  return e;
}
// CHECK-LABEL: void window_hessian_sparse{{(_0)?}}(const double *x, const double *w, int n, meshad::SparseMatrix<double> *H) {
// CHECK-NEXT: meshad::sparseLoopBegin(H);
// CHECK-NEXT: meshad::sparseLoopAffine<3, 511ull, 1, 0, 1, 1, 1, 2>(H, 0, n - 2);

namespace mt = meshad::test;

int main() {
  mt::RandomInputs Rng;
  meshad::SparseMatrix<double> H;
  const int V = 4, N = 3 * V; // 4 points in 3D
  std::vector<double> X(N), Dense(N * N);
  auto sS = meshad::hessian(springs3, "x", meshad::Sparse);
  auto dS = meshad::hessian(springs3, "x[0:12]");
  auto gS = meshad::gradient(springs3, "x");
  for (int T = 0; T < 2; ++T) {
    Rng.fill(X.data(), N, -1.0, 1.0);
    sS.execute(X.data(), V, &H);
    dS.execute(X.data(), V, Dense.data());
    // Block tridiagonal: 3x3 blocks, 2 diagonal blocks of one edge, 2 of two.
    mt::checkAgainstDense("springs3", H, N, 9 * (3 * V - 2), Dense);
    mt::checkHessian(
        "springs3", X, 0, N,
        [&](double *P, double *D) {
          sS.execute(P, V, &H);
          std::vector<double> S = mt::denseOf(H, N);
          std::copy(S.begin(), S.end(), D);
        },
        [&](double *P, double *G) { gS.execute(P, V, G); });
  }
  const int M = 9;
  std::vector<double> Y(M), W(3), DenseW(M * M);
  auto sW = meshad::hessian(window, "x", meshad::Sparse);
  auto dW = meshad::hessian(window, "x[0:9]");
  auto gW = meshad::gradient(window, "x");
  Rng.fill(W.data(), 3, 0.5, 2.0);
  Rng.fill(Y.data(), M, -1.0, 1.0);
  sW.execute(Y.data(), W.data(), M, &H);
  dW.execute(Y.data(), W.data(), M, DenseW.data());
  mt::checkAgainstDense("window", H, M, 5 * M - 6, DenseW);
  mt::checkHessian(
      "window", Y, 0, M,
      [&](double *P, double *D) {
        sW.execute(P, W.data(), M, &H);
        std::vector<double> S = mt::denseOf(H, M);
        std::copy(S.begin(), S.end(), D);
      },
      [&](double *P, double *G) { gW.execute(P, W.data(), M, G); });
  return mt::summary();
}
