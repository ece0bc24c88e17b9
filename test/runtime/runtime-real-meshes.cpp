// The mesh runtime on CGAL's data meshes (scripts/fetch-meshes.sh, run by
// setup.sh): four closed surfaces of genus 0 and one with a boundary, their
// connectivity, and one level of Loop subdivision of each.
//
// REQUIRES: meshes
// RUN: %clangxx -std=c++17 -O2 -I%I %s -o %t
// RUN: %t %mesh_dir | FileCheck %s
// CHECK-NOT: FAIL

#include "RuntimeCheck.h"

#include <meshad/runtime/MeshIO.h>
#include <meshad/runtime/Subdivision.h>

using namespace meshad::runtime;
using runtime_check::check;

static void checkMesh(const std::string &Dir, const std::string &Name,
                      bool Closed) {
  TriMesh M = readTriMesh(Dir + "/" + Name);
  MeshTopology Top = buildTopology(M);
  int Euler = runtime_check::eulerCharacteristic(M, Top);
  std::printf("%s: %d vertices, %d triangles, %d edges, %zu boundary edges\n",
              Name.c_str(), M.numVertices(), M.numTriangles(), Top.numEdges(),
              Top.BoundaryEdges.size() / 2);
  if (Closed)
    check(Euler == 2 && Top.BoundaryEdges.empty(),
          Name + ": closed, genus 0");
  else
    check(!Top.BoundaryEdges.empty(), Name + ": has a boundary");
  runtime_check::checkTopology(M, Top, Name);

  TriMesh Fine = loopSubdivideOnce(M);
  MeshTopology FineTop = buildTopology(Fine);
  check(Fine.numTriangles() == 4 * M.numTriangles() &&
            Fine.numVertices() == M.numVertices() + Top.numEdges() &&
            runtime_check::eulerCharacteristic(Fine, FineTop) == Euler,
        Name + " subdivided: 4x the triangles, V + E vertices, same Euler "
               "characteristic");
  runtime_check::checkTopology(Fine, FineTop, Name + " subdivided");
}

int main(int Argc, char **Argv) {
  std::string Dir = Argc > 1 ? Argv[1] : "data/meshes";
  for (const char *Name :
       {"armadillo.off", "bunny00.off", "camel.off", "cow.off"})
    checkMesh(Dir, Name, /*Closed=*/true);
  checkMesh(Dir, "lion-head.off", /*Closed=*/false);
  return runtime_check::Failures != 0;
}
// CHECK-LABEL: armadillo.off: 26002 vertices, 52000 triangles, 78000 edges, 0 boundary edges
// CHECK: lion-head.off: 8356 vertices, 16674 triangles, 25029 edges, 36 boundary edges
// CHECK: PASS lion-head.off subdivided: 4x the triangles, V + E vertices, same Euler characteristic
