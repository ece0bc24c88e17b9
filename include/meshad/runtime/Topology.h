//===- meshad/runtime/Topology.h - Edges, rings, boundary, diamonds -*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The connectivity that mesh energies iterate over, built on the host once
/// per mesh, as flat index arrays ready to copy to the GPU:
///   - edges (springs): 2 vertices per edge, a < b, sorted;
///   - one-rings: each vertex's neighbours (Csr);
///   - the boundary: edges with one triangle, their vertices; the boundary
///     triangles of a tet mesh;
///   - edge diamonds (bending): for each interior edge (a, b) the opposite
///     vertices c (of the triangle holding a -> b) and d (of the other one),
///     4 per diamond: a, b, c, d.
/// A non-manifold edge (three triangles or more) is a MeshError.
///
/// \code
///   using namespace meshad::runtime;
///   TriMesh M = readTriMesh("camel.off");
///   MeshTopology Top = buildTopology(M);
///   // Top.Edges: 2 per edge; Top.Diamonds: 4 per interior edge
///   springKernel<<<...>>>(dX, dEdges, Top.numEdges(), dE);
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_RUNTIME_TOPOLOGY_H
#define MESHAD_RUNTIME_TOPOLOGY_H

#include "meshad/runtime/Mesh.h"

#include <algorithm>
#include <array>
#include <tuple>
#include <vector>

namespace meshad {
namespace runtime {

/// One undirected edge of a triangle mesh with the vertices opposite it:
/// A -> B is the edge as the triangle holding OppositeC orders it; OppositeD
/// is -1 on the boundary.
struct EdgeFaces {
  int A, B, OppositeC, OppositeD;
  bool isBoundary() const { return OppositeD < 0; }
};

/// The edges of a triangle mesh with their opposite vertices, sorted by
/// (min(A, B), max(A, B)). Throws MeshError on a non-manifold edge or an
/// index out of range.
inline std::vector<EdgeFaces> edgeFaces(const TriMesh &M) {
  checkIndices(M.Tris, M.numVertices(), "triangle corner");
  struct HalfEdge {
    int Lo, Hi, From, To, Opposite, Order;
  };
  std::vector<HalfEdge> Halves;
  Halves.reserve(M.Tris.size());
  for (int T = 0; T < M.numTriangles(); ++T)
    for (int J = 0; J < 3; ++J) {
      int From = M.Tris[3 * T + J], To = M.Tris[3 * T + (J + 1) % 3];
      int Opp = M.Tris[3 * T + (J + 2) % 3];
      Halves.push_back({std::min(From, To), std::max(From, To), From, To, Opp,
                        3 * T + J});
    }
  // Ties broken by position: the first triangle of an edge orders it.
  std::sort(Halves.begin(), Halves.end(),
            [](const HalfEdge &L, const HalfEdge &R) {
              return std::tie(L.Lo, L.Hi, L.Order) <
                     std::tie(R.Lo, R.Hi, R.Order);
            });
  std::vector<EdgeFaces> Edges;
  for (size_t I = 0; I < Halves.size();) {
    size_t J = I;
    while (J < Halves.size() && Halves[J].Lo == Halves[I].Lo &&
           Halves[J].Hi == Halves[I].Hi)
      ++J;
    if (J - I > 2)
      throw MeshError("non-manifold edge (" + std::to_string(Halves[I].Lo) +
                      ", " + std::to_string(Halves[I].Hi) + "): " +
                      std::to_string(J - I) + " triangles share it");
    const HalfEdge &H = Halves[I];
    Edges.push_back({H.From, H.To, H.Opposite,
                     J - I == 2 ? Halves[I + 1].Opposite : -1});
    I = J;
  }
  return Edges;
}

/// Edges, one-rings, boundary and diamonds of a triangle mesh.
struct MeshTopology {
  std::vector<int> Edges;            ///< 2 per edge, A < B, sorted.
  Csr OneRings;                      ///< neighbours of each vertex, sorted.
  std::vector<int> BoundaryEdges;    ///< 2 per boundary edge, as oriented.
  std::vector<int> BoundaryVertices; ///< sorted, unique.
  std::vector<int> Diamonds;         ///< 4 per interior edge: a, b, c, d.

  int numEdges() const { return static_cast<int>(Edges.size() / 2); }
  int numDiamonds() const { return static_cast<int>(Diamonds.size() / 4); }
};

/// Each vertex's neighbours through \p Edges (2 per edge), sorted.
inline Csr oneRings(int NumVertices, const std::vector<int> &Edges) {
  Csr R;
  R.Offsets.assign(NumVertices + 1, 0);
  for (int V : Edges)
    ++R.Offsets[V + 1];
  for (int V = 0; V < NumVertices; ++V)
    R.Offsets[V + 1] += R.Offsets[V];
  R.Entries.resize(Edges.size());
  std::vector<int> Fill(R.Offsets.begin(), R.Offsets.end() - 1);
  for (size_t E = 0; E + 1 < Edges.size(); E += 2) {
    R.Entries[Fill[Edges[E]]++] = Edges[E + 1];
    R.Entries[Fill[Edges[E + 1]]++] = Edges[E];
  }
  for (int V = 0; V < NumVertices; ++V)
    std::sort(R.Entries.begin() + R.Offsets[V],
              R.Entries.begin() + R.Offsets[V + 1]);
  return R;
}

inline MeshTopology buildTopology(const TriMesh &M) {
  MeshTopology Top;
  for (const EdgeFaces &E : edgeFaces(M)) {
    Top.Edges.push_back(std::min(E.A, E.B));
    Top.Edges.push_back(std::max(E.A, E.B));
    if (E.isBoundary()) {
      Top.BoundaryEdges.push_back(E.A);
      Top.BoundaryEdges.push_back(E.B);
      continue;
    }
    Top.Diamonds.insert(Top.Diamonds.end(),
                        {E.A, E.B, E.OppositeC, E.OppositeD});
  }
  Top.OneRings = oneRings(M.numVertices(), Top.Edges);
  Top.BoundaryVertices = Top.BoundaryEdges;
  std::sort(Top.BoundaryVertices.begin(), Top.BoundaryVertices.end());
  Top.BoundaryVertices.erase(
      std::unique(Top.BoundaryVertices.begin(), Top.BoundaryVertices.end()),
      Top.BoundaryVertices.end());
  return Top;
}

/// The 6 edges of every tet, unique, 2 per edge, A < B, sorted.
inline std::vector<int> tetEdges(const TetMesh &M) {
  checkIndices(M.Tets, M.numVertices(), "tet corner");
  std::vector<std::array<int, 2>> All;
  All.reserve(6 * M.numTets());
  static const int Pairs[6][2] = {{0, 1}, {0, 2}, {0, 3},
                                  {1, 2}, {1, 3}, {2, 3}};
  for (int T = 0; T < M.numTets(); ++T)
    for (const auto &P : Pairs) {
      int A = M.Tets[4 * T + P[0]], B = M.Tets[4 * T + P[1]];
      All.push_back({std::min(A, B), std::max(A, B)});
    }
  std::sort(All.begin(), All.end());
  All.erase(std::unique(All.begin(), All.end()), All.end());
  std::vector<int> Edges;
  Edges.reserve(2 * All.size());
  for (const auto &E : All)
    Edges.insert(Edges.end(), {E[0], E[1]});
  return Edges;
}

/// The triangles that bound a tet mesh (faces of exactly one tet), 3 per
/// triangle, oriented outwards whatever the tets' orientation.
inline std::vector<int> tetBoundary(const TetMesh &M) {
  checkIndices(M.Tets, M.numVertices(), "tet corner");
  struct Face {
    std::array<int, 3> Key, Oriented;
    int Order;
  };
  std::vector<Face> Faces;
  Faces.reserve(4 * M.numTets());
  auto P = [&](int V, int K) { return M.X[3 * V + K]; };
  for (int T = 0; T < M.numTets(); ++T) {
    const int *C = &M.Tets[4 * T];
    double U[3], V[3], W[3];
    for (int K = 0; K < 3; ++K) {
      U[K] = P(C[1], K) - P(C[0], K);
      V[K] = P(C[2], K) - P(C[0], K);
      W[K] = P(C[3], K) - P(C[0], K);
    }
    double Det = U[0] * (V[1] * W[2] - V[2] * W[1]) -
                 U[1] * (V[0] * W[2] - V[2] * W[0]) +
                 U[2] * (V[0] * W[1] - V[1] * W[0]);
    // Outward faces of a positively oriented tet (a, b, c, d).
    std::array<std::array<int, 3>, 4> Outward = {
        {{C[1], C[2], C[3]}, {C[0], C[3], C[2]},
         {C[0], C[1], C[3]}, {C[0], C[2], C[1]}}};
    for (auto F : Outward) {
      if (Det < 0)
        std::swap(F[1], F[2]);
      std::array<int, 3> Key = F;
      std::sort(Key.begin(), Key.end());
      Faces.push_back({Key, F, static_cast<int>(Faces.size())});
    }
  }
  std::sort(Faces.begin(), Faces.end(), [](const Face &L, const Face &R) {
    return std::tie(L.Key, L.Order) < std::tie(R.Key, R.Order);
  });
  std::vector<int> Boundary;
  for (size_t I = 0; I < Faces.size();) {
    size_t J = I;
    while (J < Faces.size() && Faces[J].Key == Faces[I].Key)
      ++J;
    if (J - I == 1)
      Boundary.insert(Boundary.end(), Faces[I].Oriented.begin(),
                      Faces[I].Oriented.end());
    I = J;
  }
  return Boundary;
}

} // namespace runtime
} // namespace meshad

#endif // MESHAD_RUNTIME_TOPOLOGY_H
