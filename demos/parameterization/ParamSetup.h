//===- demos/parameterization/ParamSetup.h - The parameterization problem -===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// What demos/parameterization and benchmarks/solve/param-bench share: each
/// 3D triangle's rest shape (Dm^-1 and area, `restParams`), Tutte's map of
/// the disk as the initial map, the Newton problem of one term over the
/// triangles, and its solve options (gradient tolerance 1e-6, the
/// inexact-Newton CG tolerance, the flip-free step). The local energy, whose
/// derivatives meshad generates, stays in the file that requests them:
/// `ParamSetup<Local>` takes it as the term (Arity 3, Dofs 2, parameters
/// `restParams`' five per triangle).
///
/// \code
///   demo::ParamSetup<SymmetricDirichlet> S(Mesh, demo::TutteWeights::Uniform);
///   sv::SolveOptions<double> O = S.solveOptions(50);
///   S.X.upload(S.Init);
///   sv::SolveReport R = sv::newton(S.P, S.X.data(), O);
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_DEMOS_PARAMETERIZATION_PARAMSETUP_H
#define MESHAD_DEMOS_PARAMETERIZATION_PARAMSETUP_H

#include "../common/DemoMesh.h"
#include <meshad/runtime/solve/Injectivity.h>
#include <meshad/runtime/solve/Minimize.h>

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

namespace demo {

/// Dm^-1 (row-major 2x2) and the area of each 3D triangle in its own plane
/// (5 per triangle): the edge a -> b along the first axis.
inline std::vector<double> restParams(const meshad::runtime::TriMesh &M) {
  std::vector<double> P;
  for (int T = 0; T < M.numTriangles(); ++T) {
    const double *A = &M.X[3 * M.Tris[3 * T]], *B = &M.X[3 * M.Tris[3 * T + 1]],
                 *C = &M.X[3 * M.Tris[3 * T + 2]];
    double Uu = 0, Uv = 0, Vv = 0;
    for (int K = 0; K < 3; ++K) {
      Uu += (B[K] - A[K]) * (B[K] - A[K]);
      Uv += (B[K] - A[K]) * (C[K] - A[K]);
      Vv += (C[K] - A[K]) * (C[K] - A[K]);
    }
    double L = std::sqrt(Uu), X2 = Uv / L,
           Y2 = std::sqrt(std::max(Vv - X2 * X2, 0.0));
    double Det = L * Y2; // Dm = [L X2; 0 Y2]
    P.insert(P.end(), {1 / L, -X2 / Det, 0, 1 / Y2, 0.5 * Det});
  }
  return P;
}

/// A disk-topology mesh, its Tutte map (boundary on the unit circle) and
/// the problem of the term Local over its triangles, in device memory.
template <class Local> struct ParamSetup {
  meshad::runtime::TriMesh M;
  std::vector<double> Init;   ///< Tutte's map, 2 per vertex
  std::vector<double> Params; ///< restParams(M)
  meshad::runtime::solve::DeviceBuffer<int> Tris;
  meshad::runtime::solve::DeviceBuffer<double> Prm, X; ///< X: the solve's
  meshad::runtime::solve::Problem<double> P;

  ParamSetup(meshad::runtime::TriMesh Mesh, TutteWeights Weights)
      : M(std::move(Mesh)), Init(tutte(M, boundaryLoop(M), Weights)),
        Params(restParams(M)), P(M.numVertices(), 2) {
    Tris.upload(M.Tris);
    Prm.upload(Params);
    P.add<Local>(Tris.data(), M.numTriangles(), Prm.data(), 5);
  }

  /// Newton to |g| <= 1e-6 with the inexact-Newton CG tolerance and the
  /// flip-free step (InjectiveStep2D).
  meshad::runtime::solve::SolveOptions<double>
  solveOptions(int MaxIterations) const {
    meshad::runtime::solve::SolveOptions<double> O;
    O.MaxIterations = MaxIterations;
    O.GradientTolerance = 1e-6;
    O.InexactNewton = true;
    O.MaxStep = meshad::runtime::solve::InjectiveStep2D<double>(
        Tris.data(), M.numTriangles());
    return O;
  }
};

} // namespace demo

#endif // MESHAD_DEMOS_PARAMETERIZATION_PARAMSETUP_H
