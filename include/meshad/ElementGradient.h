//===- meshad/ElementGradient.h - Atomic-free element gradients -*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The handle of an element kernel's gradient computed without atomics
/// (issue 11, docs/element-kernels.md). The request is the usual one; the
/// plugin completes it with this handle when the kernel adds to an adjoint
/// through an element map (`x[s*idx[c*t + j] + k]`) whose element count it
/// finds (`if (t < n)`), by two-phase slots or by gather by recomputation
/// (the cost model's choice, or meshad::ElementStrategy):
///
/// \code
///   auto g = meshad::gradient(springs, "x, E");       // gather or slots
///   g.execute_kernel(grid, block, n, edges, x, E, dx, dE); // as with atomics
///   g.execute_kernel(grid, block, n, edges, x, E, dx, dE); // same bits
///   ... edges rewritten on the device ...
///   g.connectivity_changed();          // the incidence is built again
///   // or own it: meshad::runtime::Incidence Inc(edges, n, 2, V);
///   g.use_incidence(Inc);
/// \endcode
///
/// execute_kernel takes the arguments of the atomic gradient. On the first
/// call it builds the incidence of the index array argument (its element
/// count from the kernel's guard, its vertex count the largest index + 1;
/// meshad/runtime/Incidence.h) and keeps it. Two-phase slots: it zeroes a
/// slot buffer of n * arity * stride values, launches the element kernel
/// with the given grid and block (it writes each element's local adjoints
/// into its slots), and launches meshad::slotSums over the vertices with a
/// launch shape of its own (each vertex adds its slots in the incidence's
/// order); where the generator proved that the kernel stores each slot once
/// (meshad::slotStore) and the launch covers every element, the slots are
/// not zeroed. Gather: it launches the generated vertex kernel over the
/// incidence with a launch shape of its own (the given grid and block are
/// not used; each vertex recomputes its incident elements' local gradients
/// in the incidence's order). Copies of a handle share its incidence and
/// slots.
///
/// The handle's own incidence is built again for another index array (a
/// different pointer); when the contents of the same array change, call
/// connectivity_changed().
///
/// Where the gather is chosen by the cost model, the handle is an
/// ElementGradientChoice: the gather or, on a scattered numbering, two-phase
/// slots (Auto) or the atomic gradient (ElementStrategy::Fastest), chosen
/// on the first launch. Several arrays read through one index array share
/// one gather kernel.
///
/// Misuse stops the program with a message rather than give a wrong
/// gradient: an element count or arity that differs from the incidence's
/// (the connectivity changed without connectivity_changed(), or a borrowed
/// incidence of another mesh), an index out of range (checked on every
/// launch when MESHAD_DEBUG_INDICES is defined, when the incidence is built
/// otherwise). With MESHAD_DEBUG_SLOTS defined, slots that a kernel stores
/// once are filled with NaN instead of left as they are before each launch
/// (a slot the proof missed would show in the gradient).
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_ELEMENTGRADIENT_H
#define MESHAD_ELEMENTGRADIENT_H

#include <meshad/codegen/ElementGather.h>
#include <meshad/codegen/SlotSums.h>
#include <meshad/runtime/Incidence.h>
#include <meshad/runtime/NumberingLocality.h>

#include <array>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace meshad {

namespace detail {
/// What an element gradient's kernel type says: its adjoint's value type,
/// its number of parameters (the atomic gradient's, then the slots or the
/// incidence's).
template <class F, int AdjointArg> struct ElementKernelTraits;
template <class... P, int AdjointArg>
struct ElementKernelTraits<void (*)(P...), AdjointArg> {
  static constexpr size_t NumParams = sizeof...(P);
  using Adjoint = std::tuple_element_t<AdjointArg, std::tuple<P...>>;
  using Value = std::remove_pointer_t<Adjoint>;
  /// The element count n from the kernel's arguments (those after the
  /// atomic gradient's unused).
  using CountFn = long long (*)(P...);
};

[[noreturn]] inline void elementGradientError(const char *Name,
                                              const std::string &Message) {
  std::fprintf(stderr, "meshad: %s: %s\n", Name, Message.c_str());
  std::abort();
}
} // namespace detail

template <class KernelPtr, int IndexArg, int AdjointArg, int Arity, int Stride,
          ElementStrategy Strategy = ElementStrategy::TwoPhase>
class ElementGradient;

/// The alternative of an ElementGradientChoice by default: two-phase slots
/// of one array.
template <class SlotsPtr, int IndexArg, int AdjointArg, int Arity, int Stride>
using TwoPhaseAlternative = ElementGradient<SlotsPtr, IndexArg, AdjointArg,
                                            Arity, Stride,
                                            ElementStrategy::TwoPhase>;

template <class GatherPtr, class SlotsPtr, int IndexArg, int AdjointArg,
          int Arity, int Stride,
          class Alternative = TwoPhaseAlternative<SlotsPtr, IndexArg,
                                                  AdjointArg, Arity, Stride>>
class ElementGradientChoice;

/// An element kernel's gradient by two-phase slots or gather; see the file
/// comment. \p KernelPtr is the generated kernel: the atomic gradient's
/// parameters, then the slots (TwoPhase: the element kernel) or the
/// incidence's offsets, incident slots and vertex count (Gather: the vertex
/// kernel); the index array and the adjoint summed per vertex are its
/// parameters \p IndexArg and \p AdjointArg; an element has \p Arity
/// vertices of \p Stride values.
template <class KernelPtr, int IndexArg, int AdjointArg, int Arity, int Stride,
          ElementStrategy Strategy>
class ElementGradient {
  using Traits = detail::ElementKernelTraits<KernelPtr, AdjointArg>;
  using T = typename Traits::Value;
  static constexpr bool Gather = Strategy == ElementStrategy::Gather;
  /// Threads per block of the launches over vertices.
  static constexpr int VertexBlock = Gather ? 128 : 256;
#if defined(MESHAD_DEBUG_SLOTS)
  static constexpr bool DebugSlots = true;
#else
  static constexpr bool DebugSlots = false;
#endif

public:
  using CountFn = typename Traits::CountFn;
  /// What the constructor takes to count the elements.
  using CountArg = CountFn;

  /// \p StoresOnce: the two-phase kernel stores each slot of an element
  /// once on every path (meshad::slotStore), so the slots are zeroed only
  /// when the launch does not cover every element; \p EveryLaunchCovers:
  /// a grid-stride kernel, whose every launch visits every element.
  ElementGradient(KernelPtr Kernel, CountFn Count, const char *Name,
                  const char *Code, bool StoresOnce = false,
                  bool EveryLaunchCovers = false)
      : Kernel(Kernel), Count(Count), Name(Name), Code(Code),
        StoresOnce(StoresOnce), EveryLaunchCovers(EveryLaunchCovers),
        S(std::make_shared<State>()) {}

  /// Runs the gradient: the atomic gradient's arguments.
  template <class... Args>
  cudaError_t execute_kernel(dim3 Grid, dim3 Block, Args &&...A) const {
    static_assert(sizeof...(Args) + (Gather ? 3 : 1) == Traits::NumParams,
                  "execute_kernel: wrong number of arguments for the "
                  "gradient kernel (the primal's arguments, then one adjoint "
                  "array per selected or written array parameter)");
    long long N = count(A...);
    auto Refs = std::forward_as_tuple(A...);
    const int *Indices = std::get<IndexArg>(Refs);
    T *Adjoint = std::get<AdjointArg>(Refs);
    if (N <= 0)
      return cudaSuccess;
    const runtime::Incidence &Inc = incidence(Indices, N);
    int V = Inc.numVertices();
    dim3 VertexGrid((V + VertexBlock - 1) / VertexBlock);
    if constexpr (Gather) {
      (void)Grid, (void)Block, (void)Adjoint;
      return launch(Kernel, VertexGrid, dim3(VertexBlock), A...,
                    Inc.offsets(), Inc.slots(), V);
    } else {
      size_t NumSlots = static_cast<size_t>(N) * Arity * Stride;
      T *Slots = slots(NumSlots);
      // Stored once per element: every slot is written when every element
      // has a thread (a 1D launch, checked by the kernel).
      bool Covers = EveryLaunchCovers ||
                    static_cast<long long>(Grid.x) * Block.x >= N;
      if (!(StoresOnce && Covers)) {
        if (cudaError_t E = cudaMemset(Slots, 0, NumSlots * sizeof(T)))
          return E;
      } else if (DebugSlots) {
        // Not zeroed: NaN in every slot, so that one left unwritten shows.
        if (cudaError_t E = cudaMemset(Slots, 0xff, NumSlots * sizeof(T)))
          return E;
      }
      if (cudaError_t E = launch(Kernel, Grid, Block, A..., Slots))
        return E;
      if (V == 0)
        return cudaSuccess;
      return launch(&slotSums<T, Stride>, VertexGrid, dim3(VertexBlock),
                    Inc.offsets(), Inc.slots(), static_cast<const T *>(Slots),
                    Adjoint, V);
    }
  }

  /// Uses \p Inc (kept by the caller, who rebuilds it when the mesh
  /// changes) instead of an incidence of the handle's own.
  void use_incidence(const runtime::Incidence &Inc) { S->Borrowed = &Inc; }
  /// The index array changed: the next launch builds the incidence again
  /// (a borrowed incidence is the caller's to rebuild).
  void connectivity_changed() { S->Built = false; }

  /// Whether the two-phase kernel stores each slot once (no zeroing when
  /// the launch covers every element).
  bool stores_slots_once() const { return StoresOnce; }
  const char *getCode() const { return Code; }
  const char *getName() const { return Name; }
  void dump() const { std::fputs(Code, stdout); }
  KernelPtr getFunctionPointer() const { return Kernel; }
  /// The strategy this handle runs: TwoPhase or Gather.
  static constexpr ElementStrategy strategy() { return Strategy; }

private:
  template <class, class, int, int, int, int, class>
  friend class ElementGradientChoice;

  struct State {
    runtime::Incidence Own;
    bool Built = false;
    /// The index array the incidence was built from: another one (another
    /// mesh) builds it again.
    const int *Source = nullptr;
    const runtime::Incidence *Borrowed = nullptr;
    T *Slots = nullptr;
    size_t Capacity = 0;
    ~State() { cudaFree(Slots); }
  };

  /// The element count from the atomic gradient's arguments \p A.
  template <class... Args> long long count(Args &&...A) const {
    if constexpr (Gather)
      return Count(A..., nullptr, nullptr, 0);
    else
      return Count(A..., nullptr);
  }

  /// The incidence for \p N elements, built on first use.
  const runtime::Incidence &incidence(const int *Indices, long long N) const {
    long NumIndices = static_cast<long>(N) * Arity;
    try {
      if (!S->Borrowed && (!S->Built || S->Source != Indices)) {
        S->Own.rebuild(Indices, static_cast<int>(N), Arity,
                       runtime::countVertices(Indices, NumIndices));
        S->Built = true;
        S->Source = Indices;
      }
      const runtime::Incidence &Inc = S->Borrowed ? *S->Borrowed : S->Own;
      if (Inc.numElements() != N || Inc.arity() != Arity)
        detail::elementGradientError(
            Name, "the incidence has " + std::to_string(Inc.numElements()) +
                      " elements of arity " + std::to_string(Inc.arity()) +
                      ", the launch " + std::to_string(N) + " of arity " +
                      std::to_string(Arity) +
                      " (stale: call connectivity_changed() when the mesh "
                      "changes, or rebuild the incidence passed to "
                      "use_incidence())");
#if defined(MESHAD_DEBUG_INDICES)
      if (runtime::countVertices(Indices, NumIndices) > Inc.numVertices())
        detail::elementGradientError(
            Name, "an index is not below the incidence's " +
                      std::to_string(Inc.numVertices()) + " vertices");
#endif
      return Inc;
    } catch (const runtime::MeshError &E) {
      detail::elementGradientError(Name, E.what());
    }
  }

  /// A slot buffer of at least \p N values.
  T *slots(size_t N) const {
    if (S->Capacity < N) {
      cudaFree(S->Slots);
      S->Slots = nullptr;
      S->Capacity = 0;
      if (cudaMalloc(reinterpret_cast<void **>(&S->Slots), N * sizeof(T)) !=
          cudaSuccess)
        detail::elementGradientError(Name, "out of device memory for " +
                                               std::to_string(N) + " slots");
      S->Capacity = N;
    }
    return S->Slots;
  }

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
  bool StoresOnce;
  bool EveryLaunchCovers;
  std::shared_ptr<State> S;
};

/// The atomic gradient kernel as the alternative of an ElementGradientChoice
/// under ElementStrategy::Fastest: launched with the caller's grid and block,
/// one atomicAdd per contribution (not bitwise reproducible).
template <class KernelPtr> class ElementGradientAtomics {
public:
  /// No element count: the kernel is launched as the primal is.
  using CountArg = std::nullptr_t;

  ElementGradientAtomics(KernelPtr Kernel, CountArg, const char *Name,
                         const char *, bool = false, bool = false)
      : Kernel(Kernel), Name(Name) {}

  template <class... Args>
  cudaError_t execute_kernel(dim3 Grid, dim3 Block, Args &&...A) const {
    return detail::launchKernel(Name, Kernel, Grid, Block, 0, nullptr,
                                std::forward<Args>(A)...);
  }
  void use_incidence(const runtime::Incidence &) {}
  void connectivity_changed() {}
  bool stores_slots_once() const { return false; }
  static constexpr ElementStrategy strategy() {
    return ElementStrategy::Atomics;
  }

private:
  KernelPtr Kernel;
  const char *Name;
};

/// The gradient of an element kernel for which the cost model prefers the
/// gather, which is right only when the mesh is numbered locally (a grid,
/// a mesh file, a subdivision; on a shuffled numbering two-phase slots and
/// atomics are faster): the plugin generates both kernels, and this handle
/// chooses on the first launch, from the numbering of the index array
/// (meshad/runtime/NumberingLocality.h), and keeps the choice until
/// connectivity_changed() or another index array. \p Alternative is the
/// other kernel's handle: two-phase slots of one array (ElementStrategy::
/// Auto, the default), of several arrays read through the same index array
/// (an ElementGradientSlots), or the atomic gradient (ElementStrategy::
/// Fastest, an ElementGradientAtomics). The gather and two-phase slots are
/// bitwise reproducible (each gives the same bits on every run; the two may
/// differ from each other by rounding); atomics are not.
///
/// \code
///   auto g = meshad::gradient(springs, "x, E"); // this handle, by Auto
///   g.execute_kernel(grid, block, n, edges, x, E, dx, dE); // chooses
///   if (g.strategy() == meshad::ElementStrategy::TwoPhase) ...
///   g.force_strategy(meshad::ElementStrategy::Gather); // or TwoPhase;
///                                                      // Auto: choose
///   auto f = meshad::gradient(springs, "x, E",
///                             meshad::ElementStrategy::Fastest);
///   f.execute_kernel(grid, block, n, edges, x, E, dx, dE); // gather or
///                                                          // atomics
/// \endcode
template <class GatherPtr, class SlotsPtr, int IndexArg, int AdjointArg,
          int Arity, int Stride, class Alternative>
class ElementGradientChoice {
  using GatherHandle = ElementGradient<GatherPtr, IndexArg, AdjointArg, Arity,
                                       Stride, ElementStrategy::Gather>;
  static constexpr ElementStrategy Other = Alternative::strategy();

public:
  /// The gather kernel \p G and the other kernel \p P of one gradient,
  /// with their element counts; \p StoresOnce and \p EveryLaunchCovers:
  /// those of \p P (ElementGradient).
  ElementGradientChoice(GatherPtr G, SlotsPtr P,
                        typename GatherHandle::CountFn GatherCount,
                        typename Alternative::CountArg SlotsCount,
                        const char *Name, const char *Code,
                        bool StoresOnce = false,
                        bool EveryLaunchCovers = false)
      : Gather(G, GatherCount, Name, Code),
        Slots(P, SlotsCount, Name, Code, StoresOnce, EveryLaunchCovers),
        S(std::make_shared<State>()) {
    // One incidence, the gather handle's, for both.
    Slots.use_incidence(Gather.S->Own);
  }

  /// Runs the gradient: the atomic gradient's arguments.
  template <class... Args>
  cudaError_t execute_kernel(dim3 Grid, dim3 Block, Args &&...A) const {
    long long N = Gather.count(A...);
    if (N <= 0)
      return cudaSuccess;
    const int *Indices = std::get<IndexArg>(std::forward_as_tuple(A...));
    const runtime::Incidence &Inc = Gather.incidence(Indices, N);
    if (!S->Decided || S->Source != Indices)
      decide(Indices, N, Inc.numVertices());
    if (S->Chosen == ElementStrategy::Gather)
      return Gather.execute_kernel(Grid, Block, std::forward<Args>(A)...);
    return Slots.execute_kernel(Grid, Block, std::forward<Args>(A)...);
  }

  /// The strategy of the launches: ElementStrategy::Auto until the first
  /// one has chosen, then Gather or the alternative's (TwoPhase, or
  /// Atomics under Fastest).
  ElementStrategy strategy() const {
    return S->Decided ? S->Chosen : ElementStrategy::Auto;
  }
  /// The locality of the numbering the choice was made from (the share of
  /// small steps, meshad/runtime/NumberingLocality.h), -1 before the first
  /// launch or when forced.
  double numbering_locality() const { return S->Locality; }
  /// Forces \p Strategy (Gather or the alternative's) from the next launch
  /// on; ElementStrategy::Auto chooses again from the numbering.
  void force_strategy(ElementStrategy Strategy) {
    if (Strategy != ElementStrategy::Auto &&
        Strategy != ElementStrategy::Gather && Strategy != Other)
      detail::elementGradientError(
          Gather.getName(),
          Other == ElementStrategy::Atomics
              ? "force_strategy: Gather, Atomics or Auto (the other "
                "strategies are other kernels: ask meshad::gradient for them)"
              : "force_strategy: Gather, TwoPhase or Auto (the other "
                "strategies are other kernels: ask meshad::gradient for "
                "them)");
    S->Forced = Strategy;
    S->Decided = false;
  }
  /// Uses \p Inc (kept by the caller) instead of an incidence of the
  /// handle's own; the next launch chooses again.
  void use_incidence(const runtime::Incidence &Inc) {
    Gather.use_incidence(Inc);
    Slots.use_incidence(Inc);
    S->Decided = false;
  }
  /// The index array changed: the next launch builds the incidence and
  /// chooses again.
  void connectivity_changed() {
    Gather.connectivity_changed();
    S->Decided = false;
  }

  bool stores_slots_once() const { return Slots.stores_slots_once(); }
  const char *getCode() const { return Gather.getCode(); }
  const char *getName() const { return Gather.getName(); }
  void dump() const { Gather.dump(); }
  GatherPtr getFunctionPointer() const { return Gather.getFunctionPointer(); }

private:
  struct State {
    bool Decided = false;
    ElementStrategy Chosen = ElementStrategy::Auto;
    ElementStrategy Forced = ElementStrategy::Auto;
    const int *Source = nullptr;
    double Locality = -1;
  };

  void decide(const int *Indices, long long N, int NumVertices) const {
    S->Source = Indices;
    S->Decided = true;
    if (S->Forced != ElementStrategy::Auto) {
      S->Chosen = S->Forced;
      S->Locality = -1;
      return;
    }
    S->Locality = runtime::numberingLocality(Indices, static_cast<int>(N),
                                             Arity, NumVertices);
    bool Local = Other == ElementStrategy::Atomics
                     ? runtime::isGatherOverAtomics(S->Locality)
                     : runtime::isLocalNumbering(S->Locality);
    S->Chosen = Local ? ElementStrategy::Gather : Other;
  }

  GatherHandle Gather;
  Alternative Slots;
  std::shared_ptr<State> S;
};

/// One array of an ElementGradientSlots: the kernel parameters of its
/// index array and of its adjoint, an element's vertices (Arity) and a
/// vertex's values (Stride).
template <int IndexArg, int AdjointArg, int Arity, int Stride>
struct SlotArray {
  static constexpr int Index = IndexArg;
  static constexpr int Adjoint = AdjointArg;
  static constexpr int C = Arity;
  static constexpr int S = Stride;
};

/// The two-phase gradient of an element kernel that reads several selected
/// arrays through element maps (positions and velocities through one
/// index array), or one array through several index arrays (springs and
/// triangles in one launch): one slot buffer per SlotArray, the kernel's
/// last parameters in this order, and one incidence per index array
/// (shared by the arrays read through the same one with the same element
/// count). execute_kernel zeroes every slot buffer (not where the kernel
/// stores each slot once and the launch covers the buffer's elements),
/// launches the element kernel once, then sums each buffer into its adjoint
/// over its incidence, in the order of Arrays: no atomics, the same bits on
/// every run.
///
/// \code
///   // __global__ void motion(int n, const int *edges, const double *x,
///   //                        const double *u, double *E);
///   auto g = meshad::gradient(motion, "x, u, E");
///   g.execute_kernel(grid, block, n, edges, x, u, E, dx, du, dE);
///   g.connectivity_changed(); // after remeshing
///   g.use_incidence(inc);     // or the caller's (one index array);
///   g.use_incidence(tris, incT); // per index array (several)
/// \endcode
template <class KernelPtr, class... Arrays> class ElementGradientSlots;
template <class... P, class... Arrays>
class ElementGradientSlots<void (*)(P...), Arrays...> {
  static constexpr size_t NumArrays = sizeof...(Arrays);
  static constexpr int VertexBlock = 256;
  template <size_t I>
  using Array = std::tuple_element_t<I, std::tuple<Arrays...>>;
  template <size_t I>
  using Value = std::remove_pointer_t<
      std::tuple_element_t<Array<I>::Adjoint, std::tuple<P...>>>;

public:
  using KernelPtr = void (*)(P...);
  /// Whether every array is read through the same index parameter.
  static constexpr bool SameIndexParam =
      ((Arrays::Index == Array<0>::Index) && ...);
  /// An array's element count from the kernel's arguments (the slots
  /// unused).
  using CountFn = long long (*)(P...);
  /// What the constructor takes to count the elements: one per array.
  using CountArg = std::array<CountFn, NumArrays>;

  /// \p StoresOnce, \p EveryLaunchCovers: as for ElementGradient, for
  /// every slot buffer (each zeroed unless its elements all have a thread).
  ElementGradientSlots(KernelPtr Kernel,
                       std::array<CountFn, NumArrays> Counts,
                       const char *Name, const char *Code,
                       bool StoresOnce = false, bool EveryLaunchCovers = false)
      : Kernel(Kernel), Counts(Counts), Name(Name), Code(Code),
        StoresOnce(StoresOnce), EveryLaunchCovers(EveryLaunchCovers),
        S(std::make_shared<State>()) {}

  /// Runs the gradient: the atomic gradient's arguments.
  template <class... Args>
  cudaError_t execute_kernel(dim3 Grid, dim3 Block, Args &&...A) const {
    static_assert(sizeof...(Args) + NumArrays == sizeof...(P),
                  "execute_kernel: wrong number of arguments for the "
                  "gradient kernel (the primal's arguments, then one adjoint "
                  "array per selected or written array parameter)");
    return run(std::index_sequence_for<Arrays...>{}, Grid, Block, A...);
  }

  /// The index arrays changed: the next launch builds the incidences
  /// again (borrowed ones are the caller's to rebuild).
  void connectivity_changed() {
    for (Entry &E : S->Entries)
      E.Built = false;
  }
  /// Uses \p Inc (kept by the caller, who rebuilds it when the mesh
  /// changes) for every array read through the index array \p Indices (a
  /// device pointer, as passed to execute_kernel) instead of an incidence
  /// of the handle's own; Inc must have that launch's element count and
  /// arity.
  void use_incidence(const int *Indices, const runtime::Incidence &Inc) {
    for (auto &B : S->Borrowed)
      if (B.first == Indices) {
        B.second = &Inc;
        return;
      }
    S->Borrowed.push_back({Indices, &Inc});
  }
  /// Uses \p Inc for every array: the kernel reads them all through one
  /// index parameter (else name the index array: the overload above).
  template <bool OneIndexArray = SameIndexParam>
  void use_incidence(const runtime::Incidence &Inc) {
    static_assert(OneIndexArray,
                  "use_incidence(inc): the kernel reads its arrays through "
                  "several index arrays; say which one inc is the incidence "
                  "of: use_incidence(indices, inc)");
    S->AnyIndices = &Inc;
  }
  static constexpr ElementStrategy strategy() {
    return ElementStrategy::TwoPhase;
  }
  /// Whether the kernel stores each slot once (no zeroing when every
  /// element has a thread).
  bool stores_slots_once() const { return StoresOnce; }
  const char *getCode() const { return Code; }
  const char *getName() const { return Name; }
  void dump() const { std::fputs(Code, stdout); }
  KernelPtr getFunctionPointer() const { return Kernel; }

private:
  struct Entry {
    runtime::Incidence Own;
    bool Built = false;
    const int *Source = nullptr;
    void *Slots = nullptr;
    size_t Bytes = 0;
  };
  struct State {
    std::array<Entry, NumArrays> Entries;
    /// The caller's incidences, per index array, or for all (one index
    /// parameter).
    std::vector<std::pair<const int *, const runtime::Incidence *>> Borrowed;
    const runtime::Incidence *AnyIndices = nullptr;
    ~State() {
      for (Entry &E : Entries)
        cudaFree(E.Slots);
    }
  };

  template <size_t... Is, class... Args>
  cudaError_t run(std::index_sequence<Is...>, dim3 Grid, dim3 Block,
                  Args &&...A) const {
    std::array<long long, NumArrays> N{
        Counts[Is](A..., ((void)Is, nullptr)...)...};
    auto Refs = std::forward_as_tuple(A...);
    std::array<const int *, NumArrays> Indices{
        std::get<Array<Is>::Index>(Refs)...};
    std::array<void *, NumArrays> Slots{
        slots(Is, N[Is] > 0 ? N[Is] * Array<Is>::C * Array<Is>::S *
                                  sizeof(Value<Is>)
                            : 0)...};
    for (size_t I = 0; I < NumArrays; ++I)
      if (N[I] > 0)
        if (cudaError_t E = clearSlots(Grid, Block, N[I], Slots[I],
                                       static_cast<size_t>(N[I]) *
                                           sizeSlotsOf(I)))
          return E;
    if (cudaError_t E =
            launch(Kernel, Grid, Block, A...,
                   static_cast<Value<Is> *>(Slots[Is])...))
      return E;
    cudaError_t Result = cudaSuccess;
    // In the order of Arrays: the same bits on every run.
    ((Result = Result ? Result
                      : sums<Is>(std::get<Array<Is>::Adjoint>(Refs), Indices,
                                 N, Slots[Is])),
     ...);
    return Result;
  }

  /// Zeroes \p Bytes of slots for \p N elements, unless each slot is
  /// stored once and every element has a thread (then NaN with
  /// MESHAD_DEBUG_SLOTS, so that a slot left unwritten shows).
  cudaError_t clearSlots(dim3 Grid, dim3 Block, long long N, void *Slots,
                         size_t Bytes) const {
    bool Covers = EveryLaunchCovers ||
                  static_cast<long long>(Grid.x) * Block.x >= N;
    if (!(StoresOnce && Covers))
      return cudaMemset(Slots, 0, Bytes);
#if defined(MESHAD_DEBUG_SLOTS)
    return cudaMemset(Slots, 0xff, Bytes);
#else
    return cudaSuccess;
#endif
  }

  /// Bytes of one element's slots of array \p I.
  static size_t sizeSlotsOf(size_t I) {
    constexpr std::array<size_t, NumArrays> Sizes{
        Arrays::C * Arrays::S *
        sizeof(std::remove_pointer_t<
               std::tuple_element_t<Arrays::Adjoint, std::tuple<P...>>>)...};
    return Sizes[I];
  }

  /// Phase 2 of array \p I: its slots summed into \p Adjoint per vertex.
  template <size_t I>
  cudaError_t sums(Value<I> *Adjoint,
                   const std::array<const int *, NumArrays> &Indices,
                   const std::array<long long, NumArrays> &N,
                   void *Slots) const {
    if (N[I] <= 0)
      return cudaSuccess;
    const runtime::Incidence &Inc = incidence(I, Indices, N);
    int V = Inc.numVertices();
    if (V == 0)
      return cudaSuccess;
    return launch(&slotSums<Value<I>, Array<I>::S>,
                  dim3((V + VertexBlock - 1) / VertexBlock), dim3(VertexBlock),
                  Inc.offsets(), Inc.slots(),
                  static_cast<const Value<I> *>(Slots), Adjoint, V);
  }

  /// The incidence of array \p I: an earlier array's of the same index
  /// array and count, else its own, built on first use.
  const runtime::Incidence &
  incidence(size_t I, const std::array<const int *, NumArrays> &Indices,
            const std::array<long long, NumArrays> &N) const {
    constexpr std::array<int, NumArrays> Arity{Arrays::C...};
    if (const runtime::Incidence *Mine = borrowed(Indices[I])) {
      if (Mine->numElements() != N[I] || Mine->arity() != Arity[I])
        detail::elementGradientError(
            Name, "the incidence passed to use_incidence() has " +
                      std::to_string(Mine->numElements()) +
                      " elements of arity " + std::to_string(Mine->arity()) +
                      ", the launch " + std::to_string(N[I]) + " of arity " +
                      std::to_string(Arity[I]) +
                      " (stale: rebuild it when the mesh changes)");
      return *Mine;
    }
    for (size_t J = 0; J < I; ++J)
      if (Indices[J] == Indices[I] && N[J] == N[I] && Arity[J] == Arity[I])
        return incidence(J, Indices, N);
    Entry &E = S->Entries[I];
    long NumIndices = static_cast<long>(N[I]) * Arity[I];
    try {
      if (!E.Built || E.Source != Indices[I]) {
        E.Own.rebuild(Indices[I], static_cast<int>(N[I]), Arity[I],
                      runtime::countVertices(Indices[I], NumIndices));
        E.Built = true;
        E.Source = Indices[I];
      }
      if (E.Own.numElements() != N[I])
        detail::elementGradientError(
            Name, "the incidence has " + std::to_string(E.Own.numElements()) +
                      " elements, the launch " + std::to_string(N[I]) +
                      " (stale: call connectivity_changed() when the mesh "
                      "changes)");
#if defined(MESHAD_DEBUG_INDICES)
      if (runtime::countVertices(Indices[I], NumIndices) >
          E.Own.numVertices())
        detail::elementGradientError(
            Name, "an index is not below the incidence's " +
                      std::to_string(E.Own.numVertices()) + " vertices");
#endif
      return E.Own;
    } catch (const runtime::MeshError &Err) {
      detail::elementGradientError(Name, Err.what());
    }
  }

  /// The caller's incidence for the index array \p Indices, or null.
  const runtime::Incidence *borrowed(const int *Indices) const {
    for (const auto &B : S->Borrowed)
      if (B.first == Indices)
        return B.second;
    return S->AnyIndices;
  }

  /// Array \p I's slot buffer of at least \p Bytes.
  void *slots(size_t I, size_t Bytes) const {
    Entry &E = S->Entries[I];
    if (E.Bytes < Bytes) {
      cudaFree(E.Slots);
      E.Slots = nullptr;
      E.Bytes = 0;
      if (cudaMalloc(&E.Slots, Bytes) != cudaSuccess)
        detail::elementGradientError(Name, "out of device memory for " +
                                               std::to_string(Bytes) +
                                               " bytes of slots");
      E.Bytes = Bytes;
    }
    return E.Slots;
  }

  template <class... Params, class... Args>
  cudaError_t launch(void (*Fn)(Params...), dim3 Grid, dim3 Block,
                     Args &&...A) const {
    return detail::launchKernel(Name, Fn, Grid, Block, 0, nullptr,
                                std::forward<Args>(A)...);
  }

  KernelPtr Kernel;
  std::array<CountFn, NumArrays> Counts;
  const char *Name;
  const char *Code;
  bool StoresOnce;
  bool EveryLaunchCovers;
  std::shared_ptr<State> S;
};

} // namespace meshad

#endif // MESHAD_ELEMENTGRADIENT_H
