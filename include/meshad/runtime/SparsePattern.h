//===- meshad/runtime/SparsePattern.h - Sparse Hessian assembly -*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The global sparse Hessian of an element energy: its pattern (which vertex
/// pairs share an element) and the per-element slot map, (element, local
/// vertex a, local vertex b) -> the block of (v_a, v_b) in the matrix, so
/// that adding an element's dense local Hessian (Arity*S x Arity*S, the
/// layout of `meshad::hessian(energy, "x[0:k]")` over the element's
/// gathered coordinates) does no search at run time.
///
/// Two formats over one values array (NumBlocks * S * S values):
/// - block CSR with S x S blocks stored row-major (cuSPARSE BSR,
///   CUSPARSE_DIRECTION_ROW): block row v holds the blocks
///   BlockColumns[BlockRowOffsets[v] .. BlockRowOffsets[v + 1]);
/// - plain CSR of the S * NumVertices rows, columns increasing in each row
///   (cuSPARSE CSR): csrRowOffsets(), csrColumns().
/// Indices are int32, the arrays are plain device arrays.
///
/// Accumulation (`Accumulation`):
/// - Atomic: a block that one (element, a, b) alone touches (the
///   off-diagonal block of an edge that no other element has) gets plain
///   stores, the others atomicAdd. The values must be zeroed first (zero()).
/// - Deterministic: each element stores its local blocks in per-slot
///   values (no atomics), then one thread per block sums its slots in a
///   fixed order (element, then a, then b): bitwise reproducible.
///
/// Built once on the GPU (a sort of the (v_a, v_b) keys with Thrust, unique,
/// scan), or on the host under the CPU emulation; both give the same arrays.
/// Rebuild it when the connectivity changes. One matrix may serve several
/// index arrays of different arities (the terms of one energy: springs,
/// bending diamonds, vertices): its pattern is the union of theirs, list K's
/// slots follow those of the lists before it, and slots(Format, K) adds
/// list K's element Hessians (SparseHessian(std::vector<ElementList>, ...)).
///
/// \code
///   using namespace meshad::runtime;
///   SparseHessian<double> H(dTets, NumTets, 4, NumVertices, 3);
///   H.zero();
///   elementKernel<<<...>>>(..., H.slots(SparseFormat::Bsr), H.values());
///   // per element t: tet_hessian_0(xl, ..., Hl);
///   //                addElementHessian(Slots, t, Hl, Values);
///   // H.bsrRowOffsets(), H.bsrColumns(), H.values(): cusparseCreateBsr
///   // (H.slots(SparseFormat::Csr): H.csrRowOffsets(), H.csrColumns(),
///   // H.values() for cusparseCreateCsr)
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_RUNTIME_SPARSEPATTERN_H
#define MESHAD_RUNTIME_SPARSEPATTERN_H

#include "meshad/cpu/Portable.h"
#include "meshad/runtime/Mesh.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#if defined(__CUDACC__)
#include <cuda_runtime.h>
#include <thrust/binary_search.h>
#include <thrust/device_ptr.h>
#include <thrust/device_vector.h>
#include <thrust/extrema.h>
#include <thrust/functional.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/scan.h>
#include <thrust/scatter.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/transform.h>
#include <thrust/transform_reduce.h>
#include <thrust/unique.h>
#elif !defined(MESHAD_CPU_CUDA)
#error "meshad/runtime/SparsePattern.h needs CUDA or the CPU emulation"
#endif

namespace meshad {
namespace runtime {

/// How element Hessians are added into the global matrix.
enum class Accumulation { Atomic, Deterministic };

/// Which format assembly writes: block CSR or plain CSR positions.
enum class SparseFormat { Bsr, Csr };

/// The pattern and slot map in host memory; the reference the device build
/// is tested against. Slot = (element * Arity + a) * Arity + b.
struct HessianPatternArrays {
  std::vector<int> BlockRowOffsets; ///< NumVertices + 1
  std::vector<int> BlockColumns;    ///< NumBlocks
  std::vector<int> BlockRows;       ///< NumBlocks: the row of each block
  std::vector<int> SlotBlocks;      ///< NumElements * Arity^2: slot -> block
  std::vector<int> SlotOffsets;     ///< NumBlocks + 1: a block's slots are
  std::vector<int> BlockSlots; ///< BlockSlots[SlotOffsets[b] ..), increasing
};

/// Throws MeshError at the first of the N indices that is not a vertex.
inline void checkHessianIndices(const int *Indices, long N, int NumVertices) {
  for (long I = 0; I < N; ++I)
    if (Indices[I] < 0 || Indices[I] >= NumVertices)
      throw MeshError("sparse Hessian: index[" + std::to_string(I) + "] = " +
                      std::to_string(Indices[I]) + " is not a vertex (" +
                      std::to_string(NumVertices) + " vertices)");
}

/// One index array of a pattern over several (terms of one problem: springs,
/// bending diamonds, vertices): NumElements * Arity vertex indices. Its
/// slots follow those of the lists before it: slot = SlotBase + (element *
/// Arity + a) * Arity + b.
struct ElementList {
  const int *Indices = nullptr;
  int NumElements = 0;
  int Arity = 0;
  long numSlots() const { return static_cast<long>(NumElements) * Arity * Arity; }
};

/// The first slot of each list and the total, in list order.
inline std::vector<long> slotBases(const std::vector<ElementList> &Lists) {
  std::vector<long> Bases(1, 0);
  for (const ElementList &L : Lists)
    Bases.push_back(Bases.back() + L.numSlots());
  return Bases;
}

/// Builds the pattern on the host: the keys (v_a, v_b) of every slot of
/// every list sorted stably, equal keys one block.
inline HessianPatternArrays
buildHessianPatternOnHost(const std::vector<ElementList> &Lists,
                          int NumVertices) {
  std::vector<long> Bases = slotBases(Lists);
  long N = Bases.back();
  for (const ElementList &L : Lists)
    checkHessianIndices(L.Indices, static_cast<long>(L.NumElements) * L.Arity,
                        NumVertices);
  auto KeyOf = [&](long Slot) {
    size_t K = std::upper_bound(Bases.begin(), Bases.end(), Slot) -
               Bases.begin() - 1;
    const ElementList &L = Lists[K];
    long Local = Slot - Bases[K], E = Local / (L.Arity * L.Arity);
    int A = static_cast<int>(Local / L.Arity % L.Arity),
        B = static_cast<int>(Local % L.Arity);
    return static_cast<int64_t>(L.Indices[E * L.Arity + A]) * NumVertices +
           L.Indices[E * L.Arity + B];
  };
  HessianPatternArrays P;
  P.BlockSlots.resize(N);
  for (long S = 0; S < N; ++S)
    P.BlockSlots[S] = static_cast<int>(S);
  // Stable: equal keys keep their slots in increasing order.
  std::sort(P.BlockSlots.begin(), P.BlockSlots.end(), [&](int L, int R) {
    return std::make_pair(KeyOf(L), L) < std::make_pair(KeyOf(R), R);
  });
  P.SlotBlocks.assign(N, 0);
  P.BlockRowOffsets.assign(NumVertices + 1, 0);
  for (long I = 0; I < N; ++I) {
    int64_t Key = KeyOf(P.BlockSlots[I]);
    if (I == 0 || Key != KeyOf(P.BlockSlots[I - 1])) {
      P.SlotOffsets.push_back(static_cast<int>(I));
      P.BlockRows.push_back(static_cast<int>(Key / NumVertices));
      P.BlockColumns.push_back(static_cast<int>(Key % NumVertices));
      ++P.BlockRowOffsets[Key / NumVertices + 1];
    }
    P.SlotBlocks[P.BlockSlots[I]] = static_cast<int>(P.BlockColumns.size()) - 1;
  }
  P.SlotOffsets.push_back(static_cast<int>(N));
  for (int V = 0; V < NumVertices; ++V)
    P.BlockRowOffsets[V + 1] += P.BlockRowOffsets[V];
  return P;
}

/// The pattern of one index array.
inline HessianPatternArrays buildHessianPatternOnHost(const int *Indices,
                                                      int NumElements,
                                                      int Arity,
                                                      int NumVertices) {
  return buildHessianPatternOnHost({ElementList{Indices, NumElements, Arity}},
                                   NumVertices);
}

/// What a kernel needs to add element Hessians: device pointers and sizes,
/// passed by value.
struct HessianSlots {
  const int *BlockRowOffsets = nullptr;
  const int *BlockRows = nullptr;
  const int *SlotBlocks = nullptr;
  const int *SlotOffsets = nullptr;
  int Arity = 0;
  int BlockSize = 0;
  SparseFormat Format = SparseFormat::Bsr;
  int SlotBase = 0; ///< the list's first slot (patterns over several lists)

  /// The slot of element E's (a, b) block.
  __host__ __device__ int slot(int E, int A, int B) const {
    return SlotBase + (E * Arity + A) * Arity + B;
  }
  /// True when no other slot adds to this block: plain stores.
  __host__ __device__ bool singleOwner(int Block) const {
    return SlotOffsets[Block + 1] - SlotOffsets[Block] == 1;
  }
  /// The position of entry (K, L) of block Block in the values array.
  __host__ __device__ int position(int Block, int K, int L) const {
    int S = BlockSize;
    if (Format == SparseFormat::Bsr)
      return (Block * S + K) * S + L;
    int V = BlockRows[Block], First = BlockRowOffsets[V];
    int RowBlocks = BlockRowOffsets[V + 1] - First;
    return S * S * First + K * S * RowBlocks + S * (Block - First) + L;
  }
};

/// Adds element E's dense local Hessian H (row-major, Arity*S square, local
/// DOF a*S + k) into Values: plain stores into blocks with one owner,
/// atomicAdd elsewhere. Values must have been zeroed.
template <class T>
__device__ void addElementHessian(const HessianSlots &Slots, int E, const T *H,
                                  T *Values) {
  int S = Slots.BlockSize, K = Slots.Arity * S;
  for (int A = 0; A < Slots.Arity; ++A)
    for (int B = 0; B < Slots.Arity; ++B) {
      int Block = Slots.SlotBlocks[Slots.slot(E, A, B)];
      bool Plain = Slots.singleOwner(Block);
      for (int I = 0; I < S; ++I)
        for (int J = 0; J < S; ++J) {
          T V = H[(A * S + I) * K + B * S + J];
          T *At = Values + Slots.position(Block, I, J);
          if (Plain)
            *At = V;
          else
            atomicAdd(At, V);
        }
    }
}

/// Adds element E's local gradient G (Arity*S, local DOF a*S + k) into the
/// global gradient Out (S values per vertex), atomically: with the element's
/// Hessian, the gradient comes from the same launch.
template <class T>
__device__ void addElementGradient(const HessianSlots &Slots,
                                   const int *Indices, int E, const T *G,
                                   T *Out) {
  int S = Slots.BlockSize;
  for (int A = 0; A < Slots.Arity; ++A)
    for (int K = 0; K < S; ++K)
      atomicAdd(Out + S * Indices[Slots.Arity * E + A] + K, G[A * S + K]);
}

/// The deterministic option, first phase: element E's local Hessian into
/// its own slots of SlotValues (NumElements * Arity^2 * S^2 values), no
/// atomics.
template <class T>
__device__ void storeElementHessian(const HessianSlots &Slots, int E,
                                    const T *H, T *SlotValues) {
  int S = Slots.BlockSize, K = Slots.Arity * S;
  for (int A = 0; A < Slots.Arity; ++A)
    for (int B = 0; B < Slots.Arity; ++B) {
      T *Out = SlotValues + static_cast<long>(Slots.slot(E, A, B)) * S * S;
      for (int I = 0; I < S; ++I)
        for (int J = 0; J < S; ++J)
          Out[I * S + J] = H[(A * S + I) * K + B * S + J];
    }
}

namespace detail {

/// Second phase: block b is the sum of its slots, in increasing slot order.
template <class T>
__global__ void sumHessianSlots(HessianSlots Slots, const int *BlockSlots,
                                int NumBlocks, const T *SlotValues, T *Values) {
  int Block = blockIdx.x * blockDim.x + threadIdx.x;
  if (Block >= NumBlocks)
    return;
  int S = Slots.BlockSize;
  for (int I = 0; I < S; ++I)
    for (int J = 0; J < S; ++J) {
      T Sum = 0;
      for (int P = Slots.SlotOffsets[Block]; P < Slots.SlotOffsets[Block + 1];
           ++P)
        Sum += SlotValues[static_cast<long>(BlockSlots[P]) * S * S + I * S + J];
      Values[Slots.position(Block, I, J)] = Sum;
    }
}

/// The plain CSR's row offsets and columns from the block pattern: one
/// thread per block row.
template <class Index>
__global__ void expandCsr(const int *BlockRowOffsets, const Index *BlockColumns,
                          int NumVertices, int S, Index *RowOffsets,
                          Index *Columns) {
  int V = blockIdx.x * blockDim.x + threadIdx.x;
  if (V >= NumVertices)
    return;
  int First = BlockRowOffsets[V], RowBlocks = BlockRowOffsets[V + 1] - First;
  for (int K = 0; K < S; ++K) {
    int Row = S * S * First + K * S * RowBlocks;
    RowOffsets[S * V + K] = Row;
    for (int B = 0; B < RowBlocks; ++B)
      for (int L = 0; L < S; ++L)
        Columns[Row + S * B + L] = S * BlockColumns[First + B] + L;
  }
  if (V == NumVertices - 1)
    RowOffsets[S * NumVertices] = S * S * BlockRowOffsets[NumVertices];
}

inline int *deviceInts(size_t N) {
  int *P = nullptr;
  if (cudaMalloc(reinterpret_cast<void **>(&P), (N ? N : 1) * sizeof(int)) !=
      cudaSuccess)
    throw MeshError("sparse Hessian: out of device memory");
  return P;
}

} // namespace detail

/// The pattern, slot map and values of one element kernel's sparse
/// Hessian, in device memory it owns; T is the value type.
template <class T> class SparseHessian {
public:
  SparseHessian() = default;
  /// \p DeviceIndices: NumElements * Arity vertex indices in device memory;
  /// \p BlockSize: the DOFs per vertex (S: 2 or 3, 1 for scalars).
  SparseHessian(const int *DeviceIndices, int NumElements, int Arity,
                int NumVertices, int BlockSize) {
    rebuild(DeviceIndices, NumElements, Arity, NumVertices, BlockSize);
  }
  /// One matrix for several index arrays (the terms of one problem): the
  /// pattern is the union of theirs, and slots(Format, K) adds list K's
  /// element Hessians.
  SparseHessian(const std::vector<ElementList> &Lists, int NumVertices,
                int BlockSize) {
    rebuild(Lists, NumVertices, BlockSize);
  }
  SparseHessian(const SparseHessian &) = delete;
  SparseHessian &operator=(const SparseHessian &) = delete;
  ~SparseHessian() { release(); }

  /// Builds the pattern and slot map again (the connectivity changed).
  void rebuild(const int *DeviceIndices, int NumElements, int Arity,
               int NumVertices, int BlockSize) {
    rebuild({ElementList{DeviceIndices, NumElements, Arity}}, NumVertices,
            BlockSize);
  }
  /// Builds the pattern of several index arrays again.
  void rebuild(const std::vector<ElementList> &NewLists, int NumVertices,
               int BlockSize) {
    release();
    Lists = NewLists;
    Bases = slotBases(Lists);
    Shape = {Lists.empty() ? 0 : Lists[0].NumElements,
             Lists.empty() ? 0 : Lists[0].Arity, NumVertices, BlockSize};
    try {
      buildPattern();
    } catch (...) {
      release(); // an index out of range: no stale pattern is left
      throw;
    }
    size_t S2 = static_cast<size_t>(BlockSize) * BlockSize;
    cudaMalloc(reinterpret_cast<void **>(&Values),
               (nnz() ? nnz() : 1) * sizeof(T));
    CsrRowOffsets =
        detail::deviceInts(static_cast<size_t>(NumVertices) * BlockSize + 1);
    CsrColumns = detail::deviceInts(NumBlocks * S2);
    if (NumVertices == 0) {
      cudaMemset(CsrRowOffsets, 0, sizeof(int));
      return;
    }
    MESHAD_LAUNCH(detail::expandCsr<int>, (NumVertices + 127) / 128, 128)
    (BlockRowOffsets, BlockColumns, NumVertices, BlockSize, CsrRowOffsets,
     CsrColumns);
  }

  /// The view a kernel adds element Hessians through, for one format (and,
  /// over several index arrays, the List-th's elements).
  HessianSlots slots(SparseFormat Format = SparseFormat::Bsr,
                     int List = 0) const {
    HessianSlots S;
    S.BlockRowOffsets = BlockRowOffsets;
    S.BlockRows = BlockRows;
    S.SlotBlocks = SlotBlocks;
    S.SlotOffsets = SlotOffsets;
    S.Arity = Lists.empty() ? 0 : Lists[List].Arity;
    S.SlotBase = Bases.empty() ? 0 : static_cast<int>(Bases[List]);
    S.BlockSize = Shape.BlockSize;
    S.Format = Format;
    return S;
  }

  /// Zeroes the values (before an atomic assembly).
  void zero() { cudaMemset(Values, 0, nnz() * sizeof(T)); }

  /// The per-slot values of the deterministic option (allocated on first
  /// use): storeElementHessian writes them, sumSlots adds them up.
  T *slotValues() {
    if (!SlotValues)
      cudaMalloc(reinterpret_cast<void **>(&SlotValues),
                 (numSlots() * blockEntries() + 1) * sizeof(T));
    return SlotValues;
  }
  /// The deterministic option's second phase, into Values in \p Format.
  void sumSlots(SparseFormat Format = SparseFormat::Bsr) {
    if (NumBlocks == 0)
      return;
    MESHAD_LAUNCH(detail::sumHessianSlots<T>, (NumBlocks + 127) / 128, 128)
    (slots(Format), BlockSlots, NumBlocks, slotValues(), Values);
  }

  /// What assembly does, in words: the blocks with one owner get plain
  /// stores, the others atomicAdd (Atomic) or a fixed-order sum of their
  /// slots (Deterministic).
  std::string remark(Accumulation Mode) const {
    std::string S = std::to_string(Shape.BlockSize);
    std::string R = "sparse Hessian: " + std::to_string(NumBlocks) +
                    " blocks of " + S + "x" + S + " (" + std::to_string(nnz()) +
                    " values), ";
    if (Mode == Accumulation::Deterministic)
      return R + "each the sum of its slots in a fixed order (deterministic)";
    return R + std::to_string(SingleOwnerBlocks) +
           " with one owner (plain stores), " +
           std::to_string(NumBlocks - SingleOwnerBlocks) +
           " shared (atomicAdd)";
  }

  int numBlocks() const { return NumBlocks; }
  /// Blocks that one slot alone adds to: assembled with plain stores.
  int numSingleOwnerBlocks() const { return SingleOwnerBlocks; }
  size_t nnz() const { return static_cast<size_t>(NumBlocks) * blockEntries(); }
  int numRows() const { return Shape.NumVertices * Shape.BlockSize; }
  int blockSize() const { return Shape.BlockSize; }
  int numLists() const { return static_cast<int>(Lists.size()); }
  bool matches(int NumElements, int Arity, int NumVertices,
               int BlockSize) const {
    return Lists.size() == 1 && Shape.NumElements == NumElements &&
           Shape.Arity == Arity &&
           Shape.NumVertices == NumVertices && Shape.BlockSize == BlockSize;
  }

  const int *bsrRowOffsets() const {
    return BlockRowOffsets;
  }                                                      ///< NumVertices + 1
  const int *bsrColumns() const { return BlockColumns; } ///< numBlocks()
  const int *csrRowOffsets() const { return CsrRowOffsets; } ///< numRows() + 1
  const int *csrColumns() const { return CsrColumns; }       ///< nnz()
  T *values() { return Values; }                             ///< nnz()
  const T *values() const { return Values; }
  /// Per block, its slots in increasing order (NumElements * Arity^2
  /// values, block b's from SlotOffsets[b]).
  const int *blockSlots() const { return BlockSlots; }

  /// The block pattern and slot map copied back to the host.
  HessianPatternArrays toHost() const {
    HessianPatternArrays P;
    size_t NS = numSlots();
    copyBack(P.BlockRowOffsets, BlockRowOffsets, Shape.NumVertices + 1);
    copyBack(P.BlockColumns, BlockColumns, NumBlocks);
    copyBack(P.BlockRows, BlockRows, NumBlocks);
    copyBack(P.SlotBlocks, SlotBlocks, NS);
    copyBack(P.SlotOffsets, SlotOffsets, NumBlocks + 1);
    copyBack(P.BlockSlots, BlockSlots, NS);
    return P;
  }

private:
  struct Sizes {
    int NumElements = 0, Arity = 0, NumVertices = 0, BlockSize = 0;
  };
  Sizes Shape;
  std::vector<ElementList> Lists;
  std::vector<long> Bases; ///< slotBases(Lists)
  int NumBlocks = 0, SingleOwnerBlocks = 0;
  int *BlockRowOffsets = nullptr, *BlockColumns = nullptr, *BlockRows = nullptr;
  int *SlotBlocks = nullptr, *SlotOffsets = nullptr, *BlockSlots = nullptr;
  int *CsrRowOffsets = nullptr, *CsrColumns = nullptr;
  T *Values = nullptr, *SlotValues = nullptr;

  size_t numSlots() const {
    return Bases.empty() ? 0 : static_cast<size_t>(Bases.back());
  }
  size_t blockEntries() const {
    return static_cast<size_t>(Shape.BlockSize) * Shape.BlockSize;
  }
  static void copyBack(std::vector<int> &To, const int *From, size_t N) {
    To.resize(N);
    cudaMemcpy(To.data(), From, N * sizeof(int), cudaMemcpyDeviceToHost);
  }
  void release() {
    for (int *P : {BlockRowOffsets, BlockColumns, BlockRows, SlotBlocks,
                   SlotOffsets, BlockSlots, CsrRowOffsets, CsrColumns})
      cudaFree(P);
    cudaFree(Values);
    cudaFree(SlotValues);
    BlockRowOffsets = BlockColumns = BlockRows = SlotBlocks = nullptr;
    SlotOffsets = BlockSlots = CsrRowOffsets = CsrColumns = nullptr;
    Values = SlotValues = nullptr;
    NumBlocks = SingleOwnerBlocks = 0;
    Shape = Sizes();
    Lists.clear();
    Bases.clear();
  }
  void buildPattern();
  void adopt(const HessianPatternArrays &P);
};

/// Copies a host-built pattern into device arrays.
template <class T> void SparseHessian<T>::adopt(const HessianPatternArrays &P) {
  auto Upload = [](int *&To, const std::vector<int> &From) {
    To = detail::deviceInts(From.size());
    cudaMemcpy(To, From.data(), From.size() * sizeof(int),
               cudaMemcpyHostToDevice);
  };
  NumBlocks = static_cast<int>(P.BlockColumns.size());
  Upload(BlockRowOffsets, P.BlockRowOffsets);
  Upload(BlockColumns, P.BlockColumns);
  Upload(BlockRows, P.BlockRows);
  Upload(SlotBlocks, P.SlotBlocks);
  Upload(SlotOffsets, P.SlotOffsets);
  Upload(BlockSlots, P.BlockSlots);
  for (int B = 0; B < NumBlocks; ++B)
    SingleOwnerBlocks += P.SlotOffsets[B + 1] - P.SlotOffsets[B] == 1;
}

#if defined(__CUDACC__)
namespace detail {
/// The (v_a, v_b) key of a slot.
struct SlotKey {
  const int *Indices;
  int Arity, NumVertices;
  __host__ __device__ int64_t operator()(long Slot) const {
    long E = Slot / (Arity * Arity);
    int A = Slot / Arity % Arity, B = Slot % Arity;
    return static_cast<int64_t>(Indices[E * Arity + A]) * NumVertices +
           Indices[E * Arity + B];
  }
};
/// 1 where a sorted key starts a block.
struct StartsBlock {
  const int64_t *Keys;
  __host__ __device__ int operator()(long I) const {
    return I == 0 || Keys[I] != Keys[I - 1];
  }
};
struct KeyRow {
  int NumVertices;
  __host__ __device__ int operator()(int64_t K) const {
    return K / NumVertices;
  }
};
struct KeyColumn {
  int NumVertices;
  __host__ __device__ int operator()(int64_t K) const {
    return K % NumVertices;
  }
};
struct MinusOne {
  __host__ __device__ int operator()(int B) const { return B - 1; }
};
struct OneSlot {
  const int *SlotOffsets;
  __host__ __device__ int operator()(int B) const {
    return SlotOffsets[B + 1] - SlotOffsets[B] == 1;
  }
};
} // namespace detail

/// On the GPU: the slots' keys sorted stably (radix sort), a scan of the
/// block starts numbers the blocks, the unique keys are the blocks.
template <class T> void SparseHessian<T>::buildPattern() {
  using thrust::counting_iterator;
  using thrust::device_pointer_cast;
  long N = static_cast<long>(numSlots());
  int NV = Shape.NumVertices;
  for (const ElementList &L : Lists) {
    long NI = static_cast<long>(L.NumElements) * L.Arity;
    if (NI == 0)
      continue;
    auto Idx = device_pointer_cast(L.Indices);
    auto MinMax = thrust::minmax_element(Idx, Idx + NI);
    int Lo = *MinMax.first, Hi = *MinMax.second;
    if (Lo < 0 || Hi >= NV) {
      // Rare: the message names the first bad index, as on the host.
      std::vector<int> Host(NI);
      cudaMemcpy(Host.data(), L.Indices, NI * sizeof(int),
                 cudaMemcpyDeviceToHost);
      checkHessianIndices(Host.data(), NI, NV);
    }
  }
  thrust::device_vector<int64_t> Keys(N);
  for (size_t K = 0; K < Lists.size(); ++K)
    thrust::transform(counting_iterator<long>(0),
                      counting_iterator<long>(Lists[K].numSlots()),
                      Keys.begin() + Bases[K],
                      detail::SlotKey{Lists[K].Indices, Lists[K].Arity, NV});
  BlockSlots = detail::deviceInts(N);
  auto SlotsPtr = device_pointer_cast(BlockSlots);
  thrust::sequence(SlotsPtr, SlotsPtr + N);
  thrust::stable_sort_by_key(Keys.begin(), Keys.end(), SlotsPtr);
  thrust::device_vector<int> Numbers(N);
  const int64_t *RawKeys = thrust::raw_pointer_cast(Keys.data());
  thrust::transform(counting_iterator<long>(0), counting_iterator<long>(N),
                    Numbers.begin(), detail::StartsBlock{RawKeys});
  thrust::inclusive_scan(Numbers.begin(), Numbers.end(), Numbers.begin());
  NumBlocks = N ? static_cast<int>(Numbers.back()) : 0;
  thrust::transform(Numbers.begin(), Numbers.end(), Numbers.begin(),
                    detail::MinusOne());
  SlotBlocks = detail::deviceInts(N);
  thrust::scatter(Numbers.begin(), Numbers.end(), SlotsPtr,
                  device_pointer_cast(SlotBlocks));
  thrust::device_vector<int64_t> Unique(NumBlocks);
  thrust::unique_copy(Keys.begin(), Keys.end(), Unique.begin());
  BlockRows = detail::deviceInts(NumBlocks);
  BlockColumns = detail::deviceInts(NumBlocks);
  thrust::transform(Unique.begin(), Unique.end(),
                    device_pointer_cast(BlockRows), detail::KeyRow{NV});
  thrust::transform(Unique.begin(), Unique.end(),
                    device_pointer_cast(BlockColumns), detail::KeyColumn{NV});
  SlotOffsets = detail::deviceInts(NumBlocks + 1);
  thrust::lower_bound(Keys.begin(), Keys.end(), Unique.begin(), Unique.end(),
                      device_pointer_cast(SlotOffsets));
  int End = static_cast<int>(N);
  cudaMemcpy(SlotOffsets + NumBlocks, &End, sizeof(int),
             cudaMemcpyHostToDevice);
  BlockRowOffsets = detail::deviceInts(NV + 1);
  auto Rows = device_pointer_cast(BlockRows);
  thrust::lower_bound(Rows, Rows + NumBlocks, counting_iterator<int>(0),
                      counting_iterator<int>(NV + 1),
                      device_pointer_cast(BlockRowOffsets));
  SingleOwnerBlocks = thrust::transform_reduce(
      counting_iterator<int>(0), counting_iterator<int>(NumBlocks),
      detail::OneSlot{SlotOffsets}, 0, thrust::plus<int>());
}
#else
/// Under the CPU emulation: device memory is host memory.
template <class T> void SparseHessian<T>::buildPattern() {
  adopt(buildHessianPatternOnHost(Lists, Shape.NumVertices));
}
#endif

} // namespace runtime
} // namespace meshad

#endif // MESHAD_RUNTIME_SPARSEPATTERN_H
