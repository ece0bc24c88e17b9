//===- meshad/ElementHessian.h - Element kernels' Hessians ------*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The handle of an element kernel's sparse Hessian (issue 12,
/// docs/hessians.md). An element kernel written the usual way (one thread
/// per element t < n, its vertices read through an index array,
/// `x[s * idx[c * t + j] + k]`, a local energy added into E with atomicAdd)
/// gets, from `meshad::hessian(kernel, "x")`, a generated kernel that per
/// element computes the energy, the local gradient and the nonzero, unique
/// entries of the local (c*s x c*s) Hessian, and adds them into E, into a
/// gradient array and into a global sparse matrix (meshad/runtime/
/// SparsePattern.h) through the per-element slot maps: no search at run
/// time, one launch.
///
/// \code
///   __global__ void springs(int n, const int *edges, const double *x,
///                           double *E);           // the energy kernel
///
///   auto h = meshad::hessian(springs, "x");       // a meshad::ElementHessian
///   h.set_options(meshad::ProjectPsd);            // optional (Newton)
///   // E (may be null): += energy; g (may be null): += gradient (3 values a
///   // vertex); the Hessian's values are overwritten.
///   h.execute_kernel(grid, block, n, edges, x, E, g);
///   const meshad::runtime::SparseHessian<double> &H = h.matrix();
///   // block CSR (3x3 blocks): H.bsrRowOffsets(), H.bsrColumns(), H.values()
///   // plain CSR: set_options({.Format = SparseFormat::Csr}) before the
///   //   launch, then H.csrRowOffsets(), H.csrColumns(), H.values()
///   h.multiply(v, Hv);                            // Hv = H v (device arrays)
///   ... edges rewritten on the device ...
///   h.connectivity_changed();                     // the pattern is rebuilt
/// \endcode
///
/// The matrix has one block row per vertex, V = the largest index + 1 unless
/// set_num_vertices(V) says more (vertices no element touches get empty
/// rows); or pass a matrix of your own (use_matrix), built for this mesh.
/// Copies of a handle, and every request of the same kernel and array in a
/// file, share its matrix and options. Include this header yourself: it
/// needs meshad/runtime/SparsePattern.h, hence Thrust on the GPU
/// (-I$CUDA/include/cccl), which Differentiator.h does not pull in.
///
/// For a Newton solver over terms (an element list and a local energy
/// each): per term, execute_kernel gives the energy, the gradient and the
/// (projected) Hessian in one launch; the primal kernel alone gives the
/// energy (line searches); multiply() the Hessian-vector product of the
/// assembled matrix (or cuSPARSE on matrix()'s arrays). Terms over the same
/// vertices add: give each the same set_num_vertices, add their gradients
/// into one array, and their products with multiply(v, Hv, true) (each
/// term keeps its own matrix and pattern).
///
/// Options (set_options, kept until changed):
/// - ProjectPsd: each element's local Hessian is projected onto the positive
///   semidefinite matrices (negative eigenvalues clamped to MinEigenvalue,
///   meshad/runtime/PsdProjection.h) before it is added: the assembled
///   matrix is PSD, as projected Newton needs. Only for c*s <= 12.
/// - Deterministic: every element stores its blocks and its local gradient
///   in slots of its own, and second launches sum each block's slots, and
///   each vertex's gradient slots, in a fixed order: the Hessian and the
///   gradient are bitwise reproducible (the default adds with plain stores
///   where one element owns a block, atomicAdd elsewhere). The energy is
///   added with atomicAdd in both modes.
/// - Format: where entries go in values(): block CSR (default) or plain CSR
///   positions; both formats' index arrays always exist.
///
/// Misuse stops the program with a message rather than give a wrong matrix:
/// an element count or arity that differs from the matrix's (the mesh
/// changed without connectivity_changed(), or a borrowed matrix of another
/// mesh), an index out of range, matrix() or multiply() before the first
/// launch, ProjectPsd on an element of more than 12 DOFs.
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_ELEMENTHESSIAN_H
#define MESHAD_ELEMENTHESSIAN_H

#include <meshad/codegen/ElementGather.h>
#include <meshad/runtime/Incidence.h>
#include <meshad/runtime/PsdProjection.h>
#include <meshad/runtime/SparsePattern.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

namespace meshad {

/// How an element Hessian is assembled; see the file comment.
struct ElementHessianOptions {
  bool ProjectPsd = false;
  bool Deterministic = false;
  runtime::SparseFormat Format = runtime::SparseFormat::Bsr;
  double MinEigenvalue = 0;
};

/// The option projected Newton needs: every element's Hessian made PSD.
inline constexpr ElementHessianOptions ProjectPsd{true};

/// What the generated Hessian kernel receives (by value) to add an
/// element's results: the matrix's slot map and values (or per-slot
/// values: Deterministic), the gradient (null: none) and the options.
template <class T> struct ElementAssembly {
  runtime::HessianSlots Slots;
  T *Values = nullptr;
  T *Gradient = nullptr;
  /// Deterministic: the local gradients' slots (element, local vertex,
  /// component), summed per vertex after the launch; else null.
  T *GradientSlots = nullptr;
  bool Deterministic = false;
  bool ProjectPsd = false;
  T MinEigenvalue = 0;
};

/// Adds element \p E's energy \p Value into \p Energy (when not null), its
/// local gradient \p Gl into the gradient and its local Hessian \p Hl (dense,
/// row-major, overwritten when projected) into the matrix: called by the
/// generated kernel.
template <int Arity, int S, class T>
__device__ inline void assembleElement(const ElementAssembly<T> &A,
                                       const int *Idx, int E, T *Energy,
                                       T Value, const T *Gl, T *Hl) {
  if (Energy)
    atomicAdd(Energy, Value);
  if (A.GradientSlots)
    for (int K = 0; K < Arity * S; ++K)
      A.GradientSlots[static_cast<long>(E) * Arity * S + K] = Gl[K];
  else if (A.Gradient)
    runtime::addElementGradient(A.Slots, Idx, E, Gl, A.Gradient);
  if (A.ProjectPsd)
    projectPsd(Hl, Arity * S, A.MinEigenvalue);
  if (A.Deterministic)
    runtime::storeElementHessian(A.Slots, E, Hl, A.Values);
  else
    runtime::addElementHessian(A.Slots, E, Hl, A.Values);
}

namespace detail {
/// What an element Hessian's kernel type says: its parameters end with the
/// ElementAssembly<T>.
template <class F> struct ElementHessianTraits;
template <class... P> struct ElementHessianTraits<void (*)(P...)> {
  static constexpr size_t NumParams = sizeof...(P);
  using Assembly = std::tuple_element_t<sizeof...(P) - 1, std::tuple<P...>>;
  /// The element count n from the kernel's arguments (assembly unused).
  using CountFn = long long (*)(P...);
};
/// The deterministic gradient: one thread per diagonal block (v, v) adds
/// the gradient slots of v's incidences, its slots (e, a, a) in increasing
/// order, to Grad[S * v + k].
template <class T>
__global__ void sumGradientSlots(runtime::HessianSlots Slots,
                                 const int *BlockSlots, const int *Columns,
                                 int NumBlocks, const T *GradSlots, T *Grad) {
  int Block = blockIdx.x * blockDim.x + threadIdx.x;
  if (Block >= NumBlocks || Slots.BlockRows[Block] != Columns[Block])
    return;
  int A = Slots.Arity, S = Slots.BlockSize, V = Columns[Block];
  for (int K = 0; K < S; ++K) {
    T Sum = 0;
    for (int P = Slots.SlotOffsets[Block]; P < Slots.SlotOffsets[Block + 1];
         ++P) {
      int Slot = BlockSlots[P], E = Slot / (A * A), Local = Slot / A % A;
      if (Slot % A == Local) // (e, a, a), not (e, a, b) of a repeated vertex
        Sum += GradSlots[(static_cast<long>(E) * A + Local) * S + K];
    }
    Grad[S * V + K] += Sum;
  }
}

template <class T> struct AssemblyValue;
template <class T> struct AssemblyValue<ElementAssembly<T>> { using Type = T; };

[[noreturn]] inline void elementHessianError(const char *Name,
                                             const std::string &Message) {
  std::fprintf(stderr, "meshad: %s: %s\n", Name, Message.c_str());
  std::abort();
}

/// Out = H * V (Accumulate: Out += H * V) for the block CSR matrix with S x S
/// blocks: one thread per block row.
template <class T>
__global__ void bsrMultiply(const int *RowOffsets, const int *Columns,
                            const T *Values, int NumRows, int S, const T *V,
                            T *Out, bool Accumulate) {
  int Row = blockIdx.x * blockDim.x + threadIdx.x;
  if (Row >= NumRows)
    return;
  for (int K = 0; K < S; ++K) {
    T Sum = 0;
    for (int B = RowOffsets[Row]; B < RowOffsets[Row + 1]; ++B)
      for (int L = 0; L < S; ++L)
        Sum += Values[(static_cast<long>(B) * S + K) * S + L] *
               V[S * Columns[B] + L];
    Out[S * Row + K] = Accumulate ? Out[S * Row + K] + Sum : Sum;
  }
}
} // namespace detail

/// An element kernel's sparse Hessian; see the file comment. \p KernelPtr
/// is the generated kernel (the primal's parameters, then an
/// ElementAssembly<T>); the index array is the primal's parameter
/// \p IndexArg; an element has \p Arity vertices of \p Stride DOFs.
template <class KernelPtr, int IndexArg, int Arity, int Stride>
class ElementHessian {
  using Traits = detail::ElementHessianTraits<KernelPtr>;
  using Assembly = typename Traits::Assembly;
  using T = typename detail::AssemblyValue<Assembly>::Type;

public:
  using Matrix = runtime::SparseHessian<T>;
  using CountFn = typename Traits::CountFn;

  ElementHessian(KernelPtr Kernel, CountFn Count, const char *Name,
                 const char *Code)
      : Kernel(Kernel), Count(Count), Name(Name), Code(Code),
        S(std::make_shared<State>()) {}

  /// Energy into E (the primal's energy argument, when not null), the
  /// gradient added into \p Gradient (Stride values a vertex; null: none),
  /// the Hessian's values overwritten; the primal's launch shape. The
  /// arguments: the primal's, then the gradient.
  template <class... Args>
  cudaError_t execute_kernel(dim3 Grid, dim3 Block, Args... A) const {
    static_assert(sizeof...(Args) == Traits::NumParams,
                  "execute_kernel: the primal's arguments, then the gradient "
                  "(a device array of Stride values a vertex, or nullptr)");
    auto All = std::make_tuple(A...);
    return run(Grid, Block, All, std::make_index_sequence<sizeof...(A) - 1>());
  }

  /// The matrix of the last launch (an error before the first).
  const Matrix &matrix() const {
    if (!current())
      detail::elementHessianError(Name, "matrix() before the first launch");
    return *current();
  }
  /// Out = H V, or Out += H V (\p Accumulate), on the matrix of the last
  /// launch (block CSR values: an error with Format Csr).
  cudaError_t multiply(const T *V, T *Out, bool Accumulate = false) const;

  void set_options(const ElementHessianOptions &O) { S->Options = O; }
  const ElementHessianOptions &options() const { return S->Options; }
  /// Matrix rows for \p V vertices (at least the largest index + 1).
  void set_num_vertices(int V) {
    S->NumVertices = V;
    S->Built = false;
  }
  /// Uses \p M (kept by the caller, built for this mesh with BlockSize
  /// Stride) instead of a matrix of the handle's own.
  void use_matrix(Matrix &M) { S->Borrowed = &M; }
  /// The index array changed: the next launch builds the pattern again.
  void connectivity_changed() { S->Built = false; }
  /// What the last launch did: "sparse Hessian: 33 blocks of 3x3 (297
  /// values), 24 with one owner (plain stores), 9 shared (atomicAdd)".
  std::string remark() const {
    return current() ? current()->remark(S->Options.Deterministic
                                             ? runtime::Accumulation::
                                                   Deterministic
                                             : runtime::Accumulation::Atomic)
                     : "no launch yet";
  }

  const char *getCode() const { return Code; }
  const char *getName() const { return Name; }
  void dump() const { std::fputs(Code, stdout); }
  KernelPtr getFunctionPointer() const { return Kernel; }

private:
  struct State {
    Matrix Own;
    bool Built = false;
    Matrix *Borrowed = nullptr;
    int NumVertices = 0;
    ElementHessianOptions Options;
    T *GradSlots = nullptr;
    size_t GradCapacity = 0;
    ~State() { cudaFree(GradSlots); }
  };

  /// The deterministic gradient's slots, at least \p N values.
  T *gradientSlots(size_t N) const {
    if (S->GradCapacity < N) {
      cudaFree(S->GradSlots);
      S->GradSlots = nullptr;
      S->GradCapacity = 0;
      if (cudaMalloc(reinterpret_cast<void **>(&S->GradSlots),
                     N * sizeof(T)) != cudaSuccess)
        detail::elementHessianError(Name, "out of device memory for " +
                                              std::to_string(N) +
                                              " gradient slots");
      S->GradCapacity = N;
    }
    return S->GradSlots;
  }

  Matrix *current() const {
    if (S->Borrowed)
      return S->Borrowed;
    return S->Built ? &S->Own : nullptr;
  }
  Matrix &matrixFor(const int *Indices, long long N) const;
  template <class Tuple, size_t... I>
  cudaError_t run(dim3 Grid, dim3 Block, Tuple &All,
                  std::index_sequence<I...>) const;

  template <class... Params, class... Args>
  cudaError_t launch(void (*Fn)(Params...), dim3 Grid, dim3 Block,
                     Args &&...A) const {
    return detail::launchKernel(Name, Fn, Grid, Block, 0, nullptr,
                                std::forward<Args>(A)...);
  }

  KernelPtr Kernel;
  CountFn Count;
  const char *Name;
  const char *Code;
  std::shared_ptr<State> S;
};

template <class K, int I, int A, int St>
typename ElementHessian<K, I, A, St>::Matrix &
ElementHessian<K, I, A, St>::matrixFor(const int *Indices, long long N) const {
  long NumIndices = static_cast<long>(N) * A;
  try {
    if (!S->Borrowed && !S->Built) {
      int V = runtime::countVertices(Indices, NumIndices);
      S->Own.rebuild(Indices, static_cast<int>(N), A,
                     V > S->NumVertices ? V : S->NumVertices, St);
      S->Built = true;
    }
    Matrix &M = S->Borrowed ? *S->Borrowed : S->Own;
    int V = M.numRows() / St;
    if (!M.matches(static_cast<int>(N), A, V, St))
      detail::elementHessianError(
          Name, "the matrix was built for another mesh than the launch's " +
                    std::to_string(N) + " elements of arity " +
                    std::to_string(A) + " and " + std::to_string(St) +
                    " DOFs a vertex (stale: call connectivity_changed() when "
                    "the mesh changes, or rebuild the matrix passed to "
                    "use_matrix())");
#if defined(MESHAD_DEBUG_INDICES)
    if (runtime::countVertices(Indices, NumIndices) > V)
      detail::elementHessianError(Name, "an index is not below the matrix's " +
                                            std::to_string(V) + " vertices");
#endif
    return M;
  } catch (const runtime::MeshError &E) {
    detail::elementHessianError(Name, E.what());
  }
}

template <class K, int I, int A, int St>
template <class Tuple, size_t... P>
cudaError_t ElementHessian<K, I, A, St>::run(dim3 Grid, dim3 Block, Tuple &All,
                                             std::index_sequence<P...>) const {
  Assembly Asm;
  long long N = Count(std::get<P>(All)..., Asm);
  const ElementHessianOptions &O = S->Options;
  if (O.ProjectPsd && A * St > MaxPsdSize)
    detail::elementHessianError(
        Name, "ProjectPsd: an element has " + std::to_string(A * St) +
                  " DOFs, more than the " + std::to_string(MaxPsdSize) +
                  " the projection handles");
  if (N <= 0)
    return cudaSuccess;
  Matrix &M = matrixFor(std::get<I>(All), N);
  Asm.Slots = M.slots(O.Format);
  Asm.Gradient = std::get<sizeof...(P)>(All);
  Asm.Deterministic = O.Deterministic;
  Asm.ProjectPsd = O.ProjectPsd;
  Asm.MinEigenvalue = static_cast<T>(O.MinEigenvalue);
  if (O.Deterministic) {
    Asm.Values = M.slotValues();
    if (Asm.Gradient)
      Asm.GradientSlots = gradientSlots(static_cast<size_t>(N) * A * St);
  } else {
    M.zero();
    Asm.Values = M.values();
  }
  if (cudaError_t E = launch(Kernel, Grid, Block, std::get<P>(All)..., Asm))
    return E;
  if (!O.Deterministic)
    return cudaGetLastError();
  M.sumSlots(O.Format);
  if (!Asm.GradientSlots || M.numBlocks() == 0)
    return cudaGetLastError();
  return launch(&detail::sumGradientSlots<T>,
                dim3((M.numBlocks() + 127) / 128), dim3(128), M.slots(),
                M.blockSlots(), M.bsrColumns(), M.numBlocks(),
                static_cast<const T *>(Asm.GradientSlots), Asm.Gradient);
}

template <class K, int I, int A, int St>
cudaError_t ElementHessian<K, I, A, St>::multiply(const T *V, T *Out,
                                                  bool Accumulate) const {
  if (!current() || S->Options.Format != runtime::SparseFormat::Bsr)
    detail::elementHessianError(Name, "multiply() needs a block CSR matrix "
                                      "from a launch");
  const Matrix &M = *current();
  int Rows = M.numRows() / St;
  if (Rows == 0)
    return cudaSuccess;
  return launch(&detail::bsrMultiply<T>, dim3((Rows + 127) / 128), dim3(128),
                M.bsrRowOffsets(), M.bsrColumns(),
                const_cast<Matrix &>(M).values(), Rows, St, V, Out,
                Accumulate);
}

/// meshad::hessian completed with an element kernel's handle.
template <class F, class K, int I, int A, int St>
ElementHessian<K, I, A, St> hessian(F &&, const char *,
                                    ElementHessian<K, I, A, St> H) {
  return H;
}

} // namespace meshad

#endif // MESHAD_ELEMENTHESSIAN_H
