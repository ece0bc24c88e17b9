//===- test/Inputs/MeshGeometry.h - Geometry of the tests' small meshes ---===//
//
// Helpers shared by the element-Hessian tests (test/hessian/
// hessian-element-kernels.cu, test/runtime/runtime-sparse-hessian.cu) that
// build small meshes: noise on the coordinates, the rest edge matrix of an
// element and its inverse. Not a test itself.
//
//   std::vector<double> Dm = meshad::test::restEdges(Rest, Tri, 2);
//   std::vector<double> DmInv = meshad::test::inverse(Dm.data(), 2);
//
//===----------------------------------------------------------------------===//

#ifndef MESHAD_TEST_MESHGEOMETRY_H
#define MESHAD_TEST_MESHGEOMETRY_H

#include "NumericCheck.h"

#include <vector>

namespace meshad {
namespace test {

/// Uniform noise in [-A, A) on every coordinate.
inline void jiggle(RandomInputs &Rng, std::vector<double> &X, double A) {
  for (double &V : X)
    V += Rng.uniform(-A, A);
}

/// The inverse of a row-major N x N matrix (N = 2, 3), by cofactors.
inline std::vector<double> inverse(const double *M, int N) {
  if (N == 2) {
    double D = M[0] * M[3] - M[1] * M[2];
    return {M[3] / D, -M[1] / D, -M[2] / D, M[0] / D};
  }
  std::vector<double> R(9);
  for (int I = 0; I < 3; ++I)
    for (int J = 0; J < 3; ++J) {
      int I1 = (J + 1) % 3, I2 = (J + 2) % 3, J1 = (I + 1) % 3,
          J2 = (I + 2) % 3;
      R[I * 3 + J] =
          M[I1 * 3 + J1] * M[I2 * 3 + J2] - M[I1 * 3 + J2] * M[I2 * 3 + J1];
    }
  double D = M[0] * R[0] + M[1] * R[3] + M[2] * R[6];
  for (double &V : R)
    V /= D;
  return R;
}

/// The rest edge matrix of an element (columns: vertex a minus vertex 0)
/// of S x S, from the rest positions \p Rest (S per vertex) and the
/// element's vertices \p E.
inline std::vector<double> restEdges(const std::vector<double> &Rest,
                                     const int *E, int S) {
  std::vector<double> M(S * S);
  for (int R = 0; R < S; ++R)
    for (int C = 0; C < S; ++C)
      M[R * S + C] = Rest[S * E[C + 1] + R] - Rest[S * E[0] + R];
  return M;
}

} // namespace test
} // namespace meshad

#endif // MESHAD_TEST_MESHGEOMETRY_H
