//===- test/Inputs/ElementwiseKernelChecks.h - Modes of y = k(x) -*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// checkKernel: the forward derivative (along a random direction) and the
/// gradient of a kernel `k(int n, extra..., const double *x, double *y)`
/// of N = 24 elements (3 blocks of 8 threads) against central differences
/// of the weighted sum of its outputs, under the CPU emulation. Used by the
/// construct tests of test/cxx.
///
/// \code
///   mt::RandomInputs Rng;
///   checkKernel("k", k, meshad::differentiate(k, "x"),
///               meshad::gradient(k, "x, y"), Rng, /*extra=*/3);
/// \endcode
///
//===----------------------------------------------------------------------===//
#ifndef MESHAD_TEST_ELEMENTWISEKERNELCHECKS_H
#define MESHAD_TEST_ELEMENTWISEKERNELCHECKS_H

#include "KernelCheck.h"

#include <vector>

namespace ekc {
namespace mt = meshad::test;
constexpr int B = 8, N = 3 * B;

/// The kernel's forward derivative along a random direction and its
/// gradient against central differences of the weighted sum of its outputs.
template <class K, class D, class G, class... Extra>
void checkKernel(const char *Name, K Kernel, const D &d, const G &g,
                 mt::RandomInputs &Rng, Extra... Ex) {
  std::vector<double> W(N), Dir(N);
  Rng.fill(W.data(), N, 0.5, 1);
  Rng.fill(Dir.data(), N, -1, 1);
  mt::DeviceArray<double> X(N), Y(N), DX(N), DY(N);
  Rng.fill(X.host(), N, -1, 1);
  auto Loss = [&] {
    X.upload();
    MESHAD_LAUNCH(Kernel, dim3(N / B), dim3(B))(N, Ex..., X.device(),
                                                Y.device());
    Y.download();
    return mt::weightedSum(W.data(), Y.host(), N);
  };
  std::vector<double> Ref = mt::fdGradient(Loss, X.host(), N);
  double RefDir = 0;
  for (int I = 0; I < N; ++I)
    RefDir += Ref[I] * Dir[I];
  X.upload();
  for (int I = 0; I < N; ++I)
    DX[I] = Dir[I];
  DX.upload();
  DY.zero();
  d.execute_kernel(dim3(N / B), dim3(B), N, Ex..., X.device(), Y.device(),
                   DX.device(), DY.device());
  mt::checkLaunch(Name);
  DY.download();
  MESHAD_CHECK_CLOSE("jvp", mt::weightedSum(W.data(), DY.host(), N), RefDir);
  X.upload();
  DX.zero();
  for (int I = 0; I < N; ++I)
    DY[I] = W[I];
  DY.upload();
  g.execute_kernel(dim3(N / B), dim3(B), N, Ex..., X.device(), Y.device(),
                   DX.device(), DY.device());
  mt::checkLaunch(Name);
  DX.download();
  mt::checkArray("gradient", DX.host(), Ref.data(), N);
}
} // namespace ekc
using ekc::checkKernel;

#endif // MESHAD_TEST_ELEMENTWISEKERNELCHECKS_H
