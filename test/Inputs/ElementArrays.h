//===- test/Inputs/ElementArrays.h - Element kernels of several arrays -*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The element kernels of the tests of several mapped arrays (issue 11:
/// two-phase slots and the gather over several arrays, the caller's
/// incidences), and their inputs:
///
///   - motion: positions x and velocities u read through the same edges;
///   - weightedSprings: positions x (stride 3) and per-vertex weights w
///     (stride 1) read through the same edges;
///   - cloth: springs (edges, weights w) and triangles (tris) in one launch,
///     each kind under its own guard: x through two index arrays.
///
/// ArrayMeshes holds the connectivities (elementConnectivity), the arrays,
/// the energy and its seed; energyOf(P, Launch) is the energy at the host
/// values of P. checkMotion and checkCloth check a gradient handle of
/// motion and of cloth, each adjoint, with checkElementGradient.
///
/// \code
///   #include "ElementArrays.h"
///   mt::ArrayMeshes Mesh;
///   auto G = meshad::gradient(motion, "x, u, E");
///   auto A = meshad::gradient(motion, "x, u, E",
///                             meshad::ElementStrategy::Atomics);
///   mt::checkMotion(Mesh, G, A);
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_TEST_ELEMENTARRAYS_H
#define MESHAD_TEST_ELEMENTARRAYS_H

#include "ElementCheck.h"

#include <string>

__global__ void motion(int n, const int *edges, const double *x,
                       const double *u, double *E) {
  int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e < n) {
    int a = edges[2 * e], b = edges[2 * e + 1];
    double l2 = 0, s = 0;
    for (int k = 0; k < 3; ++k) {
      double d = x[3 * a + k] - x[3 * b + k];
      double v = u[3 * a + k] - u[3 * b + k];
      l2 += d * d;
      s += d * v;
    }
    atomicAdd(E, l2 * l2 + s * s);
  }
}

__global__ void weightedSprings(int n, const int *edges, const double *x,
                                const double *w, double *E) {
  int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e < n) {
    int a = edges[2 * e], b = edges[2 * e + 1];
    double l2 = 0;
    for (int k = 0; k < 3; ++k) {
      double d = x[3 * a + k] - x[3 * b + k];
      l2 += d * d;
    }
    atomicAdd(E, w[a] * w[b] * l2 * l2);
  }
}

__global__ void cloth(int ne, int nf, const int *edges, const int *tris,
                      const double *w, const double *x, double *E) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < ne) {
    int a = edges[2 * t], b = edges[2 * t + 1];
    double l2 = 0;
    for (int k = 0; k < 3; ++k) {
      double d = x[3 * a + k] - x[3 * b + k];
      l2 += d * d;
    }
    atomicAdd(E, w[a] * w[b] * l2 * l2);
  }
  if (t < nf) {
    int a = tris[3 * t], b = tris[3 * t + 1], c = tris[3 * t + 2];
    double pq = 0, pp = 0, qq = 0;
    for (int k = 0; k < 3; ++k) {
      double p = x[3 * b + k] - x[3 * a + k];
      double q = x[3 * c + k] - x[3 * a + k];
      pq += p * q;
      pp += p * p;
      qq += q * q;
    }
    atomicAdd(E, pp * qq - pq * pq);
  }
}

namespace meshad {
namespace test {

/// M edges and F triangles over V vertices (the last one in no element),
/// random positions X, velocities U and weights W, the energy E and its
/// seed DE, two scratch adjoints, the launch shape (Blocks * Threads >=
/// max(M, F)).
struct ArrayMeshes {
  static constexpr int V = 8, M = 11, F = 7, Threads = 4, Blocks = 3;
  RandomInputs Rng;
  DeviceArray<int> Edges, Tris;
  DeviceArray<double> X, U, W, E, DE, ScratchA, ScratchB;

  ArrayMeshes()
      : Edges(2 * M), Tris(3 * F), X(3 * V), U(3 * V), W(V), E(1), DE(1),
        ScratchA(3 * V), ScratchB(3 * V) {
    upload(Edges, elementConnectivity(M, 2, V));
    upload(Tris, elementConnectivity(F, 3, V));
    Rng.fill(X.host(), 3 * V, -1, 1);
    Rng.fill(U.host(), 3 * V, -1, 1);
    Rng.fill(W.host(), V, 0.5, 1.5);
    X.upload();
    U.upload();
    W.upload();
  }

  /// The energy that \p Launch (the primal's launch) adds into E at the
  /// host values of \p P, as a function for the differences.
  template <class L> auto energyOf(DeviceArray<double> &P, L &Launch) {
    return [&P, &Launch, this]() {
      P.upload();
      E.zero();
      Launch();
      checkLaunch("primal");
      E.download();
      return E[0];
    };
  }
  /// DE = 1 on the device.
  double *seed() {
    DE[0] = 1;
    DE.upload();
    return DE.device();
  }
  dim3 grid() const { return dim3(Blocks); }
  dim3 block() const { return dim3(Threads); }
};

/// checkElementGradient of motion's gradient handle \p G against central
/// differences and \p Atomic (meshad::gradient(motion, "x, u, E", ...)),
/// each adjoint in turn (the other into a scratch array).
template <class G, class A>
void checkMotion(ArrayMeshes &Mesh, G &Grad, A &Atomic,
                 const std::string &Name = "motion") {
  auto Primal = [&] {
    MESHAD_LAUNCH(motion, Mesh.Blocks, Mesh.Threads)(
        Mesh.M, Mesh.Edges.device(), Mesh.X.device(), Mesh.U.device(),
        Mesh.E.device());
  };
  auto Run = [&](auto &H, double *DX, double *DU) {
    H.execute_kernel(Mesh.grid(), Mesh.block(), Mesh.M, Mesh.Edges.device(),
                     Mesh.X.device(), Mesh.U.device(), Mesh.E.device(), DX,
                     DU, Mesh.seed());
  };
  double *Scratch = Mesh.ScratchA.device();
  checkElementGradient(
      Name + " dE/dx", Mesh.X, Mesh.energyOf(Mesh.X, Primal),
      [&](double *DX) { Run(Grad, DX, Scratch); },
      [&](double *DX) { Run(Atomic, DX, Scratch); });
  checkElementGradient(
      Name + " dE/du", Mesh.U, Mesh.energyOf(Mesh.U, Primal),
      [&](double *DU) { Run(Grad, Scratch, DU); },
      [&](double *DU) { Run(Atomic, Scratch, DU); });
}

/// The same for cloth's gradient (meshad::gradient(cloth, "w, x, E", ...))
/// with \p F triangles.
template <class G, class A>
void checkCloth(ArrayMeshes &Mesh, G &Grad, A &Atomic, int F,
                const std::string &Name = "cloth") {
  auto Primal = [&] {
    MESHAD_LAUNCH(cloth, Mesh.Blocks, Mesh.Threads)(
        Mesh.M, F, Mesh.Edges.device(), Mesh.Tris.device(), Mesh.W.device(),
        Mesh.X.device(), Mesh.E.device());
  };
  auto Run = [&](auto &H, double *DW, double *DX) {
    H.execute_kernel(Mesh.grid(), Mesh.block(), Mesh.M, F,
                     Mesh.Edges.device(), Mesh.Tris.device(), Mesh.W.device(),
                     Mesh.X.device(), Mesh.E.device(), DW, DX, Mesh.seed());
  };
  double *ScratchW = Mesh.ScratchA.device(), *ScratchX = Mesh.ScratchB.device();
  checkElementGradient(
      Name + " dE/dx", Mesh.X, Mesh.energyOf(Mesh.X, Primal),
      [&](double *DX) { Run(Grad, ScratchW, DX); },
      [&](double *DX) { Run(Atomic, ScratchW, DX); });
  checkElementGradient(
      Name + " dE/dw", Mesh.W, Mesh.energyOf(Mesh.W, Primal),
      [&](double *DW) { Run(Grad, DW, ScratchX); },
      [&](double *DW) { Run(Atomic, DW, ScratchX); });
}

} // namespace test
} // namespace meshad

#endif // MESHAD_TEST_ELEMENTARRAYS_H
