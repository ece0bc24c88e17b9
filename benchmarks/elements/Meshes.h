//===- benchmarks/elements/Meshes.h - The benchmark's three problems ------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Host data of the three problems: a mass-spring grid, a subdivided real
/// triangle mesh with its rest frames, a real tet mesh with its rest
/// shapes; deformed positions that no element has at rest.
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_BENCH_ELEMENTS_MESHES_H
#define MESHAD_BENCH_ELEMENTS_MESHES_H

#include "Elements.h"

#include <meshad/runtime/MeshIO.h>
#include <meshad/runtime/Subdivision.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace elements {

/// A problem's arrays on the host.
struct HostProblem {
  EnergyKind Kind;
  std::string Name;
  int Arity = 0;
  std::vector<int> Elements;
  std::vector<double> Rest, Measure, X;
  int numVertices() const { return static_cast<int>(X.size() / 3); }
  int numElements() const { return static_cast<int>(Elements.size() / Arity); }
};

/// splitmix64: reproducible jitter.
struct Jitter {
  uint64_t State = 0x9e3779b97f4a7c15ull;
  double operator()(double Amplitude) {
    uint64_t Z = (State += 0x9e3779b97f4a7c15ull);
    Z = (Z ^ (Z >> 30)) * 0xbf58476d1ce4e5b9ull;
    Z = (Z ^ (Z >> 27)) * 0x94d049bb133111ebull;
    Z ^= Z >> 31;
    return Amplitude * (2.0 * (Z >> 11) * (1.0 / 9007199254740992.0) - 1.0);
  }
};

/// \p P with its vertices renumbered by a fixed random permutation (the
/// same geometry, positions moved with their vertices): a mesh without
/// locality, where the gather pays most (the handle of meshad's default
/// gradient then chooses two-phase slots at run time).
inline HostProblem shuffledVertices(HostProblem P) {
  int V = P.numVertices();
  std::vector<int> Perm(V);
  for (int I = 0; I < V; ++I)
    Perm[I] = I;
  Jitter J;
  for (int I = V - 1; I > 0; --I) {
    int K = static_cast<int>((J(1.0) + 1.0) * 0.5 * (I + 1));
    std::swap(Perm[I], Perm[K > I ? I : K]);
  }
  std::vector<double> X(P.X.size());
  for (int I = 0; I < V; ++I)
    for (int K = 0; K < 3; ++K)
      X[3 * Perm[I] + K] = P.X[3 * I + K];
  for (int &I : P.Elements)
    I = Perm[I];
  P.X = std::move(X);
  P.Name += " shuffled";
  return P;
}

/// \p P with its vertex numbers shuffled within consecutive blocks of
/// \p Block vertices: a numbering of middling locality (about 2 * window /
/// Block of the steps within meshad's locality window).
inline HostProblem blockShuffledVertices(HostProblem P, int Block) {
  int V = P.numVertices();
  std::vector<int> Perm(V);
  for (int I = 0; I < V; ++I)
    Perm[I] = I;
  Jitter J;
  for (int Begin = 0; Begin < V; Begin += Block) {
    int End = std::min(V, Begin + Block);
    for (int I = End - 1; I > Begin; --I) {
      int K = Begin + static_cast<int>((J(1.0) + 1.0) * 0.5 * (I - Begin + 1));
      std::swap(Perm[I], Perm[K > I ? I : K]);
    }
  }
  std::vector<double> X(P.X.size());
  for (int I = 0; I < V; ++I)
    for (int K = 0; K < 3; ++K)
      X[3 * Perm[I] + K] = P.X[3 * I + K];
  for (int &I : P.Elements)
    I = Perm[I];
  P.X = std::move(X);
  P.Name += " block-shuffled";
  return P;
}

/// A Side x Side grid with right, up and diagonal springs at rest length
/// 1 and 2^0.5, stretched by 5% and jittered.
inline HostProblem springGrid(int Side) {
  HostProblem P{EnergyKind::Spring, "mass-spring " + std::to_string(Side) +
                                        "x" + std::to_string(Side), 2};
  Jitter J;
  auto Add = [&](int A, int B, double L) {
    P.Elements.insert(P.Elements.end(), {A, B});
    P.Rest.push_back(L);
  };
  for (int Y = 0; Y < Side; ++Y)
    for (int X = 0; X < Side; ++X) {
      int V = Y * Side + X;
      P.X.insert(P.X.end(), {1.05 * X + J(0.1), 1.05 * Y + J(0.1), J(0.1)});
      if (X + 1 < Side)
        Add(V, V + 1, 1.0);
      if (Y + 1 < Side)
        Add(V, V + Side, 1.0);
      if (X + 1 < Side && Y + 1 < Side)
        Add(V, V + Side + 1, std::sqrt(2.0));
    }
  return P;
}

/// A triangle mesh subdivided to at least MinTriangles; rest frames from
/// its own shape, deformed by an anisotropic scaling and jitter.
inline HostProblem dirichletMesh(const std::string &Path, long MinTriangles) {
  using namespace meshad::runtime;
  TriMesh M = readTriMesh(Path);
  M = loopSubdivide(M, loopLevelsFor(M, MinTriangles));
  HostProblem P{EnergyKind::Dirichlet, "symmetric Dirichlet " +
                                           Path.substr(Path.rfind('/') + 1),
                3};
  P.Elements = M.Tris;
  double MeanEdge = 0;
  for (int T = 0; T < M.numTriangles(); ++T) {
    const double *A = &M.X[3 * M.Tris[3 * T]], *B = &M.X[3 * M.Tris[3 * T + 1]],
                 *C = &M.X[3 * M.Tris[3 * T + 2]];
    double E1[3], E2[3], N[3];
    for (int K = 0; K < 3; ++K) {
      E1[K] = B[K] - A[K];
      E2[K] = C[K] - A[K];
    }
    N[0] = E1[1] * E2[2] - E1[2] * E2[1];
    N[1] = E1[2] * E2[0] - E1[0] * E2[2];
    N[2] = E1[0] * E2[1] - E1[1] * E2[0];
    double L1 = std::sqrt(E1[0] * E1[0] + E1[1] * E1[1] + E1[2] * E1[2]);
    double NN = std::sqrt(N[0] * N[0] + N[1] * N[1] + N[2] * N[2]);
    MeanEdge += L1;
    // Rest frame: u along e1, w = n x u; Dm = [[|e1|, e2.u], [0, e2.w]].
    double U[3] = {E1[0] / L1, E1[1] / L1, E1[2] / L1};
    double W[3] = {(N[1] * U[2] - N[2] * U[1]) / NN,
                   (N[2] * U[0] - N[0] * U[2]) / NN,
                   (N[0] * U[1] - N[1] * U[0]) / NN};
    double M00 = L1, M01 = E2[0] * U[0] + E2[1] * U[1] + E2[2] * U[2];
    double M11 = E2[0] * W[0] + E2[1] * W[1] + E2[2] * W[2];
    P.Rest.insert(P.Rest.end(), {1 / M00, -M01 / (M00 * M11), 0, 1 / M11});
    P.Measure.push_back(0.5 * NN);
  }
  MeanEdge /= M.numTriangles();
  Jitter J;
  for (int V = 0; V < M.numVertices(); ++V) {
    const double *R = &M.X[3 * V];
    P.X.insert(P.X.end(), {1.1 * R[0] + J(0.02 * MeanEdge),
                           0.95 * R[1] + J(0.02 * MeanEdge),
                           R[2] + J(0.02 * MeanEdge)});
  }
  return P;
}

/// A tet mesh (TetGen's Base.node/.ele) with rest shapes from its own
/// positions (tets turned positive), deformed by a stretch and a bend.
inline HostProblem neoHookeanMesh(const std::string &Base) {
  using namespace meshad::runtime;
  TetMesh M = readTetGen(Base);
  HostProblem P{EnergyKind::NeoHookean,
                "neo-Hookean " + Base.substr(Base.rfind('/') + 1), 4};
  P.Elements = M.Tets;
  for (int T = 0; T < M.numTets(); ++T) {
    int *C = &P.Elements[4 * T];
    double D[3][3];
    auto Fill = [&] {
      for (int K = 0; K < 3; ++K)
        for (int J = 0; J < 3; ++J)
          D[K][J] = M.X[3 * C[J + 1] + K] - M.X[3 * C[0] + K];
    };
    Fill();
    double Det = D[0][0] * (D[1][1] * D[2][2] - D[1][2] * D[2][1]) -
                 D[0][1] * (D[1][0] * D[2][2] - D[1][2] * D[2][0]) +
                 D[0][2] * (D[1][0] * D[2][1] - D[1][1] * D[2][0]);
    if (Det < 0) {
      std::swap(C[2], C[3]);
      Fill();
      Det = -Det;
    }
    double Inv[9];
    for (int R = 0; R < 3; ++R)
      for (int Cc = 0; Cc < 3; ++Cc) {
        int R1 = (Cc + 1) % 3, R2 = (Cc + 2) % 3, C1 = (R + 1) % 3,
            C2 = (R + 2) % 3;
        Inv[3 * R + Cc] = (D[R1][C1] * D[R2][C2] - D[R1][C2] * D[R2][C1]) / Det;
      }
    P.Rest.insert(P.Rest.end(), Inv, Inv + 9);
    P.Measure.push_back(Det / 6);
  }
  // A smooth deformation (random jitter would invert slivers, whose energy
  // is then not defined): a stretch and a bend whose displacement gradient
  // stays below 0.05, so that every tet keeps det F > 0.
  double Lo[3] = {1e300, 1e300, 1e300}, Hi[3] = {-1e300, -1e300, -1e300};
  for (int V = 0; V < M.numVertices(); ++V)
    for (int K = 0; K < 3; ++K) {
      Lo[K] = std::fmin(Lo[K], M.X[3 * V + K]);
      Hi[K] = std::fmax(Hi[K], M.X[3 * V + K]);
    }
  double Wave = 6.283185307179586 * 2 / (Hi[1] - Lo[1]);
  double Amplitude = 0.05 / Wave;
  for (int V = 0; V < M.numVertices(); ++V) {
    const double *R = &M.X[3 * V];
    P.X.insert(P.X.end(), {1.1 * R[0] + Amplitude * std::sin(Wave * R[1]),
                           0.95 * R[1],
                           1.02 * R[2] + Amplitude * std::cos(Wave * R[1])});
  }
  return P;
}

} // namespace elements

#endif // MESHAD_BENCH_ELEMENTS_MESHES_H
