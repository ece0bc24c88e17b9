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
/// A loop whose entries are all S_j*i + c_j of its counter is announced
/// once (sparseLoopAffine<K, Mask, S_0, c_0, ...>(H, lo, hi)) and adds with
/// sparseLoopAffineAdd<K, Mask>(H, hl): the record keeps its bounds and
/// forms, not K rows per iteration, later calls compare the bounds once,
/// and a record that is one such loop of one stride is built row by row
/// from the forms, without storing or sorting its pairs.
///
/// \code
///   // double chain(const double *x, int n): a sum over i of (x[i-1]-x[i])^2
///   auto h = meshad::hessian(chain, "x", meshad::Sparse);
///   meshad::SparseMatrix<double> H;
///   h.execute(x, n, &H);            // H.Rows == n, 3n - 2 nonzeros
///   // generated: meshad::sparseLoopAffine<2, 15ull, 1, -1, 1, 0>(H, 1, n);
///   //   then per i: meshad::sparseLoopAffineAdd<2, 15ull>(H, hl);
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
#include <utility>
#include <vector>

namespace meshad {

namespace detail {

/// The most entries of an affine loop (its mask has K*K bits).
constexpr int MaxAffineEntries = 8;

/// A run of the adds of one call: general adds (each add's K, Mask and
/// rows recorded) or one affine loop (entry j of iteration i is row
/// Stride[j] * i + Offset[j], for i in [Lo, Hi): nothing recorded per
/// iteration).
struct SparseLoopSegment {
  bool Affine = false;
  /// General: the adds [AddBegin, AddEnd), their rows from RowBegin.
  size_t AddBegin = 0, AddEnd = 0, RowBegin = 0;
  /// Affine: the loop's entries, pairs and iterations.
  int K = 0;
  unsigned long long Mask = 0;
  long long Lo = 0, Hi = 0;
  long long Stride[MaxAffineEntries] = {}, Offset[MaxAffineEntries] = {};

  bool sameLoop(int OK, unsigned long long OMask, const long long *SC,
                long long OLo, long long OHi) const {
    if (!Affine || K != OK || Mask != OMask || Lo != OLo || Hi != OHi)
      return false;
    for (int J = 0; J < K; ++J)
      if (Stride[J] != SC[2 * J] || Offset[J] != SC[2 * J + 1])
        return false;
    return true;
  }
};

/// What the adds of one call named, in order, and where their values went:
/// the pattern's source, compared with the next call's adds.
struct SparseLoopRecord {
  std::vector<SparseLoopSegment> Segments;
  std::vector<int> Ks;                  ///< Per general add: its K.
  std::vector<unsigned long long> Masks; ///< Per general add: its pairs.
  std::vector<int> Rows;                ///< Per general add: its K rows.
  std::vector<int> Slots;               ///< Per pair, in order: its value.
  // The cursors of the current call.
  size_t Seg = 0, Add = 0, Row = 0, Slot = 0;
  /// True while the current call records (the pattern is being rebuilt).
  bool Recording = true;
  /// While recording: the pairs before FirstValued were added before the
  /// recording started (their values are the Extra pairs, taken from the
  /// matrix), the later ones have their values in TValues.
  size_t FirstValued = 0;
  std::vector<int> ExtraRows, ExtraColumns;
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
  /// While recording: the values of the pairs from FirstValued on; of the
  /// Extra pairs.
  std::vector<T> TValues, ExtraValues;
};

namespace detail {

/// Calls \p Fn(row, column) for every pair of the record, in order.
template <class Fn> void forEachPair(const SparseLoopRecord &R, Fn &&F) {
  for (const SparseLoopSegment &S : R.Segments) {
    if (!S.Affine) {
      for (size_t A = S.AddBegin, Row = S.RowBegin; A < S.AddEnd;
           Row += R.Ks[A], ++A) {
        const int K = R.Ks[A];
        const int *Rows = &R.Rows[Row];
        for (int E = 0; E < K * K; ++E)
          if (R.Masks[A] >> E & 1)
            F(static_cast<long long>(Rows[E / K]),
              static_cast<long long>(Rows[E % K]));
      }
      continue;
    }
    int Js[64], Ls[64], P = 0;
    for (int E = 0; E < S.K * S.K; ++E)
      if (S.Mask >> E & 1) {
        Js[P] = E / S.K;
        Ls[P++] = E % S.K;
      }
    for (long long I = S.Lo; I < S.Hi; ++I)
      for (int Q = 0; Q < P; ++Q)
        F(S.Stride[Js[Q]] * I + S.Offset[Js[Q]],
          S.Stride[Ls[Q]] * I + S.Offset[Ls[Q]]);
  }
}

/// Switches the current call to recording from its current add on: the
/// record is cut there (the adds before stay, as pairs without values),
/// and the values so far, in the matrix, are kept as Extra pairs, moved
/// over when the new pattern is built.
template <class T> void startRecording(SparseMatrix<T> &H) {
  SparseLoopRecord &R = H.Record;
  size_t Keep = R.Seg;
  if (R.Seg < R.Segments.size() && !R.Segments[R.Seg].Affine &&
      R.Add > R.Segments[R.Seg].AddBegin) {
    R.Segments[R.Seg].AddEnd = R.Add;
    Keep = R.Seg + 1;
  }
  R.Segments.resize(Keep);
  R.Seg = Keep;
  R.Ks.resize(R.Add);
  R.Masks.resize(R.Add);
  R.Rows.resize(R.Row);
  R.Slots.clear();
  R.FirstValued = R.Slot;
  H.TValues.clear();
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

/// Sorts the entries \p P[0..N) (column, pair) of one row by column, then
/// by pair (so the values are summed in a fixed order): insertion for the
/// few entries of a usual row, std::sort for long ones.
inline void sortByColumn(std::pair<int, int> *P, int N) {
  if (N > 32) {
    std::sort(P, P + N);
    return;
  }
  for (int I = 1; I < N; ++I) {
    std::pair<int, int> V = P[I];
    int J = I;
    for (; J > 0 && P[J - 1].first > V.first; --J)
      P[J] = P[J - 1];
    P[J] = V;
  }
}

[[noreturn]] inline void badRow(long long Row) {
  std::fprintf(stderr, "meshad::SparseMatrix: the loop reads element %lld "
                       "of the selected array\n", Row);
  std::abort();
}

/// The pattern of a record that is one affine loop of one stride S > 0
/// (and no values from before a rebuild), built row by row from the forms
/// (the affine construction of session 5): in row r, pair q (entries j, l)
/// of iteration (r - c_j) / S, when that is an iteration, names column
/// r + c_l - c_j. No pairs stored, no sort. False when the record is not
/// such a loop.
template <class T> bool buildAffinePattern(SparseMatrix<T> &H) {
  SparseLoopRecord &R = H.Record;
  if (R.Segments.size() != 1 || !R.Segments[0].Affine || R.FirstValued ||
      !R.ExtraRows.empty())
    return false;
  const SparseLoopSegment &S = R.Segments[0];
  const long long Step = S.Stride[0];
  for (int J = 0; J < S.K; ++J)
    if (S.Stride[J] != Step || Step <= 0)
      return false;
  int Js[64], P = 0;
  long long D[64];
  for (int E = 0; E < S.K * S.K; ++E)
    if (S.Mask >> E & 1) {
      Js[P] = E / S.K;
      D[P++] = S.Offset[E % S.K] - S.Offset[E / S.K];
    }
  long long Offsets[64];
  std::copy(D, D + P, Offsets);
  std::sort(Offsets, Offsets + P);
  const int NumOffsets = static_cast<int>(std::unique(Offsets, Offsets + P) - Offsets);
  long long Rows = 0;
  if (S.Hi > S.Lo)
    for (int Q = 0; Q < P; ++Q) {
      long long First = Step * S.Lo + S.Offset[Js[Q]];
      if (First < 0 || First + D[Q] < 0)
        badRow(std::min(First, First + D[Q]));
      Rows = std::max(Rows, Step * (S.Hi - 1) + S.Offset[Js[Q]] + 1);
    }
  if (Rows >= (1LL << 31) - 1)
    badRow(Rows);
  const long long Iterations = S.Hi > S.Lo ? S.Hi - S.Lo : 0;
  R.Slots.assign(static_cast<size_t>(Iterations * P), -1);
  H.Rows = static_cast<int>(Rows);
  H.RowOffsets.assign(1, 0);
  H.RowOffsets.reserve(Rows + 1);
  H.Columns.clear();
  H.Values.clear();
  H.Columns.reserve(Iterations * P);
  H.Values.reserve(Iterations * P);
  for (long long Row = 0; Row < Rows; ++Row) {
    for (int O = 0; O < NumOffsets; ++O) {
      bool Present = false;
      for (int Q = 0; Q < P; ++Q) {
        if (D[Q] != Offsets[O])
          continue;
        long long Shifted = Row - S.Offset[Js[Q]];
        long long I = Step == 1 ? Shifted
                      : Shifted % Step ? S.Lo - 1
                                       : Shifted / Step;
        if (I < S.Lo || I >= S.Hi)
          continue;
        size_t Pair = static_cast<size_t>((I - S.Lo) * P + Q);
        if (!Present) {
          H.Columns.push_back(static_cast<int>(Row + Offsets[O]));
          H.Values.push_back(T(0));
          Present = true;
        }
        R.Slots[Pair] = static_cast<int>(H.Columns.size() - 1);
        H.Values.back() += H.TValues[Pair];
      }
    }
    H.RowOffsets.push_back(static_cast<int>(H.Columns.size()));
  }
  H.TValues = {};
  R.Recording = false;
  ++H.Rebuilds;
  return true;
}

/// The pattern of the recorded pairs (a counting sort by row, then each
/// row's columns sorted), the slot of every pair, and the values.
template <class T> void buildPattern(SparseMatrix<T> &H) {
  if (buildAffinePattern(H))
    return;
  SparseLoopRecord &R = H.Record;
  size_t Owned = 0;
  long long Rows = 0;
  forEachPair(R, [&](long long Row, long long Column) {
    if (Row < 0 || Column < 0 || Row >= (1LL << 31) - 1)
      badRow(Row < 0 ? Row : Column);
    Rows = std::max(Rows, Row + 1);
    ++Owned;
  });
  for (int Row : R.ExtraRows)
    Rows = std::max<long long>(Rows, Row + 1LL);
  const size_t N = Owned + R.ExtraRows.size();
  std::vector<int> Start(Rows + 1, 0);
  forEachPair(R, [&](long long Row, long long) { ++Start[Row + 1]; });
  for (int Row : R.ExtraRows)
    ++Start[Row + 1];
  for (long long Row = 0; Row < Rows; ++Row)
    Start[Row + 1] += Start[Row];
  // Per row, its (column, pair) entries, pairs in increasing order.
  std::vector<std::pair<int, int>> Entries(N);
  std::vector<int> Next(Start.begin(), Start.end() - 1);
  int Pair = 0;
  forEachPair(R, [&](long long Row, long long Column) {
    Entries[Next[Row]++] = {static_cast<int>(Column), Pair++};
  });
  for (size_t E = 0; E < R.ExtraRows.size(); ++E)
    Entries[Next[R.ExtraRows[E]]++] = {R.ExtraColumns[E],
                                       static_cast<int>(Owned + E)};
  R.Slots.assign(Owned, -1);
  H.Rows = static_cast<int>(Rows);
  H.RowOffsets.assign(1, 0);
  H.RowOffsets.reserve(Rows + 1);
  H.Columns.clear();
  H.Values.clear();
  H.Columns.reserve(N);
  H.Values.reserve(N);
  for (long long Row = 0; Row < Rows; ++Row) {
    std::pair<int, int> *B = Entries.data() + Start[Row],
                        *E = Entries.data() + Start[Row + 1];
    sortByColumn(B, static_cast<int>(E - B));
    for (std::pair<int, int> *It = B; It != E; ++It) {
      size_t P = static_cast<size_t>(It->second);
      if (It == B || It->first != H.Columns.back()) {
        H.Columns.push_back(It->first);
        H.Values.push_back(T(0));
      }
      if (P < Owned) {
        R.Slots[P] = static_cast<int>(H.Columns.size() - 1);
        if (P >= R.FirstValued)
          H.Values.back() += H.TValues[P - R.FirstValued];
      } else {
        H.Values.back() += H.ExtraValues[P - Owned];
      }
    }
    H.RowOffsets.push_back(static_cast<int>(H.Columns.size()));
  }
  R.ExtraRows = {};
  R.ExtraColumns = {};
  H.TValues = {};
  H.ExtraValues = {};
  R.Recording = false;
  ++H.Rebuilds;
}

/// The current segment, past a general one whose adds are all done; null
/// at the end of the record.
inline SparseLoopSegment *currentSegment(SparseLoopRecord &R) {
  if (R.Seg < R.Segments.size() && !R.Segments[R.Seg].Affine &&
      R.Add == R.Segments[R.Seg].AddEnd)
    ++R.Seg;
  return R.Seg < R.Segments.size() ? &R.Segments[R.Seg] : nullptr;
}

/// Adds the entries of \p Mask of \p Hl through the slots from the cursor.
template <int K, unsigned long long Mask, class T>
void addThroughSlots(SparseMatrix<T> &H, const T *Hl) {
  SparseLoopRecord &R = H.Record;
  const int *Slot = &R.Slots[R.Slot];
  for (int E = 0, Pair = 0; E < K * K; ++E)
    if (Mask >> E & 1)
      H.Values[Slot[Pair++]] += Hl[E];
  R.Slot += __builtin_popcountll(Mask);
}

/// While recording: the values of \p Hl's pairs.
template <int K, unsigned long long Mask, class T>
void recordValues(SparseMatrix<T> &H, const T *Hl) {
  for (int E = 0; E < K * K; ++E)
    if (Mask >> E & 1)
      H.TValues.push_back(Hl[E]);
  H.Record.Slot += __builtin_popcountll(Mask);
}

} // namespace detail

/// Called by generated code before the loops of a sparse loop Hessian:
/// zeroes \p H's values and starts comparing the adds with the record (or
/// recording, on the first call).
template <class T> void sparseLoopBegin(SparseMatrix<T> *H) {
  detail::SparseLoopRecord &R = H->Record;
  R.Seg = R.Add = R.Row = R.Slot = 0;
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
    detail::SparseLoopSegment *S = detail::currentSegment(R);
    bool Same = S && !S->Affine && R.Add < S->AddEnd && R.Ks[R.Add] == K &&
                R.Masks[R.Add] == Mask;
    const int *Recorded = Same ? R.Rows.data() + R.Row : nullptr;
    for (int J = 0; Same && J < K; ++J)
      Same = Recorded[J] == Rows[J];
    if (!Same)
      detail::startRecording(*H);
  }
  if (R.Recording) {
    if (R.Segments.empty() || R.Segments.back().Affine) {
      detail::SparseLoopSegment S;
      S.AddBegin = S.AddEnd = R.Ks.size();
      S.RowBegin = R.Rows.size();
      R.Segments.push_back(S);
      R.Seg = R.Segments.size() - 1;
    }
    R.Ks.push_back(K);
    R.Masks.push_back(Mask);
    R.Rows.insert(R.Rows.end(), Rows, Rows + K);
    R.Segments.back().AddEnd = R.Ks.size();
    detail::recordValues<K, Mask>(*H, Hl);
  } else {
    detail::addThroughSlots<K, Mask>(*H, Hl);
  }
  ++R.Add;
  R.Row += K;
}

/// Called by generated code before an affine loop whose iterations i in
/// [Lo, Hi) read the K entries Stride_j * i + Offset_j (the template
/// arguments SC: Stride_0, Offset_0, Stride_1, ...), each iteration then
/// adding its local Hessian with sparseLoopAffineAdd: the loop is one
/// entry of the record (no rows per iteration, no compare per iteration),
/// its pairs' rows computed when the pattern is built.
template <int K, unsigned long long Mask, long long... SC, class T>
void sparseLoopAffine(SparseMatrix<T> *H, long long Lo, long long Hi) {
  static_assert(sizeof...(SC) == 2 * K && K <= detail::MaxAffineEntries,
                "a stride and an offset per entry");
  const long long Forms[] = {SC...};
  detail::SparseLoopRecord &R = H->Record;
  if (!R.Recording) {
    detail::SparseLoopSegment *S = detail::currentSegment(R);
    if (S && S->sameLoop(K, Mask, Forms, Lo, Hi)) {
      ++R.Seg;
      return;
    }
    detail::startRecording(*H);
  }
  detail::SparseLoopSegment S;
  S.Affine = true;
  S.K = K;
  S.Mask = Mask;
  S.Lo = Lo;
  S.Hi = Hi;
  for (int J = 0; J < K; ++J) {
    S.Stride[J] = Forms[2 * J];
    S.Offset[J] = Forms[2 * J + 1];
  }
  R.Segments.push_back(S);
  R.Seg = R.Segments.size();
  H->TValues.reserve(H->TValues.size() +
                     (Hi > Lo ? Hi - Lo : 0) * __builtin_popcountll(Mask));
}

/// Adds the local Hessian \p Hl of the next iteration of the affine loop
/// that sparseLoopAffine announced.
template <int K, unsigned long long Mask, class T>
void sparseLoopAffineAdd(SparseMatrix<T> *H, const T *Hl) {
  if (H->Record.Recording)
    detail::recordValues<K, Mask>(*H, Hl);
  else
    detail::addThroughSlots<K, Mask>(*H, Hl);
}

/// Called by generated code after the loops: builds the pattern when the
/// call recorded, or when it made fewer adds than the record.
template <class T> void sparseLoopEnd(SparseMatrix<T> *H) {
  detail::SparseLoopRecord &R = H->Record;
  if (!R.Recording && detail::currentSegment(R))
    detail::startRecording(*H);
  if (R.Recording)
    detail::buildPattern(*H);
}

} // namespace meshad

#endif // MESHAD_CODEGEN_SPARSELOOP_H
