//===- test/Inputs/SparseHessianCheck.h - Sparse Hessians checked --------===//
//
// Checks a meshad::SparseMatrix (meshad::hessian(f, "x", meshad::Sparse))
// against the dense Hessian of the same function entry by entry, and
// against central differences of its gradient (HessianCheck.h). Not a test
// itself.
//
//===----------------------------------------------------------------------===//

#ifndef MESHAD_TEST_SPARSEHESSIANCHECK_H
#define MESHAD_TEST_SPARSEHESSIANCHECK_H

#include "HessianCheck.h"

namespace meshad {
namespace test {

/// The dense N x N matrix of \p H.
inline std::vector<double> denseOf(const meshad::SparseMatrix<double> &H,
                                   int N) {
  std::vector<double> D(N * N, 0.0);
  for (int R = 0; R < H.Rows; ++R)
    for (int E = H.RowOffsets[R]; E < H.RowOffsets[R + 1]; ++E)
      D[R * N + H.Columns[E]] = H.Values[E];
  return D;
}

/// Checks the sparse Hessian \p H (N rows, \p Nonzeros nonzeros, columns
/// sorted and unique) against the dense Hessian \p Dense entry by entry,
/// entries outside the pattern included (those must be exactly 0 there).
inline void checkAgainstDense(const std::string &Name,
                              const meshad::SparseMatrix<double> &H, int N,
                              int Nonzeros, const std::vector<double> &Dense) {
  MESHAD_CHECK_CLOSE((Name + " rows").c_str(), double(H.Rows), double(N));
  MESHAD_CHECK_CLOSE((Name + " nonzeros").c_str(), double(H.nonzeros()),
                     double(Nonzeros));
  bool Sorted = true;
  for (int R = 0; R < H.Rows; ++R)
    for (int E = H.RowOffsets[R] + 1; E < H.RowOffsets[R + 1]; ++E)
      Sorted &= H.Columns[E - 1] < H.Columns[E];
  MESHAD_CHECK_CLOSE((Name + " sorted").c_str(), Sorted ? 1.0 : 0.0, 1.0);
  std::vector<double> S = denseOf(H, N);
  double Scale = 0;
  for (double V : Dense)
    Scale = std::max(Scale, std::fabs(V));
  for (int I = 0; I < N; ++I)
    for (int J = 0; J < N; ++J) {
      std::string Entry = Name + " vs dense [" + std::to_string(I) + "][" +
                          std::to_string(J) + "]";
      double Got = S[I * N + J], Want = Dense[I * N + J];
      if (H.at(I, J) == 0.0 && Want == 0.0)
        continue; // outside the pattern and a zero of the dense Hessian
      if (std::fabs(Want) > 1e-12 * Scale)
        MESHAD_CHECK_CLOSE(Entry.c_str(), Got, Want);
      else
        MESHAD_CHECK_CLOSE_TOL((Entry + " (near 0)").c_str(), Got + Scale,
                               Want + Scale, 1e-12);
    }
}

/// Checks \p Sparse(X, &H) against central differences of \p Grad(X, G)
/// (all N elements of X).
template <class SparseFn, class GradFn>
void checkSparseHessian(const std::string &Name, const std::vector<double> &X,
                        SparseFn Sparse, GradFn Grad) {
  int N = static_cast<int>(X.size());
  meshad::SparseMatrix<double> H;
  checkHessian(
      Name, X, 0, N,
      [&](double *P, double *D) {
        Sparse(P, &H);
        std::vector<double> S = denseOf(H, N);
        std::copy(S.begin(), S.end(), D);
      },
      Grad);
}

} // namespace test
} // namespace meshad

#endif // MESHAD_TEST_SPARSEHESSIANCHECK_H
