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
/// More than 8 entries: the mask is given in 64-bit words,
/// sparseLoopAdd<K, Mask_0, Mask_1, ...> (bit e of word e / 64).
///
/// Several selected arrays (meshad::hessian(f, "x, v", meshad::Sparse)):
/// sparseLoopBegin(H, A), and the adds name each entry's array
/// (sparseLoopAdd<K, Mask...>(H, rows, arrays, hl)). The matrix is over
/// the arrays' elements concatenated: array a's rows are
/// [ArrayOffsets[a], ArrayOffsets[a + 1]), each array up to the last
/// element the loops read; block (a, b) of the Hessian is the rows of a
/// and the columns of b.
///
/// An entry that an iteration does not read (a load under `if (i + 1 <
/// n)` whose condition is false) has the row SkipRow: its pairs are
/// neither in the pattern nor added.
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
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

namespace meshad {

/// The row of an entry that an iteration does not read (its load is under
/// a condition that is false): its pairs are left out.
constexpr int SkipRow = INT_MIN;

namespace detail {

/// The number of 64-bit words of a mask of K*K bits.
constexpr int maskWords(int K) { return (K * K + 63) / 64; }

/// Bit \p E of the mask \p Words.
inline bool maskBit(const unsigned long long *Words, int E) {
  return Words[E / 64] >> (E % 64) & 1;
}

/// The number of set bits of the mask \p Words of K*K bits.
inline int maskCount(const unsigned long long *Words, int K) {
  int N = 0;
  for (int W = 0; W < maskWords(K); ++W)
    N += __builtin_popcountll(Words[W]);
  return N;
}

/// The most entries of an affine loop (its mask has K*K bits).
constexpr int MaxAffineEntries = 8;

/// A run of the adds of one call: general adds (each add's K, Mask and
/// rows recorded) or one affine loop (entry j of iteration i is row
/// Stride[j] * i + Offset[j], for i in [Lo, Hi): nothing recorded per
/// iteration).
struct SparseLoopSegment {
  bool Affine = false;
  /// General: the adds [AddBegin, AddEnd), their rows from RowBegin, their
  /// masks' words from WordBegin.
  size_t AddBegin = 0, AddEnd = 0, RowBegin = 0, WordBegin = 0;
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
  /// Per general add: its pairs, maskWords(K) words.
  std::vector<unsigned long long> Masks;
  /// Per general add: its K rows (A * element + array with A arrays).
  std::vector<int> Rows;
  std::vector<int> Slots; ///< Per pair, in order: its value (-1: skipped).
  // The cursors of the current call.
  size_t Seg = 0, Add = 0, Row = 0, Word = 0, Slot = 0;
  /// True while the current call records (the pattern is being rebuilt).
  bool Recording = true;
  /// While recording: the pairs before FirstValued were added before the
  /// recording started (their values are the Extra pairs, taken from the
  /// matrix), the later ones have their values in TValues. The Extra rows
  /// and columns are encoded like the recorded rows.
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
  /// The selected arrays, and the first row of each (Arrays + 1 offsets):
  /// the rows of array a are [ArrayOffsets[a], ArrayOffsets[a + 1]).
  int Arrays = 1;
  std::vector<int> ArrayOffsets{0, 0};

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

/// Calls \p Fn(row, column) for every pair of the record, in order (rows
/// encoded, SkipRow for an entry not read).
template <class Fn> void forEachPair(const SparseLoopRecord &R, Fn &&F) {
  for (const SparseLoopSegment &S : R.Segments) {
    if (!S.Affine) {
      for (size_t A = S.AddBegin, Row = S.RowBegin, Word = S.WordBegin;
           A < S.AddEnd; Row += R.Ks[A], Word += maskWords(R.Ks[A]), ++A) {
        const int K = R.Ks[A];
        const int *Rows = &R.Rows[Row];
        for (int E = 0; E < K * K; ++E)
          if (maskBit(&R.Masks[Word], E))
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

/// The encoded row (A * element + array) of the matrix row \p Row.
template <class T> int encodedRow(const SparseMatrix<T> &H, int Row) {
  if (H.Arrays == 1)
    return Row;
  int A = static_cast<int>(std::upper_bound(H.ArrayOffsets.begin(),
                                            H.ArrayOffsets.end(), Row) -
                           H.ArrayOffsets.begin()) -
          1;
  return H.Arrays * (Row - H.ArrayOffsets[A]) + A;
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
  R.Masks.resize(R.Word);
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
        R.ExtraRows.push_back(encodedRow(H, Row));
        R.ExtraColumns.push_back(encodedRow(H, H.Columns[E]));
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

/// The pairs of an affine segment: entry j of pair q in Js[q], the column
/// offset c_l - c_j in D[q]; returns their number.
inline int affinePairs(const SparseLoopSegment &S, int *Js, long long *D) {
  int P = 0;
  for (int E = 0; E < S.K * S.K; ++E)
    if (S.Mask >> E & 1) {
      Js[P] = E / S.K;
      D[P++] = S.Offset[E % S.K] - S.Offset[E / S.K];
    }
  return P;
}

/// The rows of an affine loop of stride \p Step (its first rows checked).
inline long long affineRows(const SparseLoopSegment &S, long long Step,
                            const int *Js, const long long *D, int P) {
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
  return Rows;
}

/// Clears \p H's pattern for \p Rows rows and about \p Nonzeros entries.
template <class T>
void resetPattern(SparseMatrix<T> &H, long long Rows, long long Nonzeros) {
  H.Rows = static_cast<int>(Rows);
  H.RowOffsets.assign(1, 0);
  H.RowOffsets.reserve(Rows + 1);
  H.Columns.clear();
  H.Values.clear();
  H.Columns.reserve(Nonzeros);
  H.Values.reserve(Nonzeros);
}

/// The pattern of a record that is one affine loop of one stride S > 0
/// (one array, and no values from before a rebuild), built row by row
/// from the forms (the affine construction of session 5): in row r, pair
/// q (entries j, l) of iteration (r - c_j) / S, when that is an
/// iteration, names column r + c_l - c_j. No pairs stored, no sort. False
/// when the record is not such a loop.
template <class T> bool buildAffinePattern(SparseMatrix<T> &H) {
  SparseLoopRecord &R = H.Record;
  if (R.Segments.size() != 1 || !R.Segments[0].Affine || R.FirstValued ||
      !R.ExtraRows.empty() || H.Arrays != 1)
    return false;
  const SparseLoopSegment &S = R.Segments[0];
  const long long Step = S.Stride[0];
  for (int J = 0; J < S.K; ++J)
    if (S.Stride[J] != Step || Step <= 0)
      return false;
  int Js[64];
  long long D[64], Offsets[64];
  const int P = affinePairs(S, Js, D);
  std::copy(D, D + P, Offsets);
  std::sort(Offsets, Offsets + P);
  const int NumOffsets =
      static_cast<int>(std::unique(Offsets, Offsets + P) - Offsets);
  const long long Rows = affineRows(S, Step, Js, D, P);
  const long long Iterations = S.Hi > S.Lo ? S.Hi - S.Lo : 0;
  R.Slots.assign(static_cast<size_t>(Iterations * P), -1);
  resetPattern(H, Rows, Iterations * P);
  for (long long Row = 0; Row < Rows; ++Row) {
    for (int O = 0; O < NumOffsets; ++O) {
      bool Present = false;
      for (int Q = 0; Q < P; ++Q) {
        long long Shifted = Row - S.Offset[Js[Q]];
        long long I = Step == 1 ? Shifted
                      : Shifted % Step ? S.Lo - 1
                                       : Shifted / Step;
        if (D[Q] != Offsets[O] || I < S.Lo || I >= S.Hi)
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
  H.ArrayOffsets = {0, H.Rows};
  H.TValues = {};
  R.Recording = false;
  ++H.Rebuilds;
  return true;
}

/// The rows of each array (up to the last element the record names,
/// Extra pairs included) into \p H.ArrayOffsets; the matrix's rows.
template <class T> long long arrayRows(SparseMatrix<T> &H) {
  const SparseLoopRecord &R = H.Record;
  const int A = H.Arrays;
  std::vector<long long> Extent(A, 0);
  auto See = [&](long long Row) {
    if (Row < 0)
      badRow(Row / A - (Row % A != 0));
    Extent[Row % A] = std::max(Extent[Row % A], Row / A + 1);
  };
  forEachPair(R, [&](long long Row, long long Column) {
    if (Row != SkipRow && Column != SkipRow) {
      See(Row);
      See(Column);
    }
  });
  for (size_t E = 0; E < R.ExtraRows.size(); ++E) {
    See(R.ExtraRows[E]);
    See(R.ExtraColumns[E]);
  }
  long long Rows = 0;
  H.ArrayOffsets.assign(1, 0);
  for (int I = 0; I < A; ++I) {
    Rows += Extent[I];
    if (Rows >= (1LL << 31) - 1)
      badRow(Rows);
    H.ArrayOffsets.push_back(static_cast<int>(Rows));
  }
  return Rows;
}

/// Fills \p H's rows from the (column, pair) entries of each row (rows
/// [Start[r], Start[r + 1]) of \p Entries): columns sorted and merged, the
/// slot of every recorded pair, the values summed in pair order.
template <class T>
void fillRows(SparseMatrix<T> &H, long long Rows, const std::vector<int> &Start,
              std::vector<std::pair<int, int>> &Entries, size_t Owned) {
  SparseLoopRecord &R = H.Record;
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
}

/// The pattern of the recorded pairs (a counting sort by row, then each
/// row's columns sorted), the slot of every pair, and the values.
template <class T> void buildPattern(SparseMatrix<T> &H) {
  if (buildAffinePattern(H))
    return;
  SparseLoopRecord &R = H.Record;
  const long long Rows = arrayRows(H);
  const int A = H.Arrays;
  const std::vector<int> &Off = H.ArrayOffsets;
  auto Map = [&](long long Row) {
    return A == 1 ? Row : Off[Row % A] + Row / A;
  };
  size_t Owned = 0, Kept = 0;
  std::vector<int> Start(Rows + 1, 0);
  forEachPair(R, [&](long long Row, long long Column) {
    ++Owned;
    if (Row != SkipRow && Column != SkipRow) {
      ++Start[Map(Row) + 1];
      ++Kept;
    }
  });
  for (int Row : R.ExtraRows)
    ++Start[Map(Row) + 1];
  for (long long Row = 0; Row < Rows; ++Row)
    Start[Row + 1] += Start[Row];
  // Per row, its (column, pair) entries, pairs in increasing order.
  std::vector<std::pair<int, int>> Entries(Kept + R.ExtraRows.size());
  std::vector<int> Next(Start.begin(), Start.end() - 1);
  int Pair = 0;
  forEachPair(R, [&](long long Row, long long Column) {
    if (Row != SkipRow && Column != SkipRow)
      Entries[Next[Map(Row)]++] = {static_cast<int>(Map(Column)), Pair};
    ++Pair;
  });
  for (size_t E = 0; E < R.ExtraRows.size(); ++E)
    Entries[Next[Map(R.ExtraRows[E])]++] = {
        static_cast<int>(Map(R.ExtraColumns[E])), static_cast<int>(Owned + E)};
  R.Slots.assign(Owned, -1);
  resetPattern(H, Rows, static_cast<long long>(Entries.size()));
  fillRows(H, Rows, Start, Entries, Owned);
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

/// Adds the entries of \p Mask of \p Hl through the slots from the cursor
/// (a pair of an entry not read has no slot).
template <int K, unsigned long long... Mask, class T>
void addThroughSlots(SparseMatrix<T> &H, const T *Hl) {
  constexpr unsigned long long Words[] = {Mask...};
  SparseLoopRecord &R = H.Record;
  const int *Slot = &R.Slots[R.Slot];
  for (int E = 0, Pair = 0; E < K * K; ++E)
    if (maskBit(Words, E)) {
      if (Slot[Pair] >= 0)
        H.Values[Slot[Pair]] += Hl[E];
      ++Pair;
    }
  R.Slot += maskCount(Words, K);
}

/// While recording: the values of \p Hl's pairs.
template <int K, unsigned long long... Mask, class T>
void recordValues(SparseMatrix<T> &H, const T *Hl) {
  constexpr unsigned long long Words[] = {Mask...};
  for (int E = 0; E < K * K; ++E)
    if (maskBit(Words, E))
      H.TValues.push_back(Hl[E]);
  H.Record.Slot += maskCount(Words, K);
}

/// True when the next add of the record is a general add of \p K entries,
/// the mask \p Words and the rows \p Rows.
inline bool nextAddIs(SparseLoopRecord &R, int K,
                      const unsigned long long *Words, const int *Rows) {
  SparseLoopSegment *S = currentSegment(R);
  if (!S || S->Affine || R.Add >= S->AddEnd || R.Ks[R.Add] != K)
    return false;
  for (int W = 0; W < maskWords(K); ++W)
    if (R.Masks[R.Word + W] != Words[W])
      return false;
  const int *Recorded = R.Rows.data() + R.Row;
  for (int J = 0; J < K; ++J)
    if (Recorded[J] != Rows[J])
      return false;
  return true;
}

/// A general add of encoded rows (sparseLoopAdd).
template <int K, unsigned long long... Mask, class T>
void addRows(SparseMatrix<T> &H, const int *Rows, const T *Hl) {
  static_assert(sizeof...(Mask) == maskWords(K), "K*K bits of mask");
  constexpr unsigned long long Words[] = {Mask...};
  SparseLoopRecord &R = H.Record;
  if (!R.Recording && !nextAddIs(R, K, Words, Rows))
    startRecording(H);
  if (R.Recording) {
    if (R.Segments.empty() || R.Segments.back().Affine) {
      SparseLoopSegment S;
      S.AddBegin = S.AddEnd = R.Ks.size();
      S.RowBegin = R.Rows.size();
      S.WordBegin = R.Masks.size();
      R.Segments.push_back(S);
      R.Seg = R.Segments.size() - 1;
    }
    R.Ks.push_back(K);
    R.Masks.insert(R.Masks.end(), Words, Words + maskWords(K));
    R.Rows.insert(R.Rows.end(), Rows, Rows + K);
    R.Segments.back().AddEnd = R.Ks.size();
    recordValues<K, Mask...>(H, Hl);
  } else {
    addThroughSlots<K, Mask...>(H, Hl);
  }
  ++R.Add;
  R.Row += K;
  R.Word += maskWords(K);
}

} // namespace detail

/// Called by generated code before the loops of a sparse loop Hessian over
/// \p Arrays selected arrays: zeroes \p H's values and starts comparing
/// the adds with the record (or recording, on the first call).
template <class T> void sparseLoopBegin(SparseMatrix<T> *H, int Arrays = 1) {
  detail::SparseLoopRecord &R = H->Record;
  R.Seg = R.Add = R.Row = R.Word = R.Slot = 0;
  H->Values.assign(H->Columns.size(), T(0));
  if (H->Rebuilds == 0 || H->Arrays != Arrays) {
    detail::startRecording(*H);
    H->Arrays = Arrays;
  }
}

/// Adds the K x K local Hessian \p Hl (its entries of Mask, given in
/// 64-bit words) of an iteration whose entries are the rows \p Rows (one
/// selected array; SkipRow for an entry not read) into \p H: through the
/// recorded slots when the rows are those of the record, else recording.
template <int K, unsigned long long... Mask, class T>
void sparseLoopAdd(SparseMatrix<T> *H, const int *Rows, const T *Hl) {
  detail::addRows<K, Mask...>(*H, Rows, Hl);
}

/// sparseLoopAdd over several selected arrays: entry j is element
/// \p Rows[j] of array \p Arrays[j].
template <int K, unsigned long long... Mask, class T>
void sparseLoopAdd(SparseMatrix<T> *H, const int *Rows, const int *Arrays,
                   const T *Hl) {
  int Encoded[K];
  for (int J = 0; J < K; ++J)
    Encoded[J] = Rows[J] == SkipRow ? SkipRow : H->Arrays * Rows[J] + Arrays[J];
  detail::addRows<K, Mask...>(*H, Encoded, Hl);
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
