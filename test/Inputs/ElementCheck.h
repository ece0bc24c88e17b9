//===- test/Inputs/ElementCheck.h - Checks of element gradients -*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Checks of element kernels' gradients (issue 11): against central
/// differences of the energy, bitwise equal across two runs, and close to
/// the atomic gradient.
/// ElementMeshes: the connectivities, energy and seed the element tests
/// share; checkKernelGradient: checkElementGradient of a kernel's gradient
/// handle, from the primal's arguments.
///
/// \code
///   mt::checkElementGradient("springs", X, Energy, TwoPhase, Atomic);
///   mt::ElementMeshes Mesh;
///   mt::checkKernelGradient("tets", Mesh, X3, tets, Gather, Atomic,
///                           dim3(Mesh.Blocks), dim3(Mesh.Threads), Mesh.M,
///                           Mesh.Tet.device(), X3.device(), Mesh.E.device());
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_TEST_ELEMENTCHECK_H
#define MESHAD_TEST_ELEMENTCHECK_H

#include "KernelCheck.h"
#include "NumericCheck.h"

#include <cstring>
#include <vector>

namespace meshad {
namespace test {

/// A connectivity of M elements of arity C over V vertices: each element's
/// vertices distinct, vertices shared by several elements, and vertex V - 1
/// in no element (its adjoint must stay as it was).
inline std::vector<int> elementConnectivity(int M, int C, int V) {
  std::vector<int> Idx(M * C);
  for (int T = 0; T < M; ++T)
    for (int J = 0; J < C; ++J)
      Idx[C * T + J] = (T * 3 + J * 2) % (V - 1);
  return Idx;
}

template <class T>
void upload(DeviceArray<T> &A, const std::vector<T> &V) {
  for (size_t I = 0; I < V.size(); ++I)
    A[I] = V[I];
  A.upload();
}

/// dE/dX of \p Grad(DX) (which adds the gradient to the device array DX,
/// seed 1) against central differences of \p Energy() (the primal's energy
/// at the host values of X), bitwise equal across two runs from the same
/// initial DX, and within 1e-12 (relative) of \p Atomic(DX).
template <class E, class G, class A>
void checkElementGradient(const std::string &Name, DeviceArray<double> &X,
                          E &&Energy, G &&Grad, A &&Atomic) {
  size_t N = X.size();
  std::vector<double> Expected = fdGradient(Energy, X.host(), N);
  X.upload();
  DeviceArray<double> DX(N);
  auto Run = [&](auto &&Launch) {
    for (size_t I = 0; I < N; ++I)
      DX[I] = 0.25; // an adjoint that the gradient adds to
    DX.upload();
    Launch(DX.device());
    checkLaunch(Name.c_str());
    DX.download();
    return std::vector<double>(DX.host(), DX.host() + N);
  };
  std::vector<double> First = Run(Grad), Second = Run(Grad), Atom = Run(Atomic);
  for (size_t I = 0; I < N; ++I)
    Expected[I] += 0.25;
  checkArray(Name, First.data(), Expected.data(), N);
  checker().close(Name + " bitwise equal across runs",
                  std::memcmp(First.data(), Second.data(), N * 8) == 0 ? 1.0
                                                                       : 0.0,
                  1.0, 0.0);
  // Both sum the same terms in other orders: rounding only.
  for (size_t I = 0; I < N; ++I)
    checker().close(Name + " atomic[" + std::to_string(I) + "]", First[I],
                    Atom[I], 1e-12);
}

/// The meshes of the element tests: M elements of arity 2 (Edges), 3 (Tris)
/// and 4 (Tet) over V vertices (elementConnectivity), the energy E and its
/// seed DE, the launch shape (Blocks * Threads >= M).
struct ElementMeshes {
  static constexpr int V = 8, M = 11, Threads = 4, Blocks = 3;
  DeviceArray<int> Edges, Tris, Tet;
  DeviceArray<double> E, DE;
  /// dE: the gradients' seed; the energy the differences see is Seed * E.
  double Seed;

  explicit ElementMeshes(double Seed = 1)
      : Edges(2 * M), Tris(3 * M), Tet(4 * M), E(1), DE(1), Seed(Seed) {
    upload(Edges, elementConnectivity(M, 2, V));
    upload(Tris, elementConnectivity(M, 3, V));
    upload(Tet, elementConnectivity(M, 4, V));
  }

  /// The energy that \p Launch (the primal's launch) adds into E at the host
  /// values of X, times Seed.
  template <class L> double energy(DeviceArray<double> &X, L &&Launch) {
    X.upload();
    E.zero();
    Launch();
    checkLaunch("primal");
    E.download();
    return Seed * E[0];
  }
  /// DE = Seed on the device.
  double *seed() {
    DE[0] = Seed;
    DE.upload();
    return DE.device();
  }
};

/// checkElementGradient of the gradient handles \p Grad and \p Atomic (of
/// meshad::gradient(Kernel, "x, E", ...)): the energy of
/// Kernel<<<Grid, Block>>>(Args...) at X (Mesh.E among Args), each handle
/// launched on the same shape with Args..., its adjoint of X, the seed.
template <class K, class G, class A, class... Args>
void checkKernelGradient(const std::string &Name, ElementMeshes &Mesh,
                         DeviceArray<double> &X, K Kernel, G &&Grad,
                         A &&Atomic, dim3 Grid, dim3 Block, Args... As) {
  auto Primal = [&] { MESHAD_LAUNCH(Kernel, Grid, Block)(As...); };
  checkElementGradient(
      Name, X, [&] { return Mesh.energy(X, Primal); },
      [&](double *DX) { Grad.execute_kernel(Grid, Block, As..., DX, Mesh.seed()); },
      [&](double *DX) {
        Atomic.execute_kernel(Grid, Block, As..., DX, Mesh.seed());
      });
}

} // namespace test
} // namespace meshad

#endif // MESHAD_TEST_ELEMENTCHECK_H
