//===- meshad/runtime/Mesh.h - Triangle and tet meshes ----------*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The mesh runtime's data: flat arrays, laid out as element kernels read
/// them (`x[3*v + k]`, `tris[3*t + j]`, `tets[4*t + j]`), so that a mesh's
/// arrays are copied to the GPU as they are and indexed there by the same
/// expressions meshad differentiates.
///
/// \code
///   #include <meshad/runtime/MeshIO.h>
///   meshad::runtime::TriMesh M = meshad::runtime::readTriMesh("bunny.off");
///   double *dX;  int *dTris;
///   cudaMalloc(&dX, M.X.size() * sizeof(double));
///   cudaMemcpy(dX, M.X.data(), ...);
///   energyKernel<<<blocks, 256>>>(dX, dTris, M.numTriangles(), dE);
/// \endcode
///
/// Header-only, host code; usable with nvcc, clang CUDA and under the CPU
/// emulation (meshad/cpu/CudaOnCpu.h).
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_RUNTIME_MESH_H
#define MESHAD_RUNTIME_MESH_H

#include <stdexcept>
#include <string>
#include <vector>

namespace meshad {
namespace runtime {

/// A problem with a mesh: a malformed file (the message starts with
/// "file:line: "), or a mesh that an operation does not accept (a
/// non-manifold edge for edge diamonds, an index out of range).
class MeshError : public std::runtime_error {
public:
  explicit MeshError(const std::string &Message)
      : std::runtime_error(Message) {}
};

/// A triangle mesh: X holds 3 coordinates per vertex, Tris 3 vertex indices
/// (0-based) per triangle, counter-clockwise seen from outside.
struct TriMesh {
  std::vector<double> X;
  std::vector<int> Tris;

  int numVertices() const { return static_cast<int>(X.size() / 3); }
  int numTriangles() const { return static_cast<int>(Tris.size() / 3); }
};

/// A tetrahedral mesh: X holds 3 coordinates per vertex, Tets 4 vertex
/// indices (0-based) per tetrahedron, positively oriented as TetGen writes
/// them.
struct TetMesh {
  std::vector<double> X;
  std::vector<int> Tets;

  int numVertices() const { return static_cast<int>(X.size() / 3); }
  int numTets() const { return static_cast<int>(Tets.size() / 4); }
};

/// Compressed rows: row R holds Entries[Offsets[R] .. Offsets[R + 1]).
struct Csr {
  std::vector<int> Offsets;
  std::vector<int> Entries;

  int numRows() const {
    return Offsets.empty() ? 0 : static_cast<int>(Offsets.size()) - 1;
  }
  int rowSize(int R) const { return Offsets[R + 1] - Offsets[R]; }
};

/// Throws MeshError unless every index in [Begin, End) lies in
/// [0, NumVertices); What names the array in the message.
inline void checkIndices(const std::vector<int> &Indices, int NumVertices,
                         const char *What) {
  for (size_t I = 0; I < Indices.size(); ++I)
    if (Indices[I] < 0 || Indices[I] >= NumVertices)
      throw MeshError(std::string(What) + "[" + std::to_string(I) + "] = " +
                      std::to_string(Indices[I]) + " is not a vertex (" +
                      std::to_string(NumVertices) + " vertices)");
}

} // namespace runtime
} // namespace meshad

#endif // MESHAD_RUNTIME_MESH_H
