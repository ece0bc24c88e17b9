//===- meshad/codegen/SparseLoop.h - Sparse Hessians of loops ---*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The CSR matrix that meshad::hessian(f, "x", meshad::Sparse) fills, and
/// the two helpers its generated code calls (host code).
///
/// For a loop `for (int i = Lo; i < Hi; ++i) acc += term(x[S*i + C0], ...,
/// x[S*i + C(K-1)])`, meshad knows at compile time the stride S, the K
/// offsets C and which pairs (j, l) of the K entries interact in one
/// iteration (the local Hessian's pattern, a bit mask of K*K bits, bit
/// j*K + l). sparseLoopBegin builds the pattern for the run-time range
/// [Lo, Hi) in O(Hi - Lo): row r holds column r + (Cl - Cj) when some
/// iteration i in range has S*i + Cj == r and a nonzero (j, l), and the
/// slot of every (iteration, pair) in the values array (no search: the
/// rows are built from the offsets). It keeps the pattern while the range
/// stays the same and zeroes the values. sparseLoopAdd adds one
/// iteration's local Hessian through the slots.
///
/// \code
///   // double chain(const double *x, int n): a sum over i of (x[i-1]-x[i])^2
///   auto h = meshad::hessian(chain, "x", meshad::Sparse);
///   meshad::SparseMatrix<double> H;
///   h.execute(x, n, &H);            // H.Rows == n, 3n - 2 nonzeros
///   for (int r = 0; r < H.Rows; ++r)
///     for (int e = H.RowOffsets[r]; e < H.RowOffsets[r + 1]; ++e)
///       use(r, H.Columns[e], H.Values[e]);
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_CODEGEN_SPARSELOOP_H
#define MESHAD_CODEGEN_SPARSELOOP_H

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace meshad {

/// A square sparse matrix in CSR (rows sorted by column, int offsets):
/// Rows + 1 row offsets, one column and one value per nonzero. The rows
/// are the selected array's elements 0 .. Rows - 1 (up to the last one
/// the loop reads).
template <class T> struct SparseMatrix {
  int Rows = 0;
  std::vector<int> RowOffsets{0};
  std::vector<int> Columns;
  std::vector<T> Values;

  int nonzeros() const { return static_cast<int>(Columns.size()); }
  /// Entry (I, J), 0 when it is not in the pattern (a search: for tests).
  T at(int I, int J) const {
    auto B = Columns.begin() + RowOffsets[I],
         E = Columns.begin() + RowOffsets[I + 1];
    auto It = std::lower_bound(B, E, J);
    return It != E && *It == J ? Values[It - Columns.begin()] : T(0);
  }

  // The pattern's source, kept to rebuild only when it changes.
  std::vector<long long> Key;
  /// Slot of pair p (in mask order) of iteration i: Slots[(i - Lo) * P + p].
  std::vector<int> Slots;
  long long Lo = 0;
  int Pairs = 0;
};

namespace detail {

/// The pattern of a loop over [Lo, Hi) with stride S, K offsets C and the
/// interacting pairs of Mask, into \p H (its slots included).
template <class T>
void buildLoopPattern(SparseMatrix<T> &H, long long S, unsigned long long Mask,
                      const long long *C, int K, long long Lo, long long Hi) {
  std::vector<int> J, D; // per pair: its first entry and its column offset
  for (int E = 0; E < K * K; ++E)
    if (Mask >> E & 1) {
      J.push_back(E / K);
      D.push_back(static_cast<int>(C[E % K] - C[E / K]));
    }
  std::vector<int> Offsets(D);
  std::sort(Offsets.begin(), Offsets.end());
  Offsets.erase(std::unique(Offsets.begin(), Offsets.end()), Offsets.end());
  long long MinC = *std::min_element(C, C + K), MaxC = *std::max_element(C, C + K);
  long long Rows = Hi > Lo ? S * (Hi - 1) + MaxC + 1 : 0;
  if (Hi > Lo && S * Lo + MinC < 0) {
    std::fprintf(stderr, "meshad::SparseMatrix: the loop reads element %lld "
                         "of the selected array\n", S * Lo + MinC);
    std::abort();
  }
  const int P = static_cast<int>(J.size());
  H.Rows = static_cast<int>(Rows);
  H.Lo = Lo;
  H.Pairs = P;
  H.RowOffsets.assign(1, 0);
  H.Columns.clear();
  H.Slots.assign(static_cast<size_t>(Hi > Lo ? Hi - Lo : 0) * P, -1);
  // The iteration in which pair p's first entry is row R, or -1.
  auto IterationOf = [&](long long R, int Pair) -> long long {
    long long Q = R - C[J[Pair]];
    if (Q % S != 0 || Q / S < Lo || Q / S >= Hi)
      return -1;
    return Q / S;
  };
  for (long long R = 0; R < Rows; ++R) {
    for (int Offset : Offsets) {
      bool Present = false;
      for (int Pair = 0; Pair < P; ++Pair) {
        long long I = D[Pair] == Offset ? IterationOf(R, Pair) : -1;
        if (I < 0)
          continue;
        H.Slots[(I - Lo) * P + Pair] = static_cast<int>(H.Columns.size());
        Present = true;
      }
      if (Present)
        H.Columns.push_back(static_cast<int>(R + Offset));
    }
    H.RowOffsets.push_back(static_cast<int>(H.Columns.size()));
  }
}

} // namespace detail

/// Called by generated code before the loop of a sparse loop Hessian:
/// (re)builds \p H's pattern for the iterations [Lo, Hi) when they or the
/// loop's structure changed, and zeroes its values.
template <long long S, unsigned long long Mask, long long... C, class T>
void sparseLoopBegin(SparseMatrix<T> *H, long long Lo, long long Hi) {
  const long long Offsets[] = {C...};
  std::vector<long long> Key{S, static_cast<long long>(Mask), Lo, Hi, C...};
  if (H->Key != Key) {
    detail::buildLoopPattern(*H, S, Mask, Offsets,
                             static_cast<int>(sizeof...(C)), Lo, Hi);
    H->Key = Key;
  }
  H->Values.assign(H->Columns.size(), T(0));
}

/// Adds the K x K local Hessian \p Hl of iteration \p I (its entries of
/// Mask) into \p H's values through the slots sparseLoopBegin built.
template <int K, unsigned long long Mask, class T>
void sparseLoopAdd(SparseMatrix<T> *H, long long I, const T *Hl) {
  const int *Slot = &H->Slots[(I - H->Lo) * H->Pairs];
  for (int E = 0, Pair = 0; E < K * K; ++E)
    if (Mask >> E & 1)
      H->Values[Slot[Pair++]] += Hl[E];
}

} // namespace meshad

#endif // MESHAD_CODEGEN_SPARSELOOP_H
