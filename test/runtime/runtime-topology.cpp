// The mesh runtime's connectivity: edges, one-rings, boundary, edge
// diamonds of triangle meshes, the edges and boundary of tet meshes, and
// Loop subdivision, on small meshes with known answers.
//
// RUN: %clangxx -std=c++17 -I%I %s -o %t
// RUN: %t %test_inputs/meshes | FileCheck %s
// CHECK-NOT: FAIL

#include "RuntimeCheck.h"

#include <meshad/runtime/MeshIO.h>
#include <meshad/runtime/Subdivision.h>

#include <cmath>

using namespace meshad::runtime;
using runtime_check::check;

static void closedSurface(const std::string &Dir) {
  TriMesh Tetra = readTriMesh(Dir + "/tetra.off");
  MeshTopology Top = buildTopology(Tetra);
  check(Top.numEdges() == 6 && Top.numDiamonds() == 6 &&
            Top.BoundaryEdges.empty() && Top.BoundaryVertices.empty(),
        "tetra: 6 edges, 6 diamonds, no boundary");
  bool Rings = true;
  for (int V = 0; V < 4; ++V)
    Rings &= Top.OneRings.rowSize(V) == 3;
  check(Rings, "tetra: every vertex sees the 3 others");
  runtime_check::checkTopology(Tetra, Top, "tetra");
}
// CHECK: PASS tetra: 6 edges, 6 diamonds, no boundary
// CHECK: PASS tetra: every vertex sees the 3 others
// CHECK: PASS tetra: diamonds are pairs of oriented triangles

static void withBoundary() {
  TriMesh Square;
  Square.X = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0};
  Square.Tris = {0, 1, 2, 0, 2, 3};
  MeshTopology Top = buildTopology(Square);
  check(Top.numEdges() == 5 && Top.numDiamonds() == 1 &&
            Top.BoundaryEdges.size() == 8 && Top.BoundaryVertices.size() == 4,
        "square: 5 edges, 4 on the boundary, 1 diamond");
  check(Top.Diamonds == std::vector<int>{2, 0, 1, 3} ||
            Top.Diamonds == std::vector<int>{0, 2, 3, 1},
        "square: the diagonal's diamond");
  runtime_check::checkTopology(Square, Top, "square");

  TriMesh Fin = Square;
  Fin.X.insert(Fin.X.end(), {0, 0, 1});
  Fin.Tris.insert(Fin.Tris.end(), {0, 2, 4});
  try {
    buildTopology(Fin);
    check(false, "a non-manifold edge is an error");
  } catch (const MeshError &E) {
    std::printf("error: %s\n", E.what());
  }
}
// CHECK: PASS square: 5 edges, 4 on the boundary, 1 diamond
// CHECK: PASS square: the diagonal's diamond
// CHECK: error: non-manifold edge (0, 2): 3 triangles share it

static void tets() {
  TetMesh Two;
  Two.X = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1};
  Two.Tets = {0, 1, 2, 3, 1, 3, 2, 4}; // the second one negatively oriented
  check(tetEdges(Two).size() == 2 * 9, "two tets: 9 edges");
  std::vector<int> B = tetBoundary(Two);
  // The shared face (1, 2, 3) is interior; the 6 others enclose the volume
  // 1/6 + 1/3, counted positively: sum over faces of det(a, b, c) / 6.
  double Volume = 0;
  for (size_t F = 0; F < B.size(); F += 3) {
    const double *A = &Two.X[3 * B[F]], *Bv = &Two.X[3 * B[F + 1]],
                 *C = &Two.X[3 * B[F + 2]];
    Volume += (A[0] * (Bv[1] * C[2] - Bv[2] * C[1]) -
               A[1] * (Bv[0] * C[2] - Bv[2] * C[0]) +
               A[2] * (Bv[0] * C[1] - Bv[1] * C[0])) / 6;
  }
  check(B.size() == 18 && std::fabs(Volume - 0.5) < 1e-14,
        "two tets: 6 outward boundary triangles");
}
// CHECK: PASS two tets: 9 edges
// CHECK: PASS two tets: 6 outward boundary triangles

static void subdivision(const std::string &Dir) {
  TriMesh Ico = readTriMesh(Dir + "/icosahedron.off");
  TriMesh Fine = loopSubdivide(Ico, 3);
  MeshTopology Top = buildTopology(Fine);
  check(Fine.numVertices() == 642 && Fine.numTriangles() == 1280 &&
            runtime_check::eulerCharacteristic(Fine, Top) == 2 &&
            Top.BoundaryEdges.empty(),
        "icosahedron, 3 levels: 642 vertices, 1280 triangles, closed");
  runtime_check::checkTopology(Fine, Top, "icosahedron, 3 levels");
  // The weights of every rule sum to 1: subdivision commutes with a shift.
  TriMesh Shifted = Ico;
  for (size_t I = 0; I < Shifted.X.size(); I += 3)
    Shifted.X[I] += 5.0;
  TriMesh FineShifted = loopSubdivide(Shifted, 3);
  double Worst = 0;
  for (size_t I = 0; I < Fine.X.size(); ++I)
    Worst = std::fmax(Worst, std::fabs(FineShifted.X[I] - Fine.X[I] -
                                       (I % 3 == 0 ? 5.0 : 0.0)));
  check(Worst < 1e-12, "subdivision commutes with translation");
  // Symmetric mesh, symmetric result: every vertex ends at the same radius
  // as the others of its kind (old vertices, then new ones, level by level)
  // only approximately; check the radius stays within the hull's bounds.
  double RMin = 1e9, RMax = 0;
  for (int V = 0; V < Fine.numVertices(); ++V) {
    double R = std::sqrt(Fine.X[3 * V] * Fine.X[3 * V] +
                         Fine.X[3 * V + 1] * Fine.X[3 * V + 1] +
                         Fine.X[3 * V + 2] * Fine.X[3 * V + 2]);
    RMin = std::fmin(RMin, R);
    RMax = std::fmax(RMax, R);
  }
  check(RMin > 1.2 && RMax < std::sqrt(1 + 2.618034 * 2.618034) &&
            RMax / RMin < 1.1,
        "subdivided icosahedron stays round and inside the hull");
  check(loopLevelsFor(Ico, 1000000) == 8, "levels for a million triangles");

  TriMesh Square;
  Square.X = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0};
  Square.Tris = {0, 1, 2, 0, 2, 3};
  TriMesh Flat = loopSubdivide(Square, 2);
  bool Planar = Flat.numTriangles() == 32 && Flat.numVertices() == 25;
  for (int V = 0; V < Flat.numVertices(); ++V)
    Planar &= Flat.X[3 * V + 2] == 0.0;
  // The boundary midpoint of (0,0)-(1,0), first level: (0.5, 0).
  check(Planar, "square, 2 levels: 25 vertices, 32 triangles, flat");
  runtime_check::checkTopology(Flat, buildTopology(Flat), "square, 2 levels");
}
// CHECK: PASS icosahedron, 3 levels: 642 vertices, 1280 triangles, closed
// CHECK: PASS icosahedron, 3 levels: diamonds are pairs of oriented triangles
// CHECK: PASS subdivision commutes with translation
// CHECK: PASS subdivided icosahedron stays round and inside the hull
// CHECK: PASS levels for a million triangles
// CHECK: PASS square, 2 levels: 25 vertices, 32 triangles, flat

int main(int Argc, char **Argv) {
  std::string Dir = Argc > 1 ? Argv[1] : ".";
  closedSurface(Dir);
  withBoundary();
  tets();
  subdivision(Dir);
  return runtime_check::Failures != 0;
}
