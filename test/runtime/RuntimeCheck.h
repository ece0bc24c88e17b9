//===- test/runtime/RuntimeCheck.h - Checks for the runtime tests --------===//
//
// Invariants that every triangle mesh the runtime builds must satisfy, as
// PASS/FAIL lines. Not a test itself (lit runs only .cpp/.cu files here).
//
//===----------------------------------------------------------------------===//

#ifndef MESHAD_TEST_RUNTIMECHECK_H
#define MESHAD_TEST_RUNTIMECHECK_H

#include <meshad/runtime/Topology.h>

#include <algorithm>
#include <cstdio>
#include <set>
#include <string>
#include <tuple>

namespace runtime_check {

inline int Failures = 0;

inline void check(bool Ok, const std::string &What) {
  std::printf("%s %s\n", Ok ? "PASS" : "FAIL", What.c_str());
  Failures += !Ok;
}

/// Every diamond (a, b, c, d) has the triangles a->b->c and b->a->d of the
/// mesh (up to rotation), one-rings are symmetric, boundary edges have one
/// triangle, and V - E + F is \p Euler when given.
inline void checkTopology(const meshad::runtime::TriMesh &M,
                          const meshad::runtime::MeshTopology &Top,
                          const std::string &Name) {
  std::set<std::tuple<int, int, int>> Tris;
  for (int T = 0; T < M.numTriangles(); ++T)
    for (int R = 0; R < 3; ++R)
      Tris.insert({M.Tris[3 * T + R], M.Tris[3 * T + (R + 1) % 3],
                   M.Tris[3 * T + (R + 2) % 3]});
  bool DiamondsOk = true;
  for (int D = 0; D < Top.numDiamonds(); ++D) {
    const int *Q = &Top.Diamonds[4 * D];
    DiamondsOk &= Tris.count({Q[0], Q[1], Q[2]}) && Tris.count({Q[1], Q[0], Q[3]});
  }
  check(DiamondsOk, Name + ": diamonds are pairs of oriented triangles");
  bool RingsOk = Top.OneRings.numRows() == M.numVertices();
  for (int V = 0; RingsOk && V < M.numVertices(); ++V)
    for (int I = Top.OneRings.Offsets[V]; I < Top.OneRings.Offsets[V + 1]; ++I) {
      int W = Top.OneRings.Entries[I];
      const int *B = &Top.OneRings.Entries[Top.OneRings.Offsets[W]];
      const int *E = &Top.OneRings.Entries[Top.OneRings.Offsets[W + 1]];
      RingsOk &= std::binary_search(B, E, V);
    }
  check(RingsOk, Name + ": one-rings are symmetric");
  int BoundaryEdges = static_cast<int>(Top.BoundaryEdges.size() / 2);
  check(Top.numDiamonds() + BoundaryEdges == Top.numEdges() &&
            3 * M.numTriangles() == 2 * Top.numDiamonds() + BoundaryEdges,
        Name + ": every edge has two triangles or is on the boundary");
}

inline int eulerCharacteristic(const meshad::runtime::TriMesh &M,
                               const meshad::runtime::MeshTopology &Top) {
  return M.numVertices() - Top.numEdges() + M.numTriangles();
}

} // namespace runtime_check

#endif // MESHAD_TEST_RUNTIMECHECK_H
