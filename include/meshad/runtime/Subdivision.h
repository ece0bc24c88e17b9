//===- meshad/runtime/Subdivision.h - Loop subdivision ----------*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Loop subdivision (Loop 1987, with the boundary rules of Hoppe et al.
/// 1994): each level splits every triangle into four and smooths, so a real
/// mesh of 10^4 triangles reaches millions for benchmarks while keeping its
/// shape. Vertices keep their indices; the vertex of edge E (in the order of
/// edgeFaces()) is numVertices() + E; triangle T's four children are 4T ..
/// 4T + 3, the corner children first.
///
/// \code
///   TriMesh Big = meshad::runtime::loopSubdivide(readTriMesh("camel.off"), 3);
///   // 64x the triangles
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_RUNTIME_SUBDIVISION_H
#define MESHAD_RUNTIME_SUBDIVISION_H

#include "meshad/runtime/Topology.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

namespace meshad {
namespace runtime {
namespace detail {

/// Loop's weight of each neighbour of an interior vertex of valence N.
inline double loopBeta(int N) {
  const double Pi = 3.14159265358979323846;
  double C = 0.375 + 0.25 * std::cos(2.0 * Pi / N);
  return (0.625 - C * C) / N;
}

/// The smoothed positions of the old vertices.
inline std::vector<double> smoothVertices(const TriMesh &M,
                                          const std::vector<EdgeFaces> &EF) {
  int NV = M.numVertices();
  std::vector<int> Valence(NV, 0), BoundaryCount(NV, 0);
  std::vector<double> RingSum(3 * NV, 0.0), BoundarySum(3 * NV, 0.0);
  for (const EdgeFaces &E : EF) {
    for (int S = 0; S < 2; ++S) {
      int V = S ? E.B : E.A, W = S ? E.A : E.B;
      ++Valence[V];
      for (int K = 0; K < 3; ++K)
        RingSum[3 * V + K] += M.X[3 * W + K];
      if (E.isBoundary()) {
        ++BoundaryCount[V];
        for (int K = 0; K < 3; ++K)
          BoundarySum[3 * V + K] += M.X[3 * W + K];
      }
    }
  }
  std::vector<double> X(M.X);
  for (int V = 0; V < NV; ++V) {
    for (int K = 0; K < 3; ++K) {
      double P = M.X[3 * V + K];
      if (BoundaryCount[V] == 2)
        X[3 * V + K] = 0.75 * P + 0.125 * BoundarySum[3 * V + K];
      else if (BoundaryCount[V] == 0 && Valence[V] > 0) {
        double B = loopBeta(Valence[V]);
        X[3 * V + K] = (1.0 - Valence[V] * B) * P + B * RingSum[3 * V + K];
      } // Corners and non-manifold boundary vertices stay where they are.
    }
  }
  return X;
}

} // namespace detail

/// One level of Loop subdivision.
inline TriMesh loopSubdivideOnce(const TriMesh &M) {
  std::vector<EdgeFaces> EF = edgeFaces(M);
  int NV = M.numVertices();
  TriMesh Out;
  Out.X = detail::smoothVertices(M, EF);
  Out.X.reserve(3 * (NV + EF.size()));
  std::vector<std::pair<int, int>> Keys;
  Keys.reserve(EF.size());
  for (const EdgeFaces &E : EF) {
    Keys.push_back({std::min(E.A, E.B), std::max(E.A, E.B)});
    for (int K = 0; K < 3; ++K) {
      double A = M.X[3 * E.A + K], B = M.X[3 * E.B + K];
      if (E.isBoundary()) {
        Out.X.push_back(0.5 * (A + B));
        continue;
      }
      double C = M.X[3 * E.OppositeC + K], D = M.X[3 * E.OppositeD + K];
      Out.X.push_back(0.375 * (A + B) + 0.125 * (C + D));
    }
  }
  auto EdgeVertex = [&](int A, int B) {
    std::pair<int, int> Key{std::min(A, B), std::max(A, B)};
    return NV + static_cast<int>(
                    std::lower_bound(Keys.begin(), Keys.end(), Key) -
                    Keys.begin());
  };
  Out.Tris.reserve(4 * M.Tris.size());
  for (int T = 0; T < M.numTriangles(); ++T) {
    int A = M.Tris[3 * T], B = M.Tris[3 * T + 1], C = M.Tris[3 * T + 2];
    int AB = EdgeVertex(A, B), BC = EdgeVertex(B, C), CA = EdgeVertex(C, A);
    Out.Tris.insert(Out.Tris.end(),
                    {A, AB, CA, B, BC, AB, C, CA, BC, AB, BC, CA});
  }
  return Out;
}

/// \p Levels levels of Loop subdivision (4^Levels times the triangles).
inline TriMesh loopSubdivide(TriMesh M, int Levels) {
  for (int L = 0; L < Levels; ++L)
    M = loopSubdivideOnce(M);
  return M;
}

/// The number of levels after which \p M has at least \p Triangles triangles.
inline int loopLevelsFor(const TriMesh &M, long Triangles) {
  int Levels = 0;
  for (long T = M.numTriangles(); T > 0 && T < Triangles; T *= 4)
    ++Levels;
  return Levels;
}

} // namespace runtime
} // namespace meshad

#endif // MESHAD_RUNTIME_SUBDIVISION_H
