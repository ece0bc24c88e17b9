//===- demos/common/DemoChecks.h - The demos' derivative checks -*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The checks every mesh demo runs before it solves: on random elements,
/// the local gradient and the (unprojected) local Hessian that the element
/// kernel computed with meshad's code against central differences of the
/// element energy and of the generated gradient (test/Inputs/HessianCheck.h),
/// and the assembled global gradient against central differences of the
/// total energy on a few DOFs.
///
/// \code
///   demo::checkElement("triangle 7", Xl, 6, Energy, Gl, Hl, Grad);
///   demo::checkGlobalGradient(P, X, 8, Rng);
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_DEMOS_COMMON_DEMOCHECKS_H
#define MESHAD_DEMOS_COMMON_DEMOCHECKS_H

#include "HessianCheck.h"
#include "Newton.h"

#include <string>
#include <vector>

namespace demo {

/// Element Name at the local DOFs Xl (K values): Gl (K) against central
/// differences of Energy(x), Hl (K x K) against those of Grad(x, g) (adds).
template <class EnergyFn, class GradFn>
void checkElement(const std::string &Name, std::vector<double> Xl, int K,
                  EnergyFn Energy, const double *Gl, const double *Hl,
                  GradFn Grad) {
  for (int I = 0; I < K; ++I) {
    double Fd = meshad::test::centralDifferenceAt(
        [&] { return Energy(Xl.data()); }, Xl.data(), I);
    MESHAD_CHECK_CLOSE((Name + " g[" + std::to_string(I) + "]").c_str(), Gl[I],
                       Fd);
  }
  meshad::test::checkHessian(
      Name, Xl, 0, K,
      [&](double *, double *H) {
        for (int I = 0; I < K * K; ++I)
          H[I] = Hl[I];
      },
      Grad);
}

/// The assembled gradient of P at X against central differences of the
/// total energy, on Count random DOFs (of Candidates when given: those far
/// enough from a barrier for a difference step).
inline void checkGlobalGradient(const Problem &P, std::vector<double> X,
                                int Count, meshad::test::RandomInputs &Rng,
                                const std::vector<int> *Candidates = nullptr) {
  std::vector<double> G;
  std::vector<std::vector<double>> LocalH(P.Terms.size());
  evaluate(P, X, &G, &LocalH);
  for (int C = 0; C < Count; ++C) {
    int N = Candidates ? int(Candidates->size()) : P.NumDofs;
    int I = int(Rng.uniform(0, N - 1e-9));
    if (Candidates)
      I = (*Candidates)[I];
    double Fd = meshad::test::centralDifferenceAt(
        [&] { return evaluate(P, X, nullptr, nullptr); }, X.data(), I);
    MESHAD_CHECK_CLOSE(("dE/dX[" + std::to_string(I) + "]").c_str(), G[I], Fd);
  }
}

} // namespace demo

#endif // MESHAD_DEMOS_COMMON_DEMOCHECKS_H
