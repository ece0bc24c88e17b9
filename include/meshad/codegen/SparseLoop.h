//===- meshad/codegen/SparseLoop.h - Sparse Hessians of loops ---*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The CSR matrix that meshad::hessian(f, "x", meshad::Sparse) fills, and
/// the helpers its generated code calls (host code).
///
/// Each loop `for (int i = Lo; i < Hi; ++i) acc += term(x[r_0], ...,
/// x[r_(K-1)])` of f reads K entries of x per iteration (r_j = S_j*i + c_j,
/// or through an index array, `3*e[2*i] + 1`); meshad knows at compile time
/// which pairs (j, l) of them interact in one iteration (the local
/// Hessian's pattern, a mask of K*K bits, bit j*K + l). The generated code
/// computes the K rows of each iteration and its local Hessian, and calls
/// sparseLoopAdd; the pattern is the union over the loops and iterations.
///
/// The pattern and the slot of every (iteration, pair) are built on the
/// first call from the rows the adds name (a counting sort by row, O(nnz),
/// no dense pass), and kept: later calls add through the slots (no
/// search), after comparing each add's rows with the recorded ones (K
/// integer compares). Where they differ (other loop bounds, other index
/// array contents), the pattern is rebuilt from there on in the same call,
/// so the matrix is always that of the call's own inputs. The values are
/// zeroed on every call; Rebuilds counts the builds.
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

namespace detail {

/// What the adds of one call named, in order, and where their values went:
/// the pattern's source, compared with the next call's adds.
struct SparseLoopRecord {
  std::vector<int> Ks;                  ///< Per add: its K.
  std::vector<unsigned long long> Masks; ///< Per add: its pairs.
  std::vector<int> Rows;                ///< Per add: its K rows.
  std::vector<int> Slots;               ///< Per add and pair: its value.
  // The cursors of the current call.
  size_t Add = 0, Row = 0, Slot = 0;
  /// True while the current call records (the pattern is being rebuilt).
  bool Recording = true;
  // While recording: per pair of the adds, in order, its row and column;
  // and the values of the adds before the recording started (Extra).
  std::vector<int> TRows, TColumns, ExtraRows, ExtraColumns;
};

} // namespace detail

/// A square sparse matrix in CSR (rows sorted by column, int offsets):
/// Rows + 1 row offsets, one column and one value per nonzero. The rows
/// are the selected array's elements 0 .. Rows - 1 (up to the last one
/// the loops read).
template <class T> struct SparseMatrix {
  int Rows = 0;
  std::vector<int> RowOffsets{0};
  std::vector<int> Columns;
  std::vector<T> Values;
  /// How many times the pattern was built (1 after the first call; more
  /// when the rows the loops read changed).
  int Rebuilds = 0;

  int nonzeros() const { return static_cast<int>(Columns.size()); }
  /// Entry (I, J), 0 when it is not in the pattern (a search: for tests).
  T at(int I, int J) const {
    auto B = Columns.begin() + RowOffsets[I],
         E = Columns.begin() + RowOffsets[I + 1];
    auto It = std::lower_bound(B, E, J);
    return It != E && *It == J ? Values[It - Columns.begin()] : T(0);
  }

  detail::SparseLoopRecord Record;
  /// While recording: per pair, its value; per Extra pair, its value.
  std::vector<T> TValues, ExtraValues;
};

namespace detail {

/// The (row, column) pairs of an add with \p K rows and \p Mask, in mask
/// order, appended to the recording with the values of \p Hl (or 0).
template <class T>
void recordPairs(SparseMatrix<T> &H, int K, unsigned long long Mask,
                 const int *Rows, const T *Hl) {
  for (int E = 0; E < K * K; ++E)
    if (Mask >> E & 1) {
      H.Record.TRows.push_back(Rows[E / K]);
      H.Record.TColumns.push_back(Rows[E % K]);
      H.TValues.push_back(Hl ? Hl[E] : T(0));
    }
}

/// Switches the current call to recording: the adds so far (which matched
/// the record) are kept as pairs without values, and their values, in the
/// matrix, are moved over when the new pattern is built.
template <class T> void startRecording(SparseMatrix<T> &H) {
  SparseLoopRecord &R = H.Record;
  R.Ks.resize(R.Add);
  R.Masks.resize(R.Add);
  R.Rows.resize(R.Row);
  R.Slots.clear();
  R.TRows.clear();
  R.TColumns.clear();
  H.TValues.clear();
  for (size_t A = 0, Row = 0; A < R.Add; Row += R.Ks[A], ++A)
    recordPairs<T>(H, R.Ks[A], R.Masks[A], &R.Rows[Row], nullptr);
  // The values so far, as pairs that no add owns.
  R.ExtraRows.clear();
  R.ExtraColumns.clear();
  H.ExtraValues.clear();
  for (int Row = 0; Row < H.Rows; ++Row)
    for (int E = H.RowOffsets[Row]; E < H.RowOffsets[Row + 1]; ++E)
      if (H.Values[E] != T(0)) {
        R.ExtraRows.push_back(Row);
        R.ExtraColumns.push_back(H.Columns[E]);
        H.ExtraValues.push_back(H.Values[E]);
      }
  R.Recording = true;
}

/// Sorts the pairs \p P[0..N) by column, then by their order (so the
/// values are summed in a fixed order): insertion for the few pairs of a
/// usual row, std::sort for long ones.
template <class ColumnFn>
void sortByColumn(int *P, int N, const ColumnFn &ColumnOf) {
  if (N > 32) {
    std::sort(P, P + N, [&](int A, int B) {
      return ColumnOf(A) != ColumnOf(B) ? ColumnOf(A) < ColumnOf(B) : A < B;
    });
    return;
  }
  for (int I = 1; I < N; ++I) {
    int V = P[I], C = ColumnOf(V), J = I;
    for (; J > 0 && ColumnOf(P[J - 1]) > C; --J)
      P[J] = P[J - 1];
    P[J] = V;
  }
}

/// The pattern of the recorded pairs (a counting sort by row, then each
/// row's columns sorted), the slot of every add's pair, and the values.
template <class T> void buildPattern(SparseMatrix<T> &H) {
  SparseLoopRecord &R = H.Record;
  const size_t Owned = R.TRows.size(), N = Owned + R.ExtraRows.size();
  auto RowOf = [&](size_t P) {
    return P < Owned ? R.TRows[P] : R.ExtraRows[P - Owned];
  };
  auto ColumnOf = [&](size_t P) {
    return P < Owned ? R.TColumns[P] : R.ExtraColumns[P - Owned];
  };
  long long Rows = 0;
  for (int Row : R.Rows) {
    if (Row < 0) {
      std::fprintf(stderr, "meshad::SparseMatrix: the loop reads element %d "
                           "of the selected array\n", Row);
      std::abort();
    }
    Rows = std::max<long long>(Rows, Row + 1LL);
  }
  std::vector<int> Start(Rows + 1, 0), Order(N);
  for (size_t P = 0; P < N; ++P)
    ++Start[RowOf(P) + 1];
  for (long long Row = 0; Row < Rows; ++Row)
    Start[Row + 1] += Start[Row];
  std::vector<int> Next(Start.begin(), Start.end() - 1);
  for (size_t P = 0; P < N; ++P)
    Order[Next[RowOf(P)]++] = static_cast<int>(P);
  R.Slots.assign(Owned, -1);
  H.Rows = static_cast<int>(Rows);
  H.RowOffsets.assign(1, 0);
  H.Columns.clear();
  H.Values.clear();
  for (long long Row = 0; Row < Rows; ++Row) {
    auto B = Order.begin() + Start[Row], E = Order.begin() + Start[Row + 1];
    sortByColumn(&*B, static_cast<int>(E - B), ColumnOf);
    for (auto It = B; It != E; ++It) {
      size_t P = static_cast<size_t>(*It);
      if (It == B || ColumnOf(P) != H.Columns.back()) {
        H.Columns.push_back(ColumnOf(P));
        H.Values.push_back(T(0));
      }
      if (P < Owned)
        R.Slots[P] = static_cast<int>(H.Columns.size() - 1);
      H.Values.back() += P < Owned ? H.TValues[P] : H.ExtraValues[P - Owned];
    }
    H.RowOffsets.push_back(static_cast<int>(H.Columns.size()));
  }
  R.TRows = {};
  R.TColumns = {};
  R.ExtraRows = {};
  R.ExtraColumns = {};
  H.TValues = {};
  H.ExtraValues = {};
  R.Recording = false;
  ++H.Rebuilds;
}

} // namespace detail

/// Called by generated code before the loops of a sparse loop Hessian:
/// zeroes \p H's values and starts comparing the adds with the record (or
/// recording, on the first call).
template <class T> void sparseLoopBegin(SparseMatrix<T> *H) {
  detail::SparseLoopRecord &R = H->Record;
  R.Add = R.Row = R.Slot = 0;
  H->Values.assign(H->Columns.size(), T(0));
  if (H->Rebuilds == 0)
    detail::startRecording(*H);
}

/// Adds the K x K local Hessian \p Hl (its entries of Mask) of an
/// iteration whose entries are the rows \p Rows into \p H: through the
/// recorded slots when the rows are those of the record, else recording.
template <int K, unsigned long long Mask, class T>
void sparseLoopAdd(SparseMatrix<T> *H, const int *Rows, const T *Hl) {
  detail::SparseLoopRecord &R = H->Record;
  if (!R.Recording) {
    bool Same = R.Add < R.Ks.size() && R.Ks[R.Add] == K && R.Masks[R.Add] == Mask;
    const int *Recorded = R.Rows.data() + R.Row;
    for (int J = 0; Same && J < K; ++J)
      Same = Recorded[J] == Rows[J];
    if (!Same)
      detail::startRecording(*H);
  }
  if (R.Recording) {
    R.Ks.push_back(K);
    R.Masks.push_back(Mask);
    R.Rows.insert(R.Rows.end(), Rows, Rows + K);
    detail::recordPairs<T>(*H, K, Mask, Rows, Hl);
  } else {
    const int *Slot = &R.Slots[R.Slot];
    for (int E = 0, Pair = 0; E < K * K; ++E)
      if (Mask >> E & 1)
        H->Values[Slot[Pair++]] += Hl[E];
    R.Slot += __builtin_popcountll(Mask);
  }
  ++R.Add;
  R.Row += K;
}

/// Called by generated code after the loops: builds the pattern when the
/// call recorded, or when it made fewer adds than the record.
template <class T> void sparseLoopEnd(SparseMatrix<T> *H) {
  detail::SparseLoopRecord &R = H->Record;
  if (!R.Recording && R.Add != R.Ks.size())
    detail::startRecording(*H);
  if (R.Recording)
    detail::buildPattern(*H);
}

} // namespace meshad

#endif // MESHAD_CODEGEN_SPARSELOOP_H
