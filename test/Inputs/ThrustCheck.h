//===- test/Inputs/ThrustCheck.h - What the Thrust tests share -*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The harness of the tests under test/thrust: `HD`, the execution space of
/// the lambdas they pass to Thrust (`__host__ __device__` under CUDA,
/// nothing under the CPU emulation, whose qualifiers cannot stand there);
/// managed buffers; the central difference of a function of a buffer along
/// a direction; Hessian-vector products against central differences of the
/// gradient along a random direction.
///
/// \code
///   double *X = mt::managed<double>(N), *V = mt::managed<double>(N);
///   double Fd = mt::directionalDifference(
///       [&](const double *P) { return energy(P, N); }, X, V, N);
///   mt::checkHvp("Hv", XC,
///                [&](const double *P, double *G) { Grad.execute(...); },
///                [&](const double *P, const double *V, double *Hv) {
///                  Hvp.execute(...);
///                },
///                Rng);
/// \endcode
///
//===----------------------------------------------------------------------===//
#ifndef MESHAD_TEST_THRUSTCHECK_H
#define MESHAD_TEST_THRUSTCHECK_H

#include "NumericCheck.h"

#include <cuda_runtime.h>

#include <string>
#include <vector>

#ifndef HD
#if defined(__CUDACC__)
#define HD __host__ __device__
#else
#define HD
#endif
#endif

namespace meshad::test {

/// \p N values of managed memory (device pointers the host may read).
template <class T> T *managed(int N) {
  T *P;
  cudaMallocManaged(&P, N * sizeof(T));
  return P;
}

/// The central difference of \p Fn (a function of a buffer of \p N
/// values) at \p X along \p V, evaluated on a managed copy.
template <class F>
double directionalDifference(F &&Fn, const double *X, const double *V,
                             int N) {
  double *XT = managed<double>(N);
  double Fd = centralDifference(
      [&](double H) {
        for (int I = 0; I < N; ++I)
          XT[I] = X[I] + H * V[I];
        return Fn(static_cast<const double *>(XT));
      },
      0.0);
  cudaFree(XT);
  return Fd;
}

/// Hv against central differences of the gradient along v (random), each
/// entry checked: \p G(P, Grad) writes the gradient at P, \p H(P, V, Hv)
/// the Hessian-vector product.
template <class Grad, class Hvp>
void checkHvp(const char *Name, std::vector<double> &X, Grad G, Hvp H,
              RandomInputs &Rng) {
  int N = X.size();
  std::vector<double> V(N), Hv(N, 0.0);
  Rng.fill(V.data(), N, -1.0, 1.0);
  H(X.data(), V.data(), Hv.data());
  for (int J = 0; J < N; ++J) {
    double Fd = centralDifference(
        [&](double T) {
          std::vector<double> XT(N), GX(N, 0.0);
          for (int I = 0; I < N; ++I)
            XT[I] = X[I] + T * V[I];
          G(XT.data(), GX.data());
          return GX[J];
        },
        0.0);
    MESHAD_CHECK_CLOSE(std::string(Name) + "[" + std::to_string(J) + "]",
                       Hv[J], Fd);
  }
}

} // namespace meshad::test

#endif // MESHAD_TEST_THRUSTCHECK_H
