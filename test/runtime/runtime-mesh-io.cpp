// The mesh runtime's readers: OFF, OBJ (polygons as fans, slashes, negative
// indices) and TetGen's .node/.ele; every malformed file is a MeshError
// that names the file and the line.
//
// RUN: %clangxx -std=c++17 -I%I %s -o %t
// RUN: %t %test_inputs/meshes | FileCheck %s
// CHECK-NOT: FAIL

#include <meshad/runtime/MeshIO.h>

#include <cstdio>
#include <string>

using namespace meshad::runtime;

static int Failures = 0;
static void check(bool Ok, const char *What) {
  std::printf("%s %s\n", Ok ? "PASS" : "FAIL", What);
  Failures += !Ok;
}

static std::string Dir;

template <typename Read> static void expectError(Read R) {
  try {
    R();
    std::printf("FAIL no error\n");
    ++Failures;
  } catch (const MeshError &E) {
    std::string Msg = E.what();
    // Print the message without the directory, for FileCheck.
    for (size_t At; (At = Msg.find(Dir + "/")) != std::string::npos;)
      Msg.erase(At, Dir.size() + 1);
    std::printf("error: %s\n", Msg.c_str());
  }
}

int main(int Argc, char **Argv) {
  Dir = Argc > 1 ? Argv[1] : ".";
  TriMesh Tetra = readTriMesh(Dir + "/tetra.off");
  check(Tetra.numVertices() == 4 && Tetra.numTriangles() == 4, "off counts");
  check(Tetra.X[3 * 3 + 2] == 1.0 && Tetra.Tris[3] == 0 && Tetra.Tris[5] == 3,
        "off contents");
  // CHECK: PASS off counts
  // CHECK: PASS off contents

  TriMesh Square = readTriMesh(Dir + "/square.obj");
  // The quad is a fan (0 1 2), (0 2 3); "-4//1 -2//1 -1//1" is (0 2 3).
  const int Expected[] = {0, 1, 2, 0, 2, 3, 0, 2, 3};
  bool Same = Square.numVertices() == 4 && Square.numTriangles() == 3;
  for (int I = 0; Same && I < 9; ++I)
    Same = Square.Tris[I] == Expected[I];
  check(Same, "obj fans and negative corners");
  // CHECK: PASS obj fans and negative corners

  TetMesh One = readTetGen(Dir + "/one-tet");
  check(One.numVertices() == 4 && One.numTets() == 1 && One.Tets[0] == 0 &&
            One.Tets[3] == 3 && One.X[3 * 1] == 1.0,
        "tetgen one-based indices");
  // CHECK: PASS tetgen one-based indices

  expectError([&] { readTriMesh(Dir + "/bad-index.off"); });
  // CHECK: error: bad-index.off:6: corner 7 is not one of the 3 vertices
  expectError([&] { readTriMesh(Dir + "/truncated.off"); });
  // CHECK: error: truncated.off:6: the file ends before face 1
  expectError([&] { readTriMesh(Dir + "/bad-number.off"); });
  // CHECK: error: bad-number.off:4: 'zero' is not a number (the y coordinate)
  expectError([&] { readTriMesh(Dir + "/bad-header.off"); });
  // CHECK: error: bad-header.off:1: expected the header OFF, found 'PLY'
  expectError([&] { readTriMesh(Dir + "/short-face.obj"); });
  // CHECK: error: short-face.obj:4: a face needs at least 3 corners
  expectError([&] { readTriMesh(Dir + "/bad-corner.obj"); });
  // CHECK: error: bad-corner.obj:4: face corner 4 is not one of the 3 vertices read so far
  expectError([&] { readTetGen(Dir + "/bad-tet"); });
  // CHECK: error: bad-tet.ele:2: corner 9 is not one of the points of bad-tet.node
  expectError([&] { readTriMesh(Dir + "/missing.off"); });
  // CHECK: error: missing.off: cannot open the file
  expectError([&] { readTriMesh(Dir + "/tetra.ply"); });
  // CHECK: error: tetra.ply: unknown mesh format (expected .off or .obj)
  return Failures != 0;
}
