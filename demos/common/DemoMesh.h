//===- demos/common/DemoMesh.h - Mesh helpers of the demos ------*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Host helpers shared by demos/parameterization, demos/smoothing and
/// demos/spherical-map: the boundary loop of a disk, a disk-shaped patch of
/// a real mesh (small meshes for CI), the Tutte embedding (boundary on the
/// unit circle, uniform or cotangent weights, solved by Jacobi-preconditioned
/// CG), orientation checks (signed areas in 2D, signed volumes on the
/// sphere), and mesh normalization.
///
/// \code
///   TriMesh M = diskPatch(readTriMesh("lion-head.off"), 2000);
///   std::vector<double> UV = tutte(M, boundaryLoop(M), TutteWeights::Uniform);
///   int Flipped = countFlipped2D(UV, M.Tris);          // 0
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_DEMOS_COMMON_DEMOMESH_H
#define MESHAD_DEMOS_COMMON_DEMOMESH_H

#include <meshad/runtime/Topology.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <map>
#include <queue>
#include <vector>

namespace demo {

using meshad::runtime::MeshError;
using meshad::runtime::TriMesh;

/// Argument I of the command line, or Default when it is not given.
inline std::string argOr(int Argc, char **Argv, int I, const std::string &Default) {
  return I < Argc ? std::string(Argv[I]) : Default;
}

/// The path of CGAL's mesh Name: in $MESHAD_MESH_DIR, else in data/meshes
/// (scripts/fetch-meshes.sh) under the current directory.
inline std::string meshPath(const std::string &Name) {
  const char *Dir = std::getenv("MESHAD_MESH_DIR");
  return std::string(Dir ? Dir : "data/meshes") + "/" + Name;
}

/// The boundary vertices of a disk in order, following the boundary edges
/// as oriented (so the interior lies to the left). Throws unless the mesh
/// has exactly one boundary loop.
inline std::vector<int> boundaryLoop(const TriMesh &M) {
  meshad::runtime::MeshTopology Top = meshad::runtime::buildTopology(M);
  std::map<int, int> Next;
  for (size_t E = 0; E + 1 < Top.BoundaryEdges.size(); E += 2)
    if (!Next.emplace(Top.BoundaryEdges[E], Top.BoundaryEdges[E + 1]).second)
      throw MeshError("boundary vertex with two outgoing boundary edges");
  if (Next.empty())
    throw MeshError("the mesh has no boundary");
  std::vector<int> Loop = {Next.begin()->first};
  for (int V = Next.begin()->second; V != Loop.front(); V = Next.at(V))
    Loop.push_back(V);
  if (Loop.size() != Next.size())
    throw MeshError("the mesh has more than one boundary loop");
  return Loop;
}

/// V - E + F.
inline int eulerCharacteristic(const TriMesh &M) {
  meshad::runtime::MeshTopology Top = meshad::runtime::buildTopology(M);
  return M.numVertices() - Top.numEdges() + M.numTriangles();
}

/// The first Triangles triangles reached by a breadth-first search over
/// shared edges from triangle 0, with their vertices renumbered; throws
/// unless the patch is a disk (Euler characteristic 1, one boundary loop).
inline TriMesh diskPatch(const TriMesh &M, int Triangles) {
  std::map<std::pair<int, int>, std::vector<int>> EdgeTris;
  for (int T = 0; T < M.numTriangles(); ++T)
    for (int J = 0; J < 3; ++J) {
      int A = M.Tris[3 * T + J], B = M.Tris[3 * T + (J + 1) % 3];
      EdgeTris[{std::min(A, B), std::max(A, B)}].push_back(T);
    }
  std::vector<char> Taken(M.numTriangles(), 0);
  std::vector<int> Order;
  std::queue<int> Queue;
  Queue.push(0);
  Taken[0] = 1;
  while (!Queue.empty() && int(Order.size()) < Triangles) {
    int T = Queue.front();
    Queue.pop();
    Order.push_back(T);
    for (int J = 0; J < 3; ++J) {
      int A = M.Tris[3 * T + J], B = M.Tris[3 * T + (J + 1) % 3];
      for (int U : EdgeTris[{std::min(A, B), std::max(A, B)}])
        if (!Taken[U]) {
          Taken[U] = 1;
          Queue.push(U);
        }
    }
  }
  TriMesh P;
  std::vector<int> NewIndex(M.numVertices(), -1);
  for (int T : Order)
    for (int J = 0; J < 3; ++J) {
      int &N = NewIndex[M.Tris[3 * T + J]];
      if (N < 0) {
        N = P.numVertices();
        for (int K = 0; K < 3; ++K)
          P.X.push_back(M.X[3 * M.Tris[3 * T + J] + K]);
      }
      P.Tris.push_back(N);
    }
  if (eulerCharacteristic(P) != 1)
    throw MeshError("the patch is not a disk");
  boundaryLoop(P); // throws unless one loop
  return P;
}

/// Scales and translates X (3 per vertex) so that the mesh's surface area
/// is Area and its area-weighted centroid is the origin.
inline void normalizeArea(TriMesh &M, double Area) {
  double Total = 0, C[3] = {0, 0, 0};
  for (int T = 0; T < M.numTriangles(); ++T) {
    const double *A = &M.X[3 * M.Tris[3 * T]], *B = &M.X[3 * M.Tris[3 * T + 1]],
                 *Cc = &M.X[3 * M.Tris[3 * T + 2]];
    double U[3], V[3];
    for (int K = 0; K < 3; ++K) {
      U[K] = B[K] - A[K];
      V[K] = Cc[K] - A[K];
    }
    double N0 = U[1] * V[2] - U[2] * V[1], N1 = U[2] * V[0] - U[0] * V[2],
           N2 = U[0] * V[1] - U[1] * V[0];
    double Ar = 0.5 * std::sqrt(N0 * N0 + N1 * N1 + N2 * N2);
    Total += Ar;
    for (int K = 0; K < 3; ++K)
      C[K] += Ar * (A[K] + B[K] + Cc[K]) / 3;
  }
  double S = std::sqrt(Area / Total);
  for (int V = 0; V < M.numVertices(); ++V)
    for (int K = 0; K < 3; ++K)
      M.X[3 * V + K] = S * (M.X[3 * V + K] - C[K] / Total);
}

/// Twice the signed area of triangle T of the 2D layout UV.
inline double signedArea2(const std::vector<double> &UV,
                          const std::vector<int> &Tris, int T) {
  const double *A = &UV[2 * Tris[3 * T]], *B = &UV[2 * Tris[3 * T + 1]],
               *C = &UV[2 * Tris[3 * T + 2]];
  return (B[0] - A[0]) * (C[1] - A[1]) - (C[0] - A[0]) * (B[1] - A[1]);
}

/// Triangles of the 2D layout UV with a signed area <= 0.
inline int countFlipped2D(const std::vector<double> &UV,
                          const std::vector<int> &Tris) {
  int N = 0;
  for (size_t T = 0; T < Tris.size() / 3; ++T)
    N += signedArea2(UV, Tris, int(T)) <= 0;
  return N;
}

/// a . (b x c) of triangle T's corners (3 per vertex): positive when the
/// triangle is seen counter-clockwise from outside a sphere about the
/// origin.
inline double orientation3D(const double *X, const int *Tri) {
  const double *A = X + 3 * Tri[0], *B = X + 3 * Tri[1], *C = X + 3 * Tri[2];
  return A[0] * (B[1] * C[2] - B[2] * C[1]) + A[1] * (B[2] * C[0] - B[0] * C[2]) +
         A[2] * (B[0] * C[1] - B[1] * C[0]);
}

/// Triangles with a.(b x c) <= 0 (flipped on the sphere).
inline int countFlippedSphere(const std::vector<double> &X,
                              const std::vector<int> &Tris) {
  int N = 0;
  for (size_t T = 0; T < Tris.size() / 3; ++T)
    N += orientation3D(X.data(), &Tris[3 * T]) <= 0;
  return N;
}

enum class TutteWeights { Uniform, Cotangent };

/// Solves A x = b by Jacobi-preconditioned CG for a symmetric positive
/// (semi-)definite A given as Apply(x, y): y = A x, with diagonal Diag.
template <typename ApplyFn>
int pcg(ApplyFn Apply, const std::vector<double> &Diag,
        const std::vector<double> &B, std::vector<double> &X, double RelTol,
        int MaxIter) {
  size_t N = B.size();
  std::vector<double> R(N), Z(N), P(N), Ap(N);
  Apply(X, Ap);
  double Bn = 0;
  for (size_t I = 0; I < N; ++I) {
    R[I] = B[I] - Ap[I];
    Bn += B[I] * B[I];
  }
  Bn = std::sqrt(Bn);
  double Rz = 0;
  for (size_t I = 0; I < N; ++I) {
    Z[I] = Diag[I] > 0 ? R[I] / Diag[I] : R[I];
    P[I] = Z[I];
    Rz += R[I] * Z[I];
  }
  for (int It = 0; It < MaxIter; ++It) {
    double Rn = 0;
    for (double V : R)
      Rn += V * V;
    if (std::sqrt(Rn) <= RelTol * Bn)
      return It;
    Apply(P, Ap);
    double PAp = 0;
    for (size_t I = 0; I < N; ++I)
      PAp += P[I] * Ap[I];
    if (PAp <= 0)
      return It;
    double Alpha = Rz / PAp, RzNew = 0;
    for (size_t I = 0; I < N; ++I) {
      X[I] += Alpha * P[I];
      R[I] -= Alpha * Ap[I];
      Z[I] = Diag[I] > 0 ? R[I] / Diag[I] : R[I];
      RzNew += R[I] * Z[I];
    }
    for (size_t I = 0; I < N; ++I)
      P[I] = Z[I] + RzNew / Rz * P[I];
    Rz = RzNew;
  }
  return MaxIter;
}

/// The weight of each edge (A < B) for the Tutte embedding: 1, or the
/// cotangent weight clamped to at least 1e-3 of the mean (Tutte's theorem
/// needs positive weights for the embedding to be injective).
inline std::map<std::pair<int, int>, double>
tutteEdgeWeights(const TriMesh &M, TutteWeights W) {
  std::map<std::pair<int, int>, double> Weights;
  for (int T = 0; T < M.numTriangles(); ++T)
    for (int J = 0; J < 3; ++J) {
      int A = M.Tris[3 * T + J], B = M.Tris[3 * T + (J + 1) % 3],
          C = M.Tris[3 * T + (J + 2) % 3];
      double Cot = 0;
      if (W == TutteWeights::Cotangent) {
        double U[3], V[3], Dot = 0, N2 = 0;
        for (int K = 0; K < 3; ++K) {
          U[K] = M.X[3 * A + K] - M.X[3 * C + K];
          V[K] = M.X[3 * B + K] - M.X[3 * C + K];
          Dot += U[K] * V[K];
        }
        for (int K = 0; K < 3; ++K) {
          double Cr = U[(K + 1) % 3] * V[(K + 2) % 3] - U[(K + 2) % 3] * V[(K + 1) % 3];
          N2 += Cr * Cr;
        }
        Cot = 0.5 * Dot / std::sqrt(N2);
      }
      Weights[{std::min(A, B), std::max(A, B)}] += W == TutteWeights::Uniform ? 0.5 : Cot;
    }
  double Mean = 0;
  for (auto &E : Weights)
    Mean += E.second / Weights.size();
  for (auto &E : Weights)
    E.second = std::max(E.second, 1e-3 * Mean);
  return Weights;
}

/// Tutte's embedding: Loop (the boundary, in order) on the unit circle by
/// arc length, every interior vertex the weighted mean of its neighbours
/// (the graph Laplacian solved by CG). Returns 2 coordinates per vertex.
inline std::vector<double> tutte(const TriMesh &M, const std::vector<int> &Loop,
                                 TutteWeights W) {
  const int N = M.numVertices();
  std::vector<double> UV(2 * N, 0.0);
  std::vector<char> Fixed(N, 0);
  std::vector<double> Arc(Loop.size() + 1, 0.0);
  for (size_t I = 0; I < Loop.size(); ++I) {
    int A = Loop[I], B = Loop[(I + 1) % Loop.size()];
    double L = 0;
    for (int K = 0; K < 3; ++K)
      L += (M.X[3 * A + K] - M.X[3 * B + K]) * (M.X[3 * A + K] - M.X[3 * B + K]);
    Arc[I + 1] = Arc[I] + std::sqrt(L);
  }
  for (size_t I = 0; I < Loop.size(); ++I) {
    double Theta = 2 * 3.14159265358979323846 * Arc[I] / Arc.back();
    UV[2 * Loop[I]] = std::cos(Theta);
    UV[2 * Loop[I] + 1] = std::sin(Theta);
    Fixed[Loop[I]] = 1;
  }
  auto Weights = tutteEdgeWeights(M, W);
  std::vector<double> Diag(N, 0.0);
  for (auto &E : Weights) {
    Diag[E.first.first] += E.second;
    Diag[E.first.second] += E.second;
  }
  // L_II u_I = -L_IB u_B for each coordinate; fixed rows are identity.
  auto Apply = [&](const std::vector<double> &X, std::vector<double> &Y) {
    for (int V = 0; V < N; ++V)
      Y[V] = Fixed[V] ? X[V] : Diag[V] * X[V];
    for (auto &E : Weights) {
      int A = E.first.first, B = E.first.second;
      if (!Fixed[A] && !Fixed[B]) {
        Y[A] -= E.second * X[B];
        Y[B] -= E.second * X[A];
      }
    }
  };
  std::vector<double> PDiag(N);
  for (int V = 0; V < N; ++V)
    PDiag[V] = Fixed[V] ? 1 : Diag[V];
  for (int C = 0; C < 2; ++C) {
    std::vector<double> Rhs(N, 0.0), X(N, 0.0);
    for (int V = 0; V < N; ++V)
      if (Fixed[V])
        Rhs[V] = X[V] = UV[2 * V + C];
    for (auto &E : Weights) {
      int A = E.first.first, B = E.first.second;
      if (Fixed[A] && !Fixed[B])
        Rhs[B] += E.second * UV[2 * A + C];
      if (Fixed[B] && !Fixed[A])
        Rhs[A] += E.second * UV[2 * B + C];
    }
    pcg(Apply, PDiag, Rhs, X, 1e-12, 20 * N);
    for (int V = 0; V < N; ++V)
      UV[2 * V + C] = X[V];
  }
  return UV;
}

} // namespace demo

#endif // MESHAD_DEMOS_COMMON_DEMOMESH_H
