//===- SolveCheck.h - Numeric checks of solver problems ---------*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
//
// Checks the derivatives a meshad::runtime::solve::Problem evaluates against
// central differences (test/Inputs/NumericCheck.h), on the host copy of the
// DOFs: the gradient against differences of the energy, the global sparse
// Hessian (unprojected, densified from CSR) against differences of the
// gradient, and the HVP against the dense Hessian times a random vector.
// Also the dense helpers of solver tests: CSR to dense, a dense solve.
//
//===----------------------------------------------------------------------===//

#ifndef MESHAD_TEST_SOLVECHECK_H
#define MESHAD_TEST_SOLVECHECK_H

#include "NumericCheck.h"
#include <meshad/runtime/solve/Problem.h>

#include <cmath>
#include <string>
#include <vector>

namespace meshad {
namespace test {

namespace rs = meshad::runtime::solve;

/// The dense row-major matrix of a CSR view.
template <class T> std::vector<double> denseOf(const rs::CsrView<T> &A) {
  int N = A.Rows, Nnz = 0;
  cudaMemcpy(&Nnz, A.RowOffsets + N, sizeof(int), cudaMemcpyDeviceToHost);
  std::vector<int> Off(N + 1), Col(Nnz);
  std::vector<T> Val(Nnz);
  cudaMemcpy(Off.data(), A.RowOffsets, (N + 1) * sizeof(int),
             cudaMemcpyDeviceToHost);
  cudaMemcpy(Col.data(), A.Columns, Nnz * sizeof(int), cudaMemcpyDeviceToHost);
  cudaMemcpy(Val.data(), A.Values, Nnz * sizeof(T), cudaMemcpyDeviceToHost);
  std::vector<double> D(static_cast<size_t>(N) * N, 0.0);
  for (int R = 0; R < N; ++R)
    for (int P = Off[R]; P < Off[R + 1]; ++P)
      D[static_cast<size_t>(R) * N + Col[P]] += Val[P];
  return D;
}

/// Solves the dense A x = b by Gaussian elimination with partial pivoting.
inline std::vector<double> denseSolve(std::vector<double> A,
                                      std::vector<double> B) {
  int N = static_cast<int>(B.size());
  for (int C = 0; C < N; ++C) {
    int Piv = C;
    for (int R = C + 1; R < N; ++R)
      if (std::fabs(A[R * N + C]) > std::fabs(A[Piv * N + C]))
        Piv = R;
    for (int K = 0; K < N; ++K)
      std::swap(A[C * N + K], A[Piv * N + K]);
    std::swap(B[C], B[Piv]);
    for (int R = C + 1; R < N; ++R) {
      double F = A[R * N + C] / A[C * N + C];
      for (int K = C; K < N; ++K)
        A[R * N + K] -= F * A[C * N + K];
      B[R] -= F * B[C];
    }
  }
  for (int R = N - 1; R >= 0; --R) {
    for (int K = R + 1; K < N; ++K)
      B[R] -= A[R * N + K] * B[K];
    B[R] /= A[R * N + R];
  }
  return B;
}

/// The gradient against central differences of the energy, every entry of
/// the unprojected global Hessian against central differences of the
/// gradient (relative to the largest entry of its column),
/// and H v against the dense H times V. X: the host DOFs. Pinned DOFs are
/// skipped (the problem fixes their gradient and rows).
template <class T>
void checkProblemDerivatives(const std::string &Tag, rs::Problem<T> &P,
                             std::vector<T> X, RandomInputs &Rng,
                             const std::vector<int> &Pinned = {}) {
  long N = P.numDofs();
  std::vector<char> IsPinned(N, 0);
  for (int D : Pinned)
    IsPinned[D] = 1;
  rs::DeviceBuffer<T> DX(N), DG(N), DV(N), DHv(N);
  auto Energy = [&] {
    DX.upload(X.data());
    return static_cast<double>(P.energy(DX.data()));
  };
  auto Gradient = [&] {
    DX.upload(X.data());
    P.gradient(DX.data(), DG.data());
    return DG.download();
  };
  std::vector<T> G = Gradient();
  for (long I = 0; I < N; ++I)
    if (!IsPinned[I])
      MESHAD_CHECK_CLOSE(Tag + " gradient[" + std::to_string(I) + "]", G[I],
                         centralDifferenceAt(Energy, X.data(), I));
  DX.upload(X.data());
  std::vector<double> H = denseOf(P.hessian(DX.data(), /*Project=*/false));
  for (long J = 0; J < N; ++J) {
    if (IsPinned[J])
      continue;
    // Fourth-order central differences of the whole gradient along X[J]
    // (step 1e-3 max(1, |X[J]|): truncation and round-off near 1e-12).
    double Step = 1e-3 * std::max(1.0, std::fabs(double(X[J])));
    T Saved = X[J];
    std::vector<std::vector<T>> Gs;
    for (double K : {2.0, 1.0, -1.0, -2.0}) {
      X[J] = static_cast<T>(Saved + K * Step);
      Gs.push_back(Gradient());
    }
    X[J] = Saved;
    std::vector<double> Col(N);
    for (long I = 0; I < N; ++I)
      Col[I] = (-double(Gs[0][I]) + 8.0 * Gs[1][I] - 8.0 * Gs[2][I] +
                double(Gs[3][I])) /
               (12 * Step);
    // |H - differences| <= 1e-6 times the column's largest entry: the
    // structural zeros' differences are round-off, which no relative check
    // of a zero passes.
    double Scale = 0;
    for (long I = 0; I < N; ++I)
      Scale = std::max(Scale, std::fabs(Col[I]));
    Scale = Scale > 0 ? Scale : 1;
    for (long I = 0; I < N; ++I)
      if (!IsPinned[I])
        MESHAD_CHECK_CLOSE_TOL(Tag + " hessian(" + std::to_string(I) + ", " +
                                   std::to_string(J) + ")",
                               1 + (H[I * N + J] - Col[I]) / Scale, 1.0, 1e-6);
  }
  std::vector<T> V(N);
  Rng.fill(V.data(), N, -1.0, 1.0);
  DX.upload(X.data());
  DV.upload(V.data());
  P.hvp(DX.data(), DV.data(), DHv.data(), /*Project=*/false);
  std::vector<T> Hv = DHv.download();
  for (long I = 0; I < N; ++I) {
    if (IsPinned[I])
      continue;
    double Ref = 0;
    for (long J = 0; J < N; ++J)
      Ref += H[I * N + J] * (IsPinned[J] ? 0.0 : double(V[J]));
    MESHAD_CHECK_CLOSE(Tag + " hvp[" + std::to_string(I) + "]", Hv[I], Ref);
  }
}

} // namespace test
} // namespace meshad

#endif // MESHAD_TEST_SOLVECHECK_H
