// TetGen's output read by the mesh runtime: tetrahedralize a closed surface
// with Debian's tetgen, read the .node/.ele pair, and check that its
// boundary is the surface (outward, enclosing the tets' volume) and that
// V - E + F - T = 1 (a ball).
//
// REQUIRES: tetgen
// RUN: rm -rf %t.dir && mkdir -p %t.dir
// RUN: cp %test_inputs/meshes/icosahedron.off %t.dir/ico.off
// RUN: tetgen -pqQ %t.dir/ico.off
// RUN: %clangxx -std=c++17 -I%I %s -o %t
// RUN: %t %t.dir/ico.1 | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: PASS boundary encloses the tets' volume
// CHECK: PASS a ball: V - E + F - T = 1

#include "RuntimeCheck.h"

#include <meshad/runtime/MeshIO.h>

#include <cmath>
#include <set>

using namespace meshad::runtime;
using runtime_check::check;

static double det(const double *A, const double *B, const double *C) {
  return A[0] * (B[1] * C[2] - B[2] * C[1]) -
         A[1] * (B[0] * C[2] - B[2] * C[0]) +
         A[2] * (B[0] * C[1] - B[1] * C[0]);
}

int main(int Argc, char **Argv) {
  TetMesh M = readTetGen(Argv[1]);
  std::printf("%d vertices, %d tets\n", M.numVertices(), M.numTets());
  double TetVolume = 0, Enclosed = 0;
  for (int T = 0; T < M.numTets(); ++T) {
    const int *C = &M.Tets[4 * T];
    double U[3], V[3], W[3];
    for (int K = 0; K < 3; ++K) {
      U[K] = M.X[3 * C[1] + K] - M.X[3 * C[0] + K];
      V[K] = M.X[3 * C[2] + K] - M.X[3 * C[0] + K];
      W[K] = M.X[3 * C[3] + K] - M.X[3 * C[0] + K];
    }
    TetVolume += std::fabs(det(U, V, W)) / 6;
  }
  std::vector<int> B = tetBoundary(M);
  std::set<std::vector<int>> Faces;
  for (size_t F = 0; F < B.size(); F += 3) {
    Enclosed += det(&M.X[3 * B[F]], &M.X[3 * B[F + 1]], &M.X[3 * B[F + 2]]) / 6;
    std::vector<int> Key(&B[F], &B[F] + 3);
    std::sort(Key.begin(), Key.end());
    Faces.insert(Key);
  }
  check(M.numTets() > 0 && std::fabs(Enclosed - TetVolume) < 1e-12 * TetVolume,
        "boundary encloses the tets' volume");
  // Interior faces: each shared by two tets.
  std::set<std::vector<int>> AllFaces;
  for (int T = 0; T < M.numTets(); ++T)
    for (int Skip = 0; Skip < 4; ++Skip) {
      std::vector<int> Key;
      for (int J = 0; J < 4; ++J)
        if (J != Skip)
          Key.push_back(M.Tets[4 * T + J]);
      std::sort(Key.begin(), Key.end());
      AllFaces.insert(Key);
    }
  long V = M.numVertices(), E = tetEdges(M).size() / 2,
       F = AllFaces.size(), T = M.numTets();
  check(V - E + F - T == 1, "a ball: V - E + F - T = 1");
  return runtime_check::Failures != 0;
}
