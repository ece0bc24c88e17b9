//===- meshad/runtime/MeshIO.h - OFF, OBJ and TetGen readers ----*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Reads triangle meshes from OFF and OBJ files and tetrahedral meshes from
/// TetGen's `.node`/`.ele` pair. Polygons with more than three corners are
/// split into triangle fans. A malformed file is a MeshError whose message
/// starts with "file:line: " (a missing count, a bad number, an index out of
/// range, a truncated file...).
///
/// \code
///   using namespace meshad::runtime;
///   TriMesh Bunny = readTriMesh("bunny00.off");   // by extension: .off/.obj
///   TetMesh Body = readTetGen("armadillo.1");      // .1.node and .1.ele
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_RUNTIME_MESHIO_H
#define MESHAD_RUNTIME_MESHIO_H

#include "meshad/runtime/Mesh.h"

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace meshad {
namespace runtime {
namespace detail {

/// The non-empty lines of a text file, with '#' comments removed, split into
/// whitespace-separated tokens; knows the line it is on for messages.
class TokenLines {
public:
  explicit TokenLines(const std::string &Path) : Path(Path), In(Path) {
    if (!In)
      throw MeshError(Path + ": cannot open the file");
  }

  /// Reads the next non-empty line into Tokens; false at the end of the file.
  bool next() {
    std::string Line;
    while (std::getline(In, Line)) {
      ++LineNo;
      size_t Hash = Line.find('#');
      if (Hash != std::string::npos)
        Line.resize(Hash);
      std::istringstream Words(Line);
      Tokens.clear();
      for (std::string W; Words >> W;)
        Tokens.push_back(W);
      if (!Tokens.empty())
        return true;
    }
    Tokens.clear();
    return false;
  }

  /// Like next(), but a missing line is an error: \p What was expected.
  void expectLine(const std::string &What) {
    if (!next())
      throw MeshError(Path + ":" + std::to_string(LineNo) +
                      ": the file ends before " + What);
  }

  [[noreturn]] void fail(const std::string &Message) const {
    throw MeshError(Path + ":" + std::to_string(LineNo) + ": " + Message);
  }

  void expectTokens(size_t N, const std::string &What) const {
    if (Tokens.size() < N)
      fail("expected " + What);
  }

  long integer(size_t I, const std::string &What) const {
    if (I >= Tokens.size())
      fail("expected " + What);
    const char *S = Tokens[I].c_str();
    char *End = nullptr;
    errno = 0;
    long V = std::strtol(S, &End, 10);
    if (End == S || *End != '\0' || errno == ERANGE)
      fail("'" + Tokens[I] + "' is not an integer (" + What + ")");
    return V;
  }

  double real(size_t I, const std::string &What) const {
    if (I >= Tokens.size())
      fail("expected " + What);
    const char *S = Tokens[I].c_str();
    char *End = nullptr;
    double V = std::strtod(S, &End);
    if (End == S || *End != '\0')
      fail("'" + Tokens[I] + "' is not a number (" + What + ")");
    return V;
  }

  const std::vector<std::string> &tokens() const { return Tokens; }
  const std::string &path() const { return Path; }

private:
  std::string Path;
  std::ifstream In;
  std::vector<std::string> Tokens;
  int LineNo = 0;
};

inline bool endsWith(const std::string &S, const std::string &Suffix) {
  return S.size() >= Suffix.size() &&
         S.compare(S.size() - Suffix.size(), Suffix.size(), Suffix) == 0;
}

/// Appends the fan (C[0], C[i], C[i+1]) of a polygon.
inline void addFan(std::vector<int> &Tris, const std::vector<int> &Corners) {
  for (size_t I = 1; I + 1 < Corners.size(); ++I) {
    Tris.push_back(Corners[0]);
    Tris.push_back(Corners[I]);
    Tris.push_back(Corners[I + 1]);
  }
}

/// Reads three coordinates starting at token \p First.
inline void readPoint(const TokenLines &L, size_t First,
                      std::vector<double> &X) {
  static const char *Axis[] = {"the x coordinate", "the y coordinate",
                               "the z coordinate"};
  for (size_t K = 0; K < 3; ++K)
    X.push_back(L.real(First + K, Axis[K]));
}

/// The 0-based vertex of an OBJ face corner "i", "i/t", "i//n" or "i/t/n";
/// negative indices count back from the last vertex read.
inline int objCorner(const TokenLines &L, size_t I, int NumVertices) {
  std::string Corner = L.tokens()[I];
  std::string Head = Corner.substr(0, Corner.find('/'));
  char *End = nullptr;
  long V = std::strtol(Head.c_str(), &End, 10);
  if (Head.empty() || *End != '\0')
    L.fail("'" + Corner + "' is not a face corner");
  long Index = V > 0 ? V - 1 : NumVertices + V;
  if (V == 0 || Index < 0 || Index >= NumVertices)
    L.fail("face corner " + Head + " is not one of the " +
           std::to_string(NumVertices) + " vertices read so far");
  return static_cast<int>(Index);
}

} // namespace detail

/// Reads an OFF file ("OFF", then "V F E", V points, F polygons "n i0 i1 ...";
/// the counts may follow "OFF" on its line; colours after a face are ignored).
inline TriMesh readOff(const std::string &Path) {
  detail::TokenLines L(Path);
  L.expectLine("the OFF header");
  size_t CountsAt = 0;
  const std::string &Head = L.tokens()[0];
  if (Head != "OFF" && Head != "COFF" && Head != "NOFF")
    L.fail("expected the header OFF, found '" + Head + "'");
  if (L.tokens().size() == 1) {
    L.expectLine("the counts (vertices, faces, edges)");
  } else {
    CountsAt = 1;
  }
  long NV = L.integer(CountsAt, "the number of vertices");
  long NF = L.integer(CountsAt + 1, "the number of faces");
  if (NV < 0 || NF < 0)
    L.fail("negative counts");
  TriMesh M;
  M.X.reserve(3 * NV);
  for (long V = 0; V < NV; ++V) {
    L.expectLine("vertex " + std::to_string(V));
    detail::readPoint(L, 0, M.X);
  }
  M.Tris.reserve(3 * NF);
  std::vector<int> Corners;
  for (long F = 0; F < NF; ++F) {
    L.expectLine("face " + std::to_string(F));
    long N = L.integer(0, "the number of corners");
    if (N < 3)
      L.fail("a face needs at least 3 corners, this one has " +
             std::to_string(N));
    Corners.clear();
    for (long C = 1; C <= N; ++C) {
      long I = L.integer(C, "corner " + std::to_string(C - 1));
      if (I < 0 || I >= NV)
        L.fail("corner " + std::to_string(I) + " is not one of the " +
               std::to_string(NV) + " vertices");
      Corners.push_back(static_cast<int>(I));
    }
    detail::addFan(M.Tris, Corners);
  }
  return M;
}

/// Reads the vertices ("v x y z") and faces ("f a b c ...") of an OBJ file;
/// every other statement (vt, vn, o, g, usemtl, s...) is skipped.
inline TriMesh readObj(const std::string &Path) {
  detail::TokenLines L(Path);
  TriMesh M;
  std::vector<int> Corners;
  while (L.next()) {
    const std::string &Key = L.tokens()[0];
    if (Key == "v") {
      detail::readPoint(L, 1, M.X);
    } else if (Key == "f") {
      if (L.tokens().size() < 4)
        L.fail("a face needs at least 3 corners");
      Corners.clear();
      for (size_t I = 1; I < L.tokens().size(); ++I)
        Corners.push_back(detail::objCorner(L, I, M.numVertices()));
      detail::addFan(M.Tris, Corners);
    }
  }
  if (M.Tris.empty())
    throw MeshError(Path + ": no faces");
  return M;
}

/// Reads a triangle mesh by the file's extension: .off or .obj.
inline TriMesh readTriMesh(const std::string &Path) {
  if (detail::endsWith(Path, ".off") || detail::endsWith(Path, ".OFF"))
    return readOff(Path);
  if (detail::endsWith(Path, ".obj") || detail::endsWith(Path, ".OBJ"))
    return readObj(Path);
  throw MeshError(Path + ": unknown mesh format (expected .off or .obj)");
}

/// Reads TetGen's Base.node ("N 3 attributes markers", then "i x y z ...")
/// and Base.ele ("T 4|10 attributes", then "t a b c d ..."; the first four
/// corners are the tet's vertices). Indices may start at 0 or 1, as the
/// .node file's first point says.
inline TetMesh readTetGen(const std::string &Base) {
  TetMesh M;
  int FirstIndex = 0;
  {
    detail::TokenLines L(Base + ".node");
    L.expectLine("the .node header");
    long N = L.integer(0, "the number of points");
    if (L.integer(1, "the dimension") != 3)
      L.fail("only 3-dimensional points are supported");
    for (long P = 0; P < N; ++P) {
      L.expectLine("point " + std::to_string(P));
      long Index = L.integer(0, "the point's index");
      if (P == 0 && (Index == 0 || Index == 1))
        FirstIndex = static_cast<int>(Index);
      if (Index != P + FirstIndex)
        L.fail("point " + std::to_string(Index) + " out of order (expected " +
               std::to_string(P + FirstIndex) + ")");
      detail::readPoint(L, 1, M.X);
    }
  }
  detail::TokenLines L(Base + ".ele");
  L.expectLine("the .ele header");
  long T = L.integer(0, "the number of tetrahedra");
  long Corners = L.integer(1, "the number of nodes per tetrahedron");
  if (Corners != 4 && Corners != 10)
    L.fail("tetrahedra have 4 or 10 nodes, not " + std::to_string(Corners));
  M.Tets.reserve(4 * T);
  for (long E = 0; E < T; ++E) {
    L.expectLine("tetrahedron " + std::to_string(E));
    for (size_t C = 1; C <= 4; ++C) {
      long I = L.integer(C, "corner " + std::to_string(C - 1)) - FirstIndex;
      if (I < 0 || I >= M.numVertices())
        L.fail("corner " + std::to_string(I + FirstIndex) +
               " is not one of the points of " + Base + ".node");
      M.Tets.push_back(static_cast<int>(I));
    }
  }
  return M;
}

} // namespace runtime
} // namespace meshad

#endif // MESHAD_RUNTIME_MESHIO_H
