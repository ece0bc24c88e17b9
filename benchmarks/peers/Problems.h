//===- benchmarks/peers/Problems.h - The peer comparison's problem sizes --===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Three sizes of each problem of benchmarks/elements/Meshes.h: spring grids
/// of 256^2, 1000^2 and 2000^2 vertices; the camel Loop-subdivided 1, 2 and
/// 3 times; the armadillo's tets, whole and its lowest 64k and 250k tets
/// (by centroid height: the bottom slab of the mesh, vertices renumbered).
/// --small gives sizes the CPU emulation runs in seconds.
///
///   for (const ProblemSpec &S : problemSpecs(Small))
///     HostProblem H = S.Make(MeshDir, TetBase);
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_BENCH_PEERS_PROBLEMS_H
#define MESHAD_BENCH_PEERS_PROBLEMS_H

#include "Meshes.h"

#include <algorithm>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

namespace peers {

using elements::HostProblem;

/// The \p N elements of \p H whose centroids are lowest (y), with the
/// vertices they use renumbered in order of first use.
inline HostProblem lowestElements(const HostProblem &H, int N) {
  int NE = H.numElements(), A = H.Arity;
  if (N >= NE)
    return H;
  std::vector<double> Height(NE, 0.0);
  for (int T = 0; T < NE; ++T)
    for (int J = 0; J < A; ++J)
      Height[T] += H.X[3 * H.Elements[A * T + J] + 1];
  std::vector<int> Order(NE);
  std::iota(Order.begin(), Order.end(), 0);
  std::nth_element(Order.begin(), Order.begin() + N, Order.end(),
                   [&](int L, int R) { return Height[L] < Height[R]; });
  std::sort(Order.begin(), Order.begin() + N); // keep the mesh's order
  HostProblem S{H.Kind, H.Name + " (lowest " + std::to_string(N) + ")", A};
  std::vector<int> NewIndex(H.numVertices(), -1);
  int RestPer = static_cast<int>(H.Rest.size() / NE);
  for (int I = 0; I < N; ++I) {
    int T = Order[I];
    for (int J = 0; J < A; ++J) {
      int &V = NewIndex[H.Elements[A * T + J]];
      if (V < 0) {
        V = S.numVertices();
        const double *P = &H.X[3 * H.Elements[A * T + J]];
        S.X.insert(S.X.end(), P, P + 3);
      }
      S.Elements.push_back(V);
    }
    S.Rest.insert(S.Rest.end(), H.Rest.begin() + RestPer * T,
                  H.Rest.begin() + RestPer * (T + 1));
    if (!H.Measure.empty())
      S.Measure.push_back(H.Measure[T]);
  }
  return S;
}

struct ProblemSpec {
  std::string Key;    ///< file names of the export, the CSV's problem
  std::string Energy; ///< spring, dirichlet, neohookean
  std::function<HostProblem(const std::string &MeshDir,
                            const std::string &TetBase)>
      Make;
};

/// The nine problems (tiny ones with --small), three sizes per energy,
/// keyed "<energy>-<1, 2, 3>" smallest first.
inline std::vector<ProblemSpec> problemSpecs(bool Small) {
  using namespace elements;
  std::vector<ProblemSpec> Specs;
  auto Add = [&](const char *Energy, int Rank, auto Make) {
    Specs.push_back(
        {std::string(Energy) + "-" + std::to_string(Rank), Energy, Make});
  };
  const int Sides[3] = {256, 1000, 2000}, SmallSides[3] = {8, 12, 16};
  const long Tris[3] = {60000, 250000, 1000000}, SmallTris[3] = {200, 400, 800};
  const int Tets[3] = {64000, 250000, 1 << 30}, SmallTets[3] = {100, 200, 400};
  for (int I = 0; I < 3; ++I) {
    int Side = Small ? SmallSides[I] : Sides[I];
    Add("spring", I + 1, [Side](const std::string &, const std::string &) {
      return springGrid(Side);
    });
  }
  for (int I = 0; I < 3; ++I) {
    long N = Small ? SmallTris[I] : Tris[I];
    Add("dirichlet", I + 1, [N, Small](const std::string &Dir,
                                       const std::string &) {
      HostProblem H = dirichletMesh(Dir + "/camel.off", N);
      return Small ? lowestElements(H, static_cast<int>(N)) : H;
    });
  }
  for (int I = 0; I < 3; ++I) {
    int N = Small ? SmallTets[I] : Tets[I];
    Add("neohookean", I + 1, [N](const std::string &, const std::string &Base) {
      static HostProblem Whole; // read once for the three sizes
      if (Whole.X.empty())
        Whole = neoHookeanMesh(Base);
      return lowestElements(Whole, N);
    });
  }
  return Specs;
}

} // namespace peers

#endif // MESHAD_BENCH_PEERS_PROBLEMS_H
