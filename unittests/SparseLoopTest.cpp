//===- unittests/SparseLoopTest.cpp - The sparse loop Hessian runtime -----===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
//
// meshad/codegen/SparseLoop.h on its own: adds of random local Hessians
// through sparseLoopBegin/Add/End against a dense accumulation of the same
// adds, over calls whose rows stay the same (the pattern kept), change in
// the middle of a call (rebuilt with the values added so far), make fewer
// adds, and name one row in every add (a long row); and affine loops
// (sparseLoopAffine, one record entry per loop) mixed with general adds:
// kept while the bounds stay, rebuilt when they change, in the middle of
// a call too.
//
//===----------------------------------------------------------------------===//

#include "meshad/codegen/SparseLoop.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <random>
#include <vector>

namespace {

/// One call: loop 1 adds 2x2 blocks at the rows of \p Edges, loop 2 a
/// diagonal entry at I + Shift for I < N; each checked against a dense sum.
class Caller {
public:
  void call(meshad::SparseMatrix<double> &H, const std::vector<int> &Edges,
            int N, int Shift) {
    Size = N + Shift;
    for (int V : Edges)
      Size = std::max(Size, V + 1);
    Dense.assign(Size * Size, 0.0);
    meshad::sparseLoopBegin(&H);
    for (size_t E = 0; E + 1 < Edges.size(); E += 2) {
      int Rows[2] = {Edges[E], Edges[E + 1]};
      double Hl[4];
      fill(Hl, 4);
      for (int A = 0; A < 2; ++A)
        for (int B = 0; B < 2; ++B)
          Dense[Rows[A] * Size + Rows[B]] += Hl[A * 2 + B];
      meshad::sparseLoopAdd<2, 15ull>(&H, Rows, Hl);
    }
    for (int I = 0; I < N; ++I) {
      int Rows[1] = {I + Shift};
      double Hl[1];
      fill(Hl, 1);
      Dense[Rows[0] * Size + Rows[0]] += Hl[0];
      meshad::sparseLoopAdd<1, 1ull>(&H, Rows, Hl);
    }
    meshad::sparseLoopEnd(&H);
  }

  void expectMatches(const meshad::SparseMatrix<double> &H) const {
    ASSERT_EQ(H.Rows, Size);
    for (int R = 0; R < Size; ++R) {
      for (int E = H.RowOffsets[R] + 1; E < H.RowOffsets[R + 1]; ++E)
        EXPECT_LT(H.Columns[E - 1], H.Columns[E]);
      for (int C = 0; C < Size; ++C)
        EXPECT_NEAR(H.at(R, C), Dense[R * Size + C], 1e-12)
            << "entry " << R << ", " << C;
    }
  }

private:
  void fill(double *V, int N) {
    for (int I = 0; I < N; ++I)
      V[I] = static_cast<double>(Gen() % 1000) / 100.0 + 0.5;
  }
  std::mt19937 Gen{7};
  int Size = 0;
  std::vector<double> Dense;
};

TEST(SparseLoopTest, PatternKeptWhileTheRowsStay) {
  meshad::SparseMatrix<double> H;
  Caller C;
  std::vector<int> Edges = {0, 1, 1, 2, 2, 3, 3, 0, 1, 3};
  C.call(H, Edges, 4, 0);
  C.expectMatches(H);
  EXPECT_EQ(H.Rebuilds, 1);
  EXPECT_EQ(H.nonzeros(), 4 + 2 * 5);
  C.call(H, Edges, 4, 0);
  C.expectMatches(H);
  EXPECT_EQ(H.Rebuilds, 1);
}

TEST(SparseLoopTest, RebuiltWhenTheRowsChange) {
  meshad::SparseMatrix<double> H;
  Caller C;
  std::vector<int> Edges = {0, 1, 1, 2, 2, 3, 3, 0, 1, 3};
  C.call(H, Edges, 4, 0);
  Edges[3] = 4; // An edge changed in place: rebuilt from the second add.
  C.call(H, Edges, 4, 0);
  C.expectMatches(H);
  EXPECT_EQ(H.Rebuilds, 2);
  C.call(H, Edges, 3, 0); // Fewer adds.
  C.expectMatches(H);
  EXPECT_EQ(H.Rebuilds, 3);
  C.call(H, Edges, 5, 1); // Other rows in the second loop.
  C.expectMatches(H);
  Edges.resize(4); // Fewer edges.
  C.call(H, Edges, 5, 1);
  C.expectMatches(H);
  C.call(H, Edges, 5, 1);
  C.expectMatches(H);
  EXPECT_EQ(H.Rebuilds, 5);
}

TEST(SparseLoopTest, LongRowsAndRepeatedRows) {
  meshad::SparseMatrix<double> H;
  Caller C;
  std::vector<int> Edges;
  for (int V = 1; V < 60; ++V) // Row 0 in every edge, and an edge (v, v).
    Edges.insert(Edges.end(), {0, V, V, V});
  C.call(H, Edges, 10, 0);
  C.expectMatches(H);
  EXPECT_EQ(H.RowOffsets[1] - H.RowOffsets[0], 60);
}

/// One call of three loops: an affine chain over [1, N) (entries i - 1
/// and i), general 2x2 adds at \p Edges, an affine stride-2 pair loop over
/// [0, M) (entries 2i and 2i + 1, only their off-diagonal pairs).
class AffineCaller {
public:
  void call(meshad::SparseMatrix<double> &H, const std::vector<int> &Edges,
            int N, int M) {
    Size = std::max(N > 1 ? N : 0, 2 * M); // The rows the loops read.
    for (int V : Edges)
      Size = std::max(Size, V + 1);
    Dense.assign(Size * Size, 0.0);
    meshad::sparseLoopBegin(&H);
    meshad::sparseLoopAffine<2, 15ull, 1, -1, 1, 0>(&H, 1, N);
    for (int I = 1; I < N; ++I) {
      double Hl[4];
      add({I - 1, I}, 15, Hl);
      meshad::sparseLoopAffineAdd<2, 15ull>(&H, Hl);
    }
    for (size_t E = 0; E + 1 < Edges.size(); E += 2) {
      int Rows[2] = {Edges[E], Edges[E + 1]};
      double Hl[4];
      add({Rows[0], Rows[1]}, 15, Hl);
      meshad::sparseLoopAdd<2, 15ull>(&H, Rows, Hl);
    }
    meshad::sparseLoopAffine<2, 6ull, 2, 0, 2, 1>(&H, 0, M);
    for (int I = 0; I < M; ++I) {
      double Hl[4];
      add({2 * I, 2 * I + 1}, 6, Hl);
      meshad::sparseLoopAffineAdd<2, 6ull>(&H, Hl);
    }
    meshad::sparseLoopEnd(&H);
  }

  void expectMatches(const meshad::SparseMatrix<double> &H) const {
    ASSERT_EQ(H.Rows, Size);
    for (int R = 0; R < Size; ++R)
      for (int C = 0; C < Size; ++C)
        EXPECT_NEAR(H.at(R, C), Dense[R * Size + C], 1e-12)
            << "entry " << R << ", " << C;
  }

private:
  void add(std::vector<int> Rows, unsigned Mask, double *Hl) {
    for (int E = 0; E < 4; ++E) {
      Hl[E] = static_cast<double>(Gen() % 1000) / 100.0 + 0.5;
      if (Mask >> E & 1)
        Dense[Rows[E / 2] * Size + Rows[E % 2]] += Hl[E];
    }
  }
  std::mt19937 Gen{11};
  int Size = 0;
  std::vector<double> Dense;
};

TEST(SparseLoopTest, AffineLoopsKeptWhileTheBoundsStay) {
  meshad::SparseMatrix<double> H;
  AffineCaller C;
  std::vector<int> Edges = {0, 5, 5, 9};
  C.call(H, Edges, 8, 5);
  C.expectMatches(H);
  EXPECT_EQ(H.Rebuilds, 1);
  C.call(H, Edges, 8, 5);
  C.expectMatches(H);
  EXPECT_EQ(H.Rebuilds, 1);
  EXPECT_EQ(H.Record.Rows.size(), 4u); // The general adds' rows only.
}

TEST(SparseLoopTest, AffineLoopsRebuiltWhenTheBoundsChange) {
  meshad::SparseMatrix<double> H;
  AffineCaller C;
  std::vector<int> Edges = {0, 5, 5, 9};
  C.call(H, Edges, 8, 5);
  C.call(H, Edges, 12, 5); // The first loop's bounds.
  C.expectMatches(H);
  EXPECT_EQ(H.Rebuilds, 2);
  C.call(H, Edges, 12, 3); // The last loop's, after the others matched.
  C.expectMatches(H);
  EXPECT_EQ(H.Rebuilds, 3);
  Edges[1] = 11; // A general add between them.
  C.call(H, Edges, 12, 3);
  C.expectMatches(H);
  EXPECT_EQ(H.Rebuilds, 4);
  C.call(H, Edges, 12, 3);
  C.expectMatches(H);
  EXPECT_EQ(H.Rebuilds, 4);
  C.call(H, {}, 1, 0); // Empty loops.
  C.expectMatches(H);
}

TEST(SparseLoopTest, OneAffineLoopAsGeneralAdds) {
  // One affine loop (built row by row from its forms) against the same
  // adds made with their rows (the counting sort): the same matrix.
  for (int N : {0, 1, 2, 7, 100}) {
    meshad::SparseMatrix<double> A, G;
    meshad::sparseLoopBegin(&A);
    meshad::sparseLoopBegin(&G);
    meshad::sparseLoopAffine<3, 0x1ABull, 2, 1, 2, 2, 2, 4>(&A, 1, N);
    for (int I = 1; I < N; ++I) {
      double Hl[9];
      for (int E = 0; E < 9; ++E)
        Hl[E] = 1.0 + E + 0.5 * I;
      int Rows[3] = {2 * I + 1, 2 * I + 2, 2 * I + 4};
      meshad::sparseLoopAffineAdd<3, 0x1ABull>(&A, Hl);
      meshad::sparseLoopAdd<3, 0x1ABull>(&G, Rows, Hl);
    }
    meshad::sparseLoopEnd(&A);
    meshad::sparseLoopEnd(&G);
    EXPECT_EQ(A.Rows, G.Rows);
    EXPECT_EQ(A.RowOffsets, G.RowOffsets);
    EXPECT_EQ(A.Columns, G.Columns);
    ASSERT_EQ(A.Values.size(), G.Values.size());
    for (size_t E = 0; E < A.Values.size(); ++E)
      EXPECT_NEAR(A.Values[E], G.Values[E], 1e-12) << "value " << E;
  }
}

/// Adds over two selected arrays: per iteration I < N, the K = 9 entries
/// (array I % 2, element I + J) and (array 1, element I + J) alternately,
/// with a pattern of 81 bits (two mask words), and the entry J = 4 skipped
/// (SkipRow) in odd iterations; checked against a dense sum over the
/// concatenated elements.
class TwoArrayCaller {
public:
  static constexpr int K = 9;
  static constexpr unsigned long long Mask0 = 0xF0F0F0F0F0F0F0F0ull | 1ull;
  static constexpr unsigned long long Mask1 = 0x1FFFFull;

  void call(meshad::SparseMatrix<double> &H, int N) {
    Extent[0] = Extent[1] = 0;
    std::vector<std::array<int, 3>> Adds; // array, element, other entry
    std::vector<std::pair<std::array<int, 2>, std::array<int, 2>>> Pairs;
    std::vector<double> Values;
    meshad::sparseLoopBegin(&H, 2);
    for (int I = 0; I < N; ++I) {
      int Rows[K], Arrays[K];
      double Hl[K * K];
      for (int J = 0; J < K; ++J) {
        Arrays[J] = J % 2 ? 1 : I % 2;
        Rows[J] = (J == 4 && I % 2) ? meshad::SkipRow : I + J;
        if (Rows[J] != meshad::SkipRow)
          Extent[Arrays[J]] = std::max(Extent[Arrays[J]], Rows[J] + 1);
      }
      for (int E = 0; E < K * K; ++E) {
        Hl[E] = static_cast<double>(Gen() % 1000) / 100.0 + 0.5;
        bool Set = E < 64 ? Mask0 >> E & 1 : Mask1 >> (E - 64) & 1;
        int J = E / K, L = E % K;
        if (Set && Rows[J] != meshad::SkipRow && Rows[L] != meshad::SkipRow) {
          Pairs.push_back({{Arrays[J], Rows[J]}, {Arrays[L], Rows[L]}});
          Values.push_back(Hl[E]);
        }
      }
      meshad::sparseLoopAdd<K, Mask0, Mask1>(&H, Rows, Arrays, Hl);
    }
    meshad::sparseLoopEnd(&H);
    Size = Extent[0] + Extent[1];
    Dense.assign(Size * Size, 0.0);
    for (size_t P = 0; P < Pairs.size(); ++P) {
      int R = index(Pairs[P].first), C = index(Pairs[P].second);
      Dense[R * Size + C] += Values[P];
    }
  }

  void expectMatches(const meshad::SparseMatrix<double> &H) const {
    ASSERT_EQ(H.Arrays, 2);
    ASSERT_EQ(H.ArrayOffsets.size(), 3u);
    EXPECT_EQ(H.ArrayOffsets[1], Extent[0]);
    ASSERT_EQ(H.Rows, Size);
    for (int R = 0; R < Size; ++R)
      for (int C = 0; C < Size; ++C)
        EXPECT_NEAR(H.at(R, C), Dense[R * Size + C], 1e-12)
            << "entry " << R << ", " << C;
  }

private:
  int index(const std::array<int, 2> &E) const {
    return (E[0] ? Extent[0] : 0) + E[1];
  }
  std::mt19937 Gen{11};
  int Extent[2] = {0, 0};
  int Size = 0;
  std::vector<double> Dense;
};

TEST(SparseLoopTest, SeveralArraysWideMasksAndSkippedRows) {
  meshad::SparseMatrix<double> H;
  TwoArrayCaller C;
  C.call(H, 6);
  C.expectMatches(H);
  C.call(H, 6); // kept
  C.expectMatches(H);
  EXPECT_EQ(H.Rebuilds, 1);
  C.call(H, 9); // more adds: rebuilt at the end, the values kept
  C.expectMatches(H);
  EXPECT_EQ(H.Rebuilds, 2);
  C.call(H, 4); // fewer adds
  C.expectMatches(H);
  EXPECT_EQ(H.Rebuilds, 3);
}

/// A call whose rows change in the middle: the values added so far move
/// over to the new pattern in the concatenated rows of both arrays.
TEST(SparseLoopTest, SeveralArraysRebuiltInTheMiddle) {
  meshad::SparseMatrix<double> H;
  for (int Call = 0; Call < 2; ++Call) {
    meshad::sparseLoopBegin(&H, 2);
    for (int I = 0; I < 4; ++I) {
      int Rows[2] = {I, Call && I >= 2 ? I + 3 : I};
      int Arrays[2] = {0, 1};
      double Hl[4] = {1, 2, 3, 4};
      meshad::sparseLoopAdd<2, 15ull>(&H, Rows, Arrays, Hl);
    }
    meshad::sparseLoopEnd(&H);
  }
  EXPECT_EQ(H.Rebuilds, 2);
  ASSERT_EQ(H.ArrayOffsets[1], 4);
  EXPECT_EQ(H.Rows, 4 + 7);
  for (int I = 0; I < 4; ++I) {
    int V = 4 + (I >= 2 ? I + 3 : I);
    EXPECT_EQ(H.at(I, I), 1.0);
    EXPECT_EQ(H.at(I, V), 2.0);
    EXPECT_EQ(H.at(V, I), 3.0);
    EXPECT_EQ(H.at(V, V), 4.0);
  }
  EXPECT_EQ(H.nonzeros(), 16);
}

} // namespace
