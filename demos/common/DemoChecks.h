//===- demos/common/DemoChecks.h - The demos' derivative checks -*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The checks every mesh demo runs: on random elements, a local energy's
/// gradient and (unprojected) Hessian, which meshad generates and the
/// solver's element kernels call, against central differences of the
/// element energy and of the generated gradient (test/Inputs/HessianCheck.h);
/// the problem's global gradient (the element kernels on the device) against
/// central differences of its energy on a few DOFs; and the energy
/// decreasing at every step of a solve.
///
/// \code
///   demo::checkLocal<SymmetricDirichlet>("triangle 7", Xl, Params,
///       [&](double *X, double *G) { Grad.execute(X, Params, G); });
///   demo::checkGlobalGradient(P, X, 6, Rng);
///   demo::checkDecreasing(Report);
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_DEMOS_COMMON_DEMOCHECKS_H
#define MESHAD_DEMOS_COMMON_DEMOCHECKS_H

#include "HessianCheck.h"
#include <meshad/runtime/solve/Minimize.h>

#include <string>
#include <vector>

namespace demo {

namespace solve = meshad::runtime::solve;

/// Local's gradient and Hessian at the element DOFs Xl (parameters P)
/// against central differences of Local::energy and of Grad(x, g) (adds).
template <class Local, class GradFn>
void checkLocal(const std::string &Name, std::vector<double> Xl,
                const double *P, GradFn Grad) {
  constexpr int K = Local::Arity * Local::Dofs;
  double Gl[K] = {}, Hl[K * K];
  Local::gradient(Xl.data(), P, Gl);
  Local::hessian(Xl.data(), P, Hl);
  for (int I = 0; I < K; ++I) {
    double Fd = meshad::test::centralDifferenceAt(
        [&] { return Local::energy(Xl.data(), P); }, Xl.data(), I);
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

/// The global gradient of P at X (host values) against central differences
/// of P's energy, on Count random DOFs (of Candidates when given: those far
/// enough from a barrier for a difference step).
inline void checkGlobalGradient(solve::Problem<double> &P,
                                std::vector<double> X, int Count,
                                meshad::test::RandomInputs &Rng,
                                const std::vector<int> *Candidates = nullptr) {
  solve::DeviceBuffer<double> Xd, Gd(P.numDofs());
  Xd.upload(X);
  P.gradient(Xd.data(), Gd.data());
  std::vector<double> G = Gd.download();
  for (int C = 0; C < Count; ++C) {
    int N = Candidates ? int(Candidates->size()) : P.numDofs();
    int I = int(Rng.uniform(0, N - 1e-9));
    if (Candidates)
      I = (*Candidates)[I];
    double Fd = meshad::test::centralDifferenceAt(
        [&] {
          Xd.upload(X.data());
          return P.energy(Xd.data());
        },
        X.data(), I);
    MESHAD_CHECK_CLOSE(("dE/dX[" + std::to_string(I) + "]").c_str(), G[I], Fd);
  }
}

/// Two checks: no accepted step of R increased the energy (beyond the
/// round-off of 8 eps |E| that the line search allows a converged step), and
/// the solve decreased it.
inline void checkDecreasing(const solve::SolveReport &R) {
  bool NonIncreasing = R.Energies.size() > 1;
  for (size_t I = 1; I < R.Energies.size(); ++I)
    NonIncreasing &= R.Energies[I] <= R.Energies[I - 1] +
                                          8 * 2.3e-16 * std::fabs(R.Energies[I - 1]);
  MESHAD_CHECK_CLOSE("energy never increases", double(NonIncreasing), 1.0);
  MESHAD_CHECK_CLOSE("energy decreased",
                     double(R.Energies.back() < R.Energies.front()), 1.0);
}

} // namespace demo

#endif // MESHAD_DEMOS_COMMON_DEMOCHECKS_H
