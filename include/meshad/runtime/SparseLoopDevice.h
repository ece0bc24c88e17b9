//===- meshad/runtime/SparseLoopDevice.h - Sparse loop Hessians on the GPU ===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The device matrix that meshad::hessian(f, "x", meshad::SparseDevice)
/// fills, and the helpers its generated kernels and driver call.
///
/// f's loops are those of meshad::Sparse (meshad/codegen/SparseLoop.h);
/// f is __host__ __device__ and its arrays are device memory. Per loop the
/// plugin generates a kernel, one thread per iteration, that computes the
/// iteration's K rows, gathers its entries, calls the local Hessian and
/// adds its pairs into the CSR values through the cached slots. The
/// driver launches every loop's kernel once per call:
///
///   - the first call (and after connectivity_changed(), or when a loop's
///     bounds or count changed) runs a rows pass first: each kernel
///     writes its iterations' rows, which are copied to the host once and
///     built into the pattern by the host runtime (O(nnz)); the slot of
///     every (iteration, pair) is uploaded, with one bit saying whether
///     the value has one owner (a plain store) or several (atomicAdd);
///   - every call zeroes the values and runs the values pass.
///
/// Later calls compare each loop's bounds only: index arrays are assumed
/// unchanged until connectivity_changed().
///
/// \code
///   // __host__ __device__ double chain(const double *x, int n): a sum
///   // over i of (x[i-1] - x[i])^2; x is device memory.
///   #include <meshad/runtime/SparseLoopDevice.h>
///   auto h = meshad::hessian(chain, "x", meshad::SparseDevice);
///   meshad::DeviceSparseMatrix<double> H;
///   h.execute(dX, n, &H);           // H.RowOffsets, H.Columns, H.Values
///   meshad::SparseMatrix<double> Copy;
///   H.copyTo(Copy);                 // the CSR in host memory
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_RUNTIME_SPARSELOOPDEVICE_H
#define MESHAD_RUNTIME_SPARSELOOPDEVICE_H

#include "meshad/codegen/SparseLoop.h"
#include "meshad/cpu/Portable.h"

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#if defined(__CUDACC__)
#include <cuda_runtime.h>
#elif !defined(MESHAD_CPU_CUDA)
#error "meshad/runtime/SparseLoopDevice.h needs CUDA or the CPU emulation"
#endif

namespace meshad {

/// What one launch of a loop's generated kernel does, passed by value:
/// the rows pass (Rows set) stores the K rows of each iteration, the
/// values pass adds each iteration's local Hessian through Slots.
template <class T> struct SparseLoopLaunch {
  /// The iterations [Lo, Hi) and the launch shape.
  int Lo = 0, Hi = 0;
  int Blocks = 1, Threads = 256;
  /// The selected arrays (rows are encoded Arrays * element + array).
  int Arrays = 1;
  /// Rows pass: K rows per iteration.
  int *Rows = nullptr;
  /// Values pass: per (pair, iteration), pair-major, 2 * value + (1 when
  /// the value has several owners: atomicAdd); -1 for a pair of an entry
  /// not read.
  const int *Slots = nullptr;
  T *Values = nullptr;
};

namespace detail {

[[noreturn]] inline void deviceSparseFailure(const char *What,
                                             cudaError_t Error) {
  std::fprintf(stderr, "meshad::DeviceSparseMatrix: %s: %s\n", What,
               cudaGetErrorString(Error));
  std::abort();
}

inline void checkCuda(cudaError_t Error, const char *What) {
  if (Error != cudaSuccess)
    deviceSparseFailure(What, Error);
}

template <class U> U *deviceCopy(const std::vector<U> &Host) {
  U *Out = nullptr;
  if (Host.empty())
    return nullptr;
  checkCuda(cudaMalloc(reinterpret_cast<void **>(&Out), Host.size() * sizeof(U)),
            "cudaMalloc");
  checkCuda(cudaMemcpy(Out, Host.data(), Host.size() * sizeof(U),
                       cudaMemcpyHostToDevice),
            "cudaMemcpy");
  return Out;
}

template <class U> void deviceFree(U *&P) {
  if (P)
    cudaFree(P);
  P = nullptr;
}

/// One loop of the record: its local pattern and bounds, its slots.
struct DeviceSparseLoop {
  int K = 0;
  std::vector<unsigned long long> Mask;
  int Lo = 0, Hi = 0;
  int Pairs = 0;
  int *Rows = nullptr;        ///< During a rows pass.
  int *Slots = nullptr;       ///< Device: Pairs per iteration.
  /// Records the rows (copied back) into a host matrix, with K and Mask.
  std::function<void(SparseMatrix<double> &, const int *)> Record;

  long long iterations() const { return Hi > Lo ? Hi - Lo : 0; }
  bool same(int OK, const unsigned long long *OMask, int OLo, int OHi) const {
    if (K != OK || Lo != OLo || Hi != OHi)
      return false;
    for (size_t W = 0; W < Mask.size(); ++W)
      if (Mask[W] != OMask[W])
        return false;
    return true;
  }
};

} // namespace detail

/// A square sparse matrix in CSR in device memory (int offsets, rows sorted
/// by column), filled by a generated sparse loop Hessian
/// (meshad::SparseDevice). Rows are the selected arrays' elements
/// concatenated, as in meshad::SparseMatrix.
template <class T> class DeviceSparseMatrix {
public:
  int Rows = 0, Nonzeros = 0;
  int *RowOffsets = nullptr, *Columns = nullptr;
  T *Values = nullptr;
  /// How many times the pattern was built.
  int Rebuilds = 0;
  /// Values with one owner (plain stores) and with several (atomicAdd).
  long long PlainValues = 0, SharedValues = 0;
  /// The first row of each selected array (Arrays + 1 offsets).
  std::vector<int> ArrayOffsets{0, 0};

  DeviceSparseMatrix() = default;
  DeviceSparseMatrix(const DeviceSparseMatrix &) = delete;
  DeviceSparseMatrix &operator=(const DeviceSparseMatrix &) = delete;
  ~DeviceSparseMatrix() { release(); }

  /// The index arrays changed in place: the next call rebuilds the pattern.
  void connectivity_changed() { Built = false; }

  /// The CSR arrays copied into \p Out (its pattern and values).
  void copyTo(SparseMatrix<T> &Out) const {
    Out = SparseMatrix<T>();
    Out.Rows = Rows;
    Out.RowOffsets.assign(Rows + 1, 0);
    Out.Columns.resize(Nonzeros);
    Out.Values.resize(Nonzeros);
    Out.Arrays = static_cast<int>(ArrayOffsets.size()) - 1;
    Out.ArrayOffsets = ArrayOffsets;
    Out.Rebuilds = Rebuilds;
    download(Out.RowOffsets.data(), RowOffsets, Rows + 1);
    download(Out.Columns.data(), Columns, Nonzeros);
    download(Out.Values.data(), Values, Nonzeros);
  }

  /// "sparse Hessian on the device: N rows, Z nonzeros, P values with one
  /// owner (plain stores), S shared (atomicAdd)".
  std::string remark() const {
    return "sparse Hessian on the device: " + std::to_string(Rows) +
           " rows, " + std::to_string(Nonzeros) + " nonzeros, " +
           std::to_string(PlainValues) + " values with one owner (plain "
           "stores), " + std::to_string(SharedValues) + " shared (atomicAdd)";
  }

  // The generated driver's state (sparseDeviceLoop, sparseDeviceNext).
  bool Built = false, RowsPass = true, Mismatch = false;
  size_t Cursor = 0;
  int NumArrays = 1;
  std::vector<detail::DeviceSparseLoop> Loops;

  /// Builds the pattern from the rows the pass wrote, uploads it.
  void buildFromRows();
  void release() {
    detail::deviceFree(RowOffsets);
    detail::deviceFree(Columns);
    detail::deviceFree(Values);
    for (detail::DeviceSparseLoop &L : Loops) {
      detail::deviceFree(L.Rows);
      detail::deviceFree(L.Slots);
    }
  }

private:
  template <class U> static void download(U *To, const U *From, long long N) {
    if (N > 0)
      detail::checkCuda(cudaMemcpy(To, From, N * sizeof(U),
                                   cudaMemcpyDeviceToHost),
                        "cudaMemcpy");
  }
};

namespace detail {

/// The value index and ownership bit of every recorded pair of \p P, per
/// loop (the record's pairs are the loops' iterations' pairs in order).
template <class T>
std::vector<int> encodedSlots(const SparseMatrix<double> &P,
                              DeviceSparseMatrix<T> &H) {
  std::vector<int> Owners(P.nonzeros(), 0);
  for (int S : P.Record.Slots)
    if (S >= 0)
      ++Owners[S];
  H.PlainValues = H.SharedValues = 0;
  for (int O : Owners)
    (O > 1 ? H.SharedValues : H.PlainValues) += O > 0;
  std::vector<int> Out(P.Record.Slots.size());
  for (size_t Q = 0; Q < Out.size(); ++Q) {
    int S = P.Record.Slots[Q];
    Out[Q] = S < 0 ? -1 : 2 * S + (Owners[S] > 1);
  }
  return Out;
}

} // namespace detail

template <class T> void DeviceSparseMatrix<T>::buildFromRows() {
  detail::checkCuda(cudaDeviceSynchronize(), "the rows pass");
  SparseMatrix<double> P;
  sparseLoopBegin(&P, NumArrays);
  for (detail::DeviceSparseLoop &L : Loops) {
    std::vector<int> HostRows(static_cast<size_t>(L.iterations() * L.K));
    download(HostRows.data(), L.Rows, static_cast<long long>(HostRows.size()));
    L.Record(P, HostRows.data());
    detail::deviceFree(L.Rows);
  }
  sparseLoopEnd(&P);
  std::vector<int> Slots = detail::encodedSlots(P, *this);
  release();
  Rows = P.Rows;
  Nonzeros = P.nonzeros();
  ArrayOffsets = P.ArrayOffsets;
  RowOffsets = detail::deviceCopy(P.RowOffsets);
  Columns = detail::deviceCopy(P.Columns);
  Values = detail::deviceCopy(std::vector<T>(Nonzeros, T(0)));
  // Per loop, pair-major (pair q of iteration t at q * iterations + t):
  // the threads of a warp read consecutive slots.
  size_t First = 0;
  for (detail::DeviceSparseLoop &L : Loops) {
    const size_t N = static_cast<size_t>(L.iterations());
    std::vector<int> Loop(N * L.Pairs);
    for (size_t It = 0; It < N; ++It)
      for (int Q = 0; Q < L.Pairs; ++Q)
        Loop[Q * N + It] = Slots[First + It * L.Pairs + Q];
    L.Slots = detail::deviceCopy(Loop);
    First += N * L.Pairs;
  }
  Built = true;
  ++Rebuilds;
}

/// The rows of an iteration's K entries of several arrays, encoded.
template <int K, class T>
__host__ __device__ bool sparseLoopRows(const SparseLoopLaunch<T> &L, int I,
                                        const int *Rows,
                                        const int *Arrays = nullptr) {
  if (!L.Rows)
    return false;
  int *Out = L.Rows + static_cast<long long>(I - L.Lo) * K;
  for (int J = 0; J < K; ++J)
    Out[J] = !Arrays || Rows[J] == SkipRow ? Rows[J]
                                           : L.Arrays * Rows[J] + Arrays[J];
  return true;
}

/// Adds the K x K local Hessian \p Hl (its pairs of Mask, 64-bit words) of
/// iteration \p I into the values through its slots: a plain store where
/// the value has one owner, atomicAdd where it has several.
template <int K, unsigned long long... Mask, class T>
__device__ void sparseLoopDeviceAdd(const SparseLoopLaunch<T> &L, int I,
                                    const T *Hl) {
  constexpr unsigned long long Words[] = {Mask...};
  const long long Iterations = L.Hi - L.Lo;
  const int *Slot = L.Slots + (I - L.Lo);
  int Q = 0;
#pragma unroll
  for (int E = 0; E < K * K; ++E) {
    if (!(Words[E / 64] >> (E % 64) & 1))
      continue;
    const int S = Slot[Q++ * Iterations];
    if (S < 0)
      continue;
    if (S & 1)
      atomicAdd(&L.Values[S >> 1], Hl[E]);
    else
      L.Values[S >> 1] = Hl[E];
  }
}

/// Called by the generated driver before launching the kernel of its next
/// loop, whose iterations are [Lo, Hi): the launch of this pass (the rows
/// pass, the values pass, or nothing when the loop differs from the
/// record: the driver then runs a rows pass).
template <int K, unsigned long long... Mask, class T>
SparseLoopLaunch<T> sparseDeviceLoop(DeviceSparseMatrix<T> *H, long long Lo,
                                     long long Hi, int Arrays = 1) {
  static_assert(sizeof...(Mask) == detail::maskWords(K), "K*K bits of mask");
  constexpr unsigned long long Words[] = {Mask...};
  if ((Hi - Lo) * K >= (1LL << 31) || Lo < INT_MIN || Hi > INT_MAX) {
    std::fprintf(stderr, "meshad::DeviceSparseMatrix: a loop of %lld "
                         "iterations of %d entries\n", Hi - Lo, K);
    std::abort();
  }
  SparseLoopLaunch<T> L;
  L.Arrays = H->NumArrays = Arrays;
  const size_t Index = H->Cursor++;
  if (!H->RowsPass) {
    if (Index >= H->Loops.size() ||
        !H->Loops[Index].same(K, Words, int(Lo), int(Hi))) {
      H->Mismatch = true;
      return L;
    }
    if (Index == 0 && H->Nonzeros)
      cudaMemset(H->Values, 0, H->Nonzeros * sizeof(T));
    L.Slots = H->Loops[Index].Slots;
    L.Values = H->Values;
  } else {
    if (Index >= H->Loops.size())
      H->Loops.resize(Index + 1);
    detail::DeviceSparseLoop &R = H->Loops[Index];
    R.K = K;
    R.Mask.assign(Words, Words + sizeof...(Mask));
    R.Pairs = detail::maskCount(Words, K);
    detail::deviceFree(R.Rows);
    R.Lo = int(Lo);
    R.Hi = int(Hi);
    const long long N = R.iterations();
    if (N > 0)
      detail::checkCuda(cudaMalloc(reinterpret_cast<void **>(&R.Rows),
                                   N * K * sizeof(int)),
                        "cudaMalloc");
    R.Record = [N](SparseMatrix<double> &P, const int *Rows) {
      static const double Zeros[K * K] = {};
      for (long long I = 0; I < N; ++I)
        detail::addRows<K, Mask...>(P, Rows + I * K, Zeros);
    };
    L.Rows = R.Rows;
  }
  L.Lo = int(Lo);
  L.Hi = int(Hi);
  L.Blocks = Hi > Lo ? static_cast<int>((Hi - Lo + L.Threads - 1) / L.Threads)
                     : 1;
  return L;
}

/// Called by the generated driver after launching every loop's kernel:
/// true when the driver must launch them again (after a rows pass, the
/// pattern built, for the values; after a values pass that met a changed
/// loop, for the rows).
template <class T> bool sparseDeviceNext(DeviceSparseMatrix<T> *H) {
  const size_t Loops = H->Cursor;
  H->Cursor = 0;
  if (H->RowsPass) {
    for (size_t L = Loops; L < H->Loops.size(); ++L)
      detail::deviceFree(H->Loops[L].Slots);
    H->Loops.resize(Loops);
    H->buildFromRows();
    H->RowsPass = false;
    return true;
  }
  if (H->Mismatch || Loops != H->Loops.size() || !H->Built) {
    H->Mismatch = false;
    H->RowsPass = true;
    return true;
  }
  return false;
}

/// Called by the generated driver first: a rows pass when the pattern is
/// not built (the first call, connectivity_changed()).
template <class T> void sparseDeviceBegin(DeviceSparseMatrix<T> *H) {
  H->Cursor = 0;
  H->Mismatch = false;
  H->RowsPass = !H->Built;
}

} // namespace meshad

#endif // MESHAD_RUNTIME_SPARSELOOPDEVICE_H
