//===- test/Inputs/HessianCheck.h - Hessians against differences ---------===//
//
// Checks a dense Hessian (row-major K x K over elements Begin..Begin+K-1 of
// an array x) against the central differences of the gradient of the same
// function (meshad::gradient), entry by entry, on the inputs given. Not a
// test itself.
//
//===----------------------------------------------------------------------===//

#ifndef MESHAD_TEST_HESSIANCHECK_H
#define MESHAD_TEST_HESSIANCHECK_H

#include "NumericCheck.h"
#include <meshad/Differentiator.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace meshad {
namespace test {

/// \p Hess(X, H) fills H (K x K); \p Grad(X, G) adds the gradient w.r.t.
/// all N elements of X into G. Entry (i, j) is checked against
/// d G[Begin + i] / d X[Begin + j] by central differences: relative error
/// at most 1e-6 where the difference is not negligible; where it is (a
/// structural zero, whose difference is rounding noise), |H - Fd| at most
/// 1e-6 times the largest entry of the matrix (MESHAD_CHECK_CLOSE_TOL on
/// H + Scale against Fd + Scale). Also checks that H is symmetric to
/// rounding.
template <class HessFn, class GradFn>
void checkHessian(const std::string &Name, std::vector<double> X, int Begin,
                  int K, HessFn Hess, GradFn Grad) {
  int N = static_cast<int>(X.size());
  std::vector<double> H(K * K, std::nan(""));
  Hess(X.data(), H.data());
  std::vector<double> Fd(K * K);
  double Scale = 0;
  for (int J = 0; J < K; ++J)
    for (int I = 0; I < K; ++I) {
      Fd[I * K + J] = centralDifferenceAt(
          [&] {
            std::vector<double> G(N, 0.0);
            Grad(X.data(), G.data());
            return G[Begin + I];
          },
          X.data(), Begin + J);
      Scale = std::max(Scale, std::fabs(Fd[I * K + J]));
    }
  for (int I = 0; I < K; ++I)
    for (int J = 0; J < K; ++J) {
      std::string Entry = Name + " H[" + std::to_string(I) + "][" +
                          std::to_string(J) + "]";
      double Got = H[I * K + J], Want = Fd[I * K + J];
      if (std::fabs(Want) > 1e-6 * Scale)
        MESHAD_CHECK_CLOSE(Entry.c_str(), Got, Want);
      else
        MESHAD_CHECK_CLOSE_TOL((Entry + " (near 0)").c_str(), Got + Scale,
                               Want + Scale, 1e-6);
    }
  double Asym = 0;
  for (int I = 0; I < K; ++I)
    for (int J = 0; J < I; ++J)
      Asym = std::max(Asym, std::fabs(H[I * K + J] - H[J * K + I]));
  MESHAD_CHECK_CLOSE_TOL((Name + " symmetric").c_str(), Asym + Scale, Scale,
                         1e-12);
}

/// Checks that two functions of the same arguments (a function and its
/// hand-inlined twin) give the same K x K Hessian, entry by entry:
/// \p Hf(H) and \p Hg(H) fill H.
template <class F, class G>
void checkSame(const std::string &Name, int K, F Hf, G Hg) {
  std::vector<double> A(K * K), B(K * K);
  Hf(A.data());
  Hg(B.data());
  for (int E = 0; E < K * K; ++E)
    MESHAD_CHECK_CLOSE((Name + " twin H[" + std::to_string(E) + "]").c_str(),
                       A[E], B[E]);
}

/// Checks that \p h.execute_packed(A..., vals) expanded by meshad::unpack
/// is exactly \p h.execute(A..., H) (the same arithmetic), and that the
/// pattern has \p NumValues values and \p NumNonzeros nonzero entries.
template <class Handle, class... Args>
void checkPacked(const std::string &Name, const Handle &h, int NumValues,
                 int NumNonzeros, Args... A) {
  const HessianPattern &P = h.pattern();
  std::vector<double> Dense(P.Size * P.Size), Vals(P.NumValues, std::nan("")),
      Unpacked(P.Size * P.Size);
  h.execute(A..., Dense.data());
  h.execute_packed(A..., Vals.data());
  unpack(P, Vals.data(), Unpacked.data());
  MESHAD_CHECK_CLOSE((Name + " packed").c_str(),
                     Dense == Unpacked ? 1.0 : 0.0, 1.0);
  MESHAD_CHECK_CLOSE((Name + " values").c_str(), double(P.NumValues),
                     double(NumValues));
  MESHAD_CHECK_CLOSE((Name + " nonzeros").c_str(), double(P.numNonzeros()),
                     double(NumNonzeros));
}

} // namespace test
} // namespace meshad

#endif // MESHAD_TEST_HESSIANCHECK_H
