//===- test/Inputs/ElementGrids.h - Grid meshes of element tests -*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The N x N grid meshes of the tests of the run-time strategy choice
/// (issue 11, meshad/runtime/NumberingLocality.h): springs and triangles in
/// grid order (a local numbering) and with their vertices renumbered by a
/// fixed random permutation (a scattered one), or only the later elements
/// renumbered (in between).
///
/// \code
///   std::vector<int> E = mt::gridEdges(16), S = mt::shuffled(E, 16 * 16);
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_TEST_ELEMENTGRIDS_H
#define MESHAD_TEST_ELEMENTGRIDS_H

#include <algorithm>
#include <utility>
#include <vector>

namespace meshad {
namespace test {

/// The springs of an N x N grid, vertex by vertex: right, then down.
inline std::vector<int> gridEdges(int N) {
  std::vector<int> E;
  for (int I = 0; I < N; ++I)
    for (int J = 0; J < N; ++J) {
      int Vx = I * N + J;
      if (J + 1 < N)
        E.insert(E.end(), {Vx, Vx + 1});
      if (I + 1 < N)
        E.insert(E.end(), {Vx, Vx + N});
    }
  return E;
}

/// Two triangles per square of the N x N grid, square by square.
inline std::vector<int> gridTriangles(int N) {
  std::vector<int> T;
  for (int I = 0; I + 1 < N; ++I)
    for (int J = 0; J + 1 < N; ++J) {
      int Vx = I * N + J;
      T.insert(T.end(), {Vx, Vx + 1, Vx + N, Vx + 1, Vx + N + 1, Vx + N});
    }
  return T;
}

/// \p Idx with its \p V vertices renumbered by a fixed random permutation.
inline std::vector<int> shuffled(std::vector<int> Idx, int V) {
  std::vector<int> P(V);
  for (int I = 0; I < V; ++I)
    P[I] = I;
  unsigned long long S = 12345;
  for (int I = V - 1; I > 0; --I) {
    S = S * 6364136223846793005ULL + 1442695040888963407ULL;
    std::swap(P[I], P[static_cast<int>((S >> 33) % (I + 1))]);
  }
  for (int &I : Idx)
    I = P[I];
  return Idx;
}

/// \p Idx (elements of \p Arity vertices) with the elements from \p Kept
/// on renumbered by shuffled(): a numbering of middling locality (a mesh
/// whose later elements were numbered apart: 0.31 for the springs of the
/// 16 x 16 grid with a fifth kept).
inline std::vector<int> partlyShuffled(const std::vector<int> &Idx, int V,
                                       int Arity, int Kept) {
  std::vector<int> Out = shuffled(Idx, V);
  std::copy(Idx.begin(), Idx.begin() + static_cast<long>(Arity) * Kept,
            Out.begin());
  return Out;
}

} // namespace test
} // namespace meshad

#endif // MESHAD_TEST_ELEMENTGRIDS_H
