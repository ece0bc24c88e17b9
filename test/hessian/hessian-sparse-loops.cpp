// meshad::hessian(f, "x", meshad::Sparse): the CSR Hessian of a loop that
// sums local terms over affine-indexed entries of x, the trip count known
// at run time only. Per iteration the local Hessian of the term w.r.t. its
// few entries (<f>_term_hessian) is added into the CSR slots that
// meshad::sparseLoopBegin builds once from the stride, the offsets and the
// interacting pairs. Every sparse Hessian is checked against the dense
// forward-over-reverse Hessian (meshad::hessian(f, "x[0:N]")) and against
// central differences of meshad::gradient on random inputs; the pattern
// (nonzeros per row) against the structure each loop implies.
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

// A chain of squared differences: tridiagonal, 3n - 2 nonzeros.
double chain(const double *x, int n) {
  double loss = 0;
  for (int i = 1; i < n; ++i)
    loss += (x[i - 1] - x[i]) * (x[i - 1] - x[i]);
  return loss;
}
// The term over the iteration's entries, its local Hessian (one unique
// value), and the loop (affine: announced once with its bounds and forms)
// adding it through meshad::sparseLoopAffineAdd.
// CHECK-LABEL: double chain_term(int n, int i, const double *x) {
// CHECK-NEXT: double loss = 0.;
// CHECK-NEXT: loss += (x[0] - x[1]) * (x[0] - x[1]);
// CHECK-NEXT: return loss;
// CHECK-LABEL: void chain_term_hessian(int n, int i, const double *x, double *H) {
// CHECK-NEXT: // Hessian pattern: 2 x 2, 1 unique values
// CHECK-LABEL: void chain_hessian_sparse(const double *x, int n, meshad::SparseMatrix<double> *H) {
// CHECK-NEXT: meshad::sparseLoopBegin(H);
// CHECK-NEXT: meshad::sparseLoopAffine<2, 15ull, 1, -1, 1, 0>(H, 1, n);
// CHECK-NEXT: for (int i = 1; i < n; ++i) {
// CHECK-NEXT: double x_l[2] = {x[i - 1], x[i]};
// CHECK-NEXT: double hl[4];
// CHECK-NEXT: chain_term_hessian(n, i, x_l, hl);
// CHECK-NEXT: meshad::sparseLoopAffineAdd<2, 15ull>(H, hl);
// CHECK-NEXT: }
// CHECK-NEXT: meshad::sparseLoopEnd(H);
// CHECK-NEXT: }
// REMARK: remark: sparse hessian of 'chain' w.r.t. 'x': each iteration of the loop over i reads x[i - 1], x[i]; local Hessian of 2 entries: 1 unique values, 4 nonzero entries, added into CSR slots

// sum_i a[i] x[i]^2 + sin(x[i]): diagonal.
double weighted(const double *a, const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += a[i] * x[i] * x[i] + sin(x[i]);
  return s;
}
// CHECK-LABEL: void weighted_hessian_sparse_1(const double *a, const double *x, int n, meshad::SparseMatrix<double> *H) {
// CHECK-NEXT: meshad::sparseLoopBegin(H);
// CHECK-NEXT: meshad::sparseLoopAffine<1, 1ull, 1, 0>(H, 0, n);
// CHECK-NEXT: for (int i = 0; i < n; ++i) {
// CHECK-NEXT: double x_l[1] = {x[i]};
// CHECK: weighted_term_hessian(a, n, i, x_l, hl);
// CHECK-NEXT: meshad::sparseLoopAffineAdd<1, 1ull>(H, hl);
// REMARK: remark: sparse hessian of 'weighted' w.r.t. 'x': each iteration of the loop over i reads x[i]; local Hessian of 1 entries: 1 unique values, 1 nonzero entries

// A 3-point stencil (a discrete bending energy): pentadiagonal.
double bending(const double *x, int n, double k) {
  double e = 0;
  for (int i = 1; i < n - 1; ++i) {
    double lap = x[i - 1] - 2.0 * x[i] + x[i + 1];
    e += k * lap * lap + cos(x[i] * x[i + 1]);
  }
  return e;
}
// CHECK-LABEL: double bending_term(int n, double k, int i, const double *x) {
// CHECK-NEXT: double e = 0.;
// CHECK-NEXT: double lap = x[0] - 2.0 * x[1] + x[2];
// CHECK-NEXT: e += k * lap * lap + cos(x[1] * x[2]);
// CHECK-LABEL: void bending_term_hessian(int n, double k, int i, const double *x, double *H) {
// CHECK-NEXT: // Hessian pattern: 3 x 3, 5 unique values
// CHECK-LABEL: void bending_hessian_sparse_0(const double *x, int n, double k, meshad::SparseMatrix<double> *H) {
// CHECK-NEXT: meshad::sparseLoopBegin(H);
// CHECK-NEXT: meshad::sparseLoopAffine<3, 511ull, 1, -1, 1, 0, 1, 1>(H, 1, n - 1);
// CHECK-NEXT: for (int i = 1; i < n - 1; ++i) {
// CHECK-NEXT: double x_l[3] = {x[i - 1], x[i], x[i + 1]};
// CHECK: bending_term_hessian(n, k, i, x_l, hl);
// CHECK-NEXT: meshad::sparseLoopAffineAdd<3, 511ull>(H, hl);
// REMARK: remark: sparse hessian of 'bending' w.r.t. 'x': each iteration of the loop over i reads x[i - 1], x[i], x[i + 1]; local Hessian of 3 entries: 5 unique values, 9 nonzero entries

// Pairs x[2i], x[2i+1]: 2x2 diagonal blocks (stride 2).
double pairs(const double *x, int m) {
  double s = 0;
  for (int i = 0; i < m; ++i)
    s += x[2 * i] * x[2 * i] * x[2 * i + 1] + exp(x[2 * i + 1]);
  return s;
}
// CHECK-LABEL: void pairs_hessian_sparse(const double *x, int m, meshad::SparseMatrix<double> *H) {
// CHECK-NEXT: meshad::sparseLoopBegin(H);
// CHECK-NEXT: meshad::sparseLoopAffine<2, 15ull, 2, 0, 2, 1>(H, 0, m);
// CHECK-NEXT: for (int i = 0; i < m; ++i) {
// CHECK-NEXT: double x_l[2] = {x[2 * i], x[2 * i + 1]};
// REMARK: remark: sparse hessian of 'pairs' w.r.t. 'x': each iteration of the loop over i reads x[2*i], x[2*i + 1]; local Hessian of 2 entries: 3 unique values, 4 nonzero entries

// Entries that do not all interact: x[i]*x[i+1] couples (i, i+1) only,
// x[i+2]^3 the diagonal; `i <= last` through a local bound.
double mixed(const double *x, int n) {
  double s = 0;
  int last = n - 3;
  for (int i = 0; i <= last; ++i)
    s -= x[i] * x[i + 1] + x[i + 2] * x[i + 2] * x[i + 2];
  return s;
}
// Pairs (0, 1), (1, 0) and (2, 2): the mask 2 + 8 + 256; the bound
// `i <= last` reads the local `last`, copied.
// CHECK-LABEL: double mixed_term(int n, int i, const double *x) {
// CHECK-NEXT: double s = 0.;
// CHECK-NEXT: s -= x[0] * x[1] + x[2] * x[2] * x[2];
// CHECK-LABEL: void mixed_term_hessian(int n, int i, const double *x, double *H) {
// CHECK-NEXT: // Hessian pattern: 3 x 3, 2 unique values
// CHECK-NEXT: {{^  //     0   v0    0$}}
// CHECK-NEXT: {{^  //    v0    0    0$}}
// CHECK-NEXT: {{^  //     0    0   v1$}}
// CHECK-LABEL: void mixed_hessian_sparse(const double *x, int n, meshad::SparseMatrix<double> *H) {
// CHECK-NEXT: int last = n - 3;
// CHECK-NEXT: meshad::sparseLoopBegin(H);
// CHECK-NEXT: meshad::sparseLoopAffine<3, 266ull, 1, 0, 1, 1, 1, 2>(H, 0, last + 1);
// CHECK-NEXT: for (int i = 0; i <= last; ++i) {
// CHECK-NEXT: double x_l[3] = {x[i], x[i + 1], x[i + 2]};
// CHECK: meshad::sparseLoopAffineAdd<3, 266ull>(H, hl);
// REMARK: remark: sparse hessian of 'mixed' w.r.t. 'x': each iteration of the loop over i reads x[i], x[i + 1], x[i + 2]; local Hessian of 3 entries: 2 unique values, 3 nonzero entries

namespace mt = meshad::test;

static std::vector<double> dense(const meshad::SparseMatrix<double> &H, int N) {
  return mt::denseOf(H, N);
}
using mt::checkAgainstDense;

int main() {
  mt::RandomInputs Rng;
  const int N = 9;
  std::vector<double> X(N), A(N);
  meshad::SparseMatrix<double> H;
  std::vector<double> Dense(N * N);

  auto sChain = meshad::hessian(chain, "x", meshad::Sparse);
  auto dChain = meshad::hessian(chain, "x[0:9]");
  auto gChain = meshad::gradient(chain, "x");
  Rng.fill(X.data(), N, -1.0, 1.0);
  sChain.execute(X.data(), N, &H);
  dChain.execute(X.data(), N, Dense.data());
  checkAgainstDense("chain", H, N, 3 * N - 2, Dense);
  mt::checkHessian(
      "chain", X, 0, N,
      [&](double *P, double *D) {
        sChain.execute(P, N, &H);
        std::vector<double> S = dense(H, N);
        std::copy(S.begin(), S.end(), D);
      },
      [&](double *P, double *G) { gChain.execute(P, N, G); });
  // Linear in n: a long chain keeps 3n - 2 nonzeros, then a short one
  // (the pattern rebuilt for the new range, in the same call).
  std::vector<double> Long(100000);
  Rng.fill(Long.data(), 100000, -1.0, 1.0);
  sChain.execute(Long.data(), 100000, &H);
  MESHAD_CHECK_CLOSE("chain 1e5 nonzeros", double(H.nonzeros()),
                     3.0 * 100000 - 2);
  MESHAD_CHECK_CLOSE("chain 1e5 H[5][6]", H.at(5, 6), -2.0);
  MESHAD_CHECK_CLOSE("chain 1e5 H[5][5]", H.at(5, 5), 4.0);
  MESHAD_CHECK_CLOSE("chain 1e5 H[0][0]", H.at(0, 0), 2.0);
  int Builds = H.Rebuilds;
  sChain.execute(X.data(), N, &H);
  checkAgainstDense("chain again", H, N, 3 * N - 2, Dense);
  MESHAD_CHECK_CLOSE("chain rebuilt for the short range", double(H.Rebuilds),
                     Builds + 1.0);

  auto sW = meshad::hessian(weighted, "x", meshad::Sparse);
  auto dW = meshad::hessian(weighted, "x[0:9]");
  auto gW = meshad::gradient(weighted, "x");
  Rng.fill(A.data(), N, 0.5, 2.0);
  Rng.fill(X.data(), N, -1.0, 1.0);
  sW.execute(A.data(), X.data(), N, &H);
  dW.execute(A.data(), X.data(), N, Dense.data());
  checkAgainstDense("weighted", H, N, N, Dense);
  mt::checkHessian(
      "weighted", X, 0, N,
      [&](double *P, double *D) {
        sW.execute(A.data(), P, N, &H);
        std::vector<double> S = dense(H, N);
        std::copy(S.begin(), S.end(), D);
      },
      [&](double *P, double *G) { gW.execute(A.data(), P, N, G); });

  auto sB = meshad::hessian(bending, "x", meshad::Sparse);
  auto dB = meshad::hessian(bending, "x[0:9]");
  auto gB = meshad::gradient(bending, "x");
  double K = Rng.uniform(0.5, 2.0);
  Rng.fill(X.data(), N, -1.0, 1.0);
  sB.execute(X.data(), N, K, &H);
  dB.execute(X.data(), N, K, Dense.data());
  // Pentadiagonal: 5 per row, 4 and 3 in the first and last two rows.
  checkAgainstDense("bending", H, N, 5 * N - 6, Dense);
  mt::checkHessian(
      "bending", X, 0, N,
      [&](double *P, double *D) {
        sB.execute(P, N, K, &H);
        std::vector<double> S = dense(H, N);
        std::copy(S.begin(), S.end(), D);
      },
      [&](double *P, double *G) { gB.execute(P, N, K, G); });

  const int M = 5, N2 = 2 * M;
  std::vector<double> X2(N2), Dense2(N2 * N2);
  auto sP = meshad::hessian(pairs, "x", meshad::Sparse);
  auto dP = meshad::hessian(pairs, "x[0:10]");
  auto gP = meshad::gradient(pairs, "x");
  Rng.fill(X2.data(), N2, -1.0, 1.0);
  sP.execute(X2.data(), M, &H);
  dP.execute(X2.data(), M, Dense2.data());
  checkAgainstDense("pairs", H, N2, 4 * M, Dense2);
  mt::checkHessian(
      "pairs", X2, 0, N2,
      [&](double *P, double *D) {
        sP.execute(P, M, &H);
        std::vector<double> S = dense(H, N2);
        std::copy(S.begin(), S.end(), D);
      },
      [&](double *P, double *G) { gP.execute(P, M, G); });

  auto sM = meshad::hessian(mixed, "x", meshad::Sparse);
  auto dM = meshad::hessian(mixed, "x[0:9]");
  auto gM = meshad::gradient(mixed, "x");
  Rng.fill(X.data(), N, -1.0, 1.0);
  sM.execute(X.data(), N, &H);
  dM.execute(X.data(), N, Dense.data());
  // (i, i+1) for i < N - 2 both ways, the diagonal from 2 on.
  checkAgainstDense("mixed", H, N, 2 * (N - 2) + (N - 2), Dense);
  mt::checkHessian(
      "mixed", X, 0, N,
      [&](double *P, double *D) {
        sM.execute(P, N, &H);
        std::vector<double> S = dense(H, N);
        std::copy(S.begin(), S.end(), D);
      },
      [&](double *P, double *G) { gM.execute(P, N, G); });
  return mt::summary();
}
