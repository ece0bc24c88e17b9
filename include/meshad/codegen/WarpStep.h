//===- meshad/codegen/WarpStep.h - Loops run in step across a warp -------*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Generated gradient kernels whose reverse loop adds, at each iteration, to
/// an adjoint element that is the same for every thread (the splat that all
/// pixels of a tile blend, GPU/BlockUniformReduce in the compiler) run that
/// loop in step across each warp: from the warp's largest trip count down,
/// the lanes past their own count (or outside the kernel's guard) idle
/// through the iteration. Each add of the body goes to a register with its
/// address; after the body the warp sums the register with shuffles and one
/// lane adds the sum with one atomicAdd per warp and iteration, as a
/// hand-written backward does. Every lane of the warp calls both functions
/// the same number of times (the loop's trip count is the warp's).
///
/// \code
///   int _steps = 0;
///   if (!_cond0) { ...; _steps = _cnt0; }
///   for (int _step = meshad::warpMaxSteps(_steps); _step > 0; --_step) {
///     double _d_w_sum = 0.;
///     double *_d_w_at = {};
///     if (_step <= _steps) {
///       ...; _d_w_at = &_d_w[2 * i]; _d_w_sum = -_r0; --_cnt0;
///     }
///     meshad::warpUniformAdds(_d_w_at, _d_w_sum); // (at, sum) pairs
///   }
/// \endcode
///
/// warpUniformAdds sums all the pairs of an iteration in one shuffle tree
/// (below); warpUniformAdd sums one. With the block form
/// (`-fplugin-arg-meshad-uniform-sums=block`) the loop runs in step across
/// the whole block instead: blockMaxSteps and blockUniformAdds, one
/// atomicAdd per block and iteration (below).
///
/// Works on the GPU and under the CPU emulation (include/meshad/cpu), whose
/// warp functions wait for every lane of their mask.
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_WARPSTEP_H
#define MESHAD_WARPSTEP_H

#if defined(__CUDACC__) || defined(MESHAD_CPU_CUDA)

// Full unrolling keeps the small arrays of warpUniformAdds in registers
// (the compilers fully unroll them anyway; the pragma makes it explicit).
#if defined(__clang__) || defined(__CUDACC__)
#define MESHAD_UNROLL _Pragma("unroll")
#else
#define MESHAD_UNROLL
#endif

namespace meshad {
namespace detail {

/// The calling thread's lane, and the mask of the lanes its warp has (a
/// block's last warp may be partial; lanes are numbered in the block's
/// linear thread order, x fastest).
__device__ inline unsigned warpLanes(unsigned &Lane) {
  unsigned Tid =
      threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  unsigned Threads = blockDim.x * blockDim.y * blockDim.z;
  Lane = Tid % 32;
  unsigned Left = Threads - (Tid - Lane);
  return Left >= 32 ? 0xffffffffu : (1u << Left) - 1u;
}

} // namespace detail

/// The largest \p N over the lanes of the warp: the trip count of a loop
/// run in step. Every lane of the warp calls it.
__device__ inline int warpMaxSteps(int N) {
  unsigned Lane;
  unsigned Mask = detail::warpLanes(Lane);
  for (unsigned Off = 16; Off > 0; Off /= 2) {
    int Other = __shfl_down_sync(Mask, N, Off);
    if (Lane + Off < 32 && ((Mask >> (Lane + Off)) & 1u) && Other > N)
      N = Other;
  }
  return __shfl_sync(Mask, N, 0);
}

namespace detail {

/// The warp's part of a uniform add: the sum of \p V over the lanes whose
/// \p At is set, returned in lane 0 with the common address (null in every
/// lane when no lane is set or the sum went out already). Should the set
/// lanes name different elements, each adds its own value atomically and
/// null is returned. Every lane of the warp calls it.
template <class T>
__device__ inline T *warpUniformSum(T *At, T &V, unsigned Mask,
                                    unsigned Lane) {
  unsigned Set = __ballot_sync(Mask, At != nullptr);
  if (Set == 0)
    return nullptr;
  auto Addr = reinterpret_cast<unsigned long long>(At);
  unsigned long long First = __shfl_sync(Mask, Addr, __ffs(int(Set)) - 1);
  if (!__all_sync(Mask, !At || Addr == First)) {
    if (At)
      atomicAdd(At, V);
    return nullptr;
  }
  if (!At)
    V = T(0);
  for (unsigned Off = 16; Off > 0; Off /= 2) {
    T Other = __shfl_down_sync(Mask, V, Off);
    if (Lane + Off < 32 && ((Mask >> (Lane + Off)) & 1u))
      V += Other;
  }
  return reinterpret_cast<T *>(First);
}

} // namespace detail

/// Adds the sum of \p V over the lanes of the warp whose \p At is set to
/// \p *At (the same element in every such lane), with one atomicAdd; lanes
/// whose \p At is null add nothing. Nothing is added when no lane is set or
/// the sum is zero. Should the set lanes name different elements after all,
/// each adds its own value atomically: the result never depends on the
/// compiler's proof, only the speed does. Every lane of the warp calls it.
template <class T> __device__ inline void warpUniformAdd(T *At, T V) {
  unsigned Lane;
  unsigned Mask = detail::warpLanes(Lane);
  T *Sum = detail::warpUniformSum(At, V, Mask, Lane);
  if (Lane == 0 && Sum && V != T(0))
    atomicAdd(Sum, V);
}

//===--- The block form: one atomicAdd per block and iteration -----------===//
//
// The same loop run in step across the whole block (every thread of the
// block reaches it once: it is at the kernel's top level and the kernel has
// no return): its trip count is the block's largest (blockMaxSteps), and
// after the body blockUniformAdds sums each add per warp with shuffles,
// the warps' sums in shared memory, and one thread per add adds the block's
// sum with one atomicAdd. One __syncthreads per iteration: the warps' sums
// of iteration s go to buffer s % 2, which the summing threads read before
// they reach the next iteration's barrier, and which is written again only
// after it.
//
//   for (int _step = meshad::blockMaxSteps(_steps); _step > 0; --_step) {
//     double _d_w_sum = 0.;
//     double *_d_w_at = {};
//     if (_step <= _steps) { ...; _d_w_at = &_d_w[2 * i]; ... }
//     meshad::blockUniformAdds(_step, _d_w_at, _d_w_sum);
//   }

namespace detail {

__device__ inline unsigned blockThreads(unsigned &Tid) {
  Tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  return blockDim.x * blockDim.y * blockDim.z;
}

/// The warps' sums and addresses of \p Sites adds, double-buffered.
template <class T, unsigned Sites> struct BlockSlots {
  T Sum[2][Sites][32];
  T *At[2][Sites][32];
};

template <class T, unsigned Sites>
__device__ inline BlockSlots<T, Sites> &blockSlots() {
  __shared__ BlockSlots<T, Sites> Slots;
  return Slots;
}

template <class T> __device__ __forceinline__ void unpackAdds(T **, T *) {}

template <class T, class... Rest>
__device__ __forceinline__ void unpackAdds(T **At, T *V, T *A, T X, Rest... R) {
  *At = A;
  *V = X;
  unpackAdds<T>(At + 1, V + 1, R...);
}

/// Sums the warps' entries of one add (those naming the first set warp's
/// element; any other adds its own atomically) and adds the block's sum.
template <class T>
__device__ inline void addBlockSum(T *const *At, const T *Sum,
                                   unsigned Warps) {
  T *First = nullptr;
  T Total = T(0);
  for (unsigned W = 0; W < Warps; ++W) {
    if (!At[W])
      continue;
    if (!First)
      First = At[W];
    if (At[W] == First)
      Total += Sum[W];
    else if (Sum[W] != T(0))
      atomicAdd(At[W], Sum[W]);
  }
  if (First && Total != T(0))
    atomicAdd(First, Total);
}

} // namespace detail

/// The largest \p N over the threads of the block: the trip count of a loop
/// run in step across the block. Every thread of the block calls it.
__device__ inline int blockMaxSteps(int N) {
  __shared__ int Max;
  unsigned Tid;
  detail::blockThreads(Tid);
  if (Tid == 0)
    Max = 0;
  __syncthreads();
  atomicMax(&Max, N);
  __syncthreads();
  int Steps = Max;
  __syncthreads();
  return Steps;
}

/// For each pair (At, V) of \p Adds, as warpUniformAdd but one atomicAdd
/// per block: the warps' sums meet in shared memory after one
/// __syncthreads. \p Step is the in-step loop's counter (it picks the
/// buffer). Every thread of the block calls it, the same number of times.
template <class T, class... Rest>
__device__ inline void blockUniformAdds(int Step, T *At, T V, Rest... Adds) {
  constexpr unsigned Sites = 1 + sizeof...(Rest) / 2;
  T *Ats[Sites];
  T Vs[Sites];
  detail::unpackAdds<T>(Ats, Vs, At, V, Adds...);
  detail::BlockSlots<T, Sites> &Slots = detail::blockSlots<T, Sites>();
  unsigned Lane, Tid;
  unsigned Mask = detail::warpLanes(Lane);
  unsigned Threads = detail::blockThreads(Tid);
  unsigned Warps = (Threads + 31) / 32, Buf = unsigned(Step) & 1u;
  for (unsigned S = 0; S < Sites; ++S) {
    T *Sum = detail::warpUniformSum(Ats[S], Vs[S], Mask, Lane);
    if (Lane == 0) {
      Slots.At[Buf][S][Tid / 32] = Sum;
      Slots.Sum[Buf][S][Tid / 32] = Vs[S];
    }
  }
  __syncthreads();
  for (unsigned S = Tid; S < Sites; S += Threads)
    detail::addBlockSum(Slots.At[Buf][S], Slots.Sum[Buf][S], Warps);
}

//===--- Several adds of one iteration in one shuffle tree ----------------===//
//
// warpUniformAdds(At0, V0, At1, V1, ...) does what one warpUniformAdd per
// pair does, for all the adds of an iteration at once (the nine gradients of
// a splat): a warp whose lanes all add zero skips the iteration (one vote);
// the addresses are checked once (a ballot and a broadcast per add, one vote
// for all); and the N values are summed in one reduce-scatter tree, each
// level exchanging half of the values still held (N = 9: 5 + 3 + 2 + 1 + 1
// shuffles instead of 9 x 5), which leaves the warp's sum of add j in one
// lane, which adds it with its own atomicAdd (the lanes' atomics go out in
// one instruction rather than N from lane 0). A partial warp, or set lanes
// naming different elements, take the per-pair path.

namespace detail {

/// One level of the reduce-scatter tree: the lanes of each pair (lanes
/// \p Off apart) hold values [0, Count) of a group; the lower lane keeps the
/// sums of [0, Half), the upper one those of [Half, Count) (moved to
/// [0, Count - Half); a zero pads an odd Count). Once one value is left,
/// the remaining levels sum it over the pairs.
template <class T, unsigned N, unsigned Count, unsigned Off>
__device__ __forceinline__ void scatterLevel(T (&V)[N], unsigned Lane) {
  if constexpr (Off > 0) {
    constexpr unsigned Half = (Count + 1) / 2;
    const bool Upper = Count > 1 && (Lane & Off) != 0;
    MESHAD_UNROLL
    for (unsigned I = 0; I < Half; ++I) {
      T Lo = V[I];
      T Hi = I + Half < Count ? V[I + Half] : T(0);
      T Got = __shfl_xor_sync(0xffffffffu, Count > 1 && !Upper ? Hi : Lo,
                              int(Off));
      V[I] = (Upper ? Hi : Lo) + Got;
    }
    scatterLevel<T, N, Half, Off / 2>(V, Lane);
  }
}

/// Which sum the lane holds after scatterLevel<T, N, Count, Off>: \p Index,
/// or none (false: a padding zero, or a lane whose pair partner holds it).
/// \p Real: how many values of the lane's group are real (not padding).
template <unsigned Count, unsigned Off = 16>
__device__ __forceinline__ bool scatterSlot(unsigned Lane, unsigned &Index,
                                            unsigned Real) {
  if constexpr (Off == 0) {
    return Real > 0;
  } else if constexpr (Count > 1) {
    constexpr unsigned Half = (Count + 1) / 2;
    if ((Lane & Off) != 0) {
      Index += Half;
      Real = Real > Half ? Real - Half : 0;
    } else if (Real > Half) {
      Real = Half;
    }
    return scatterSlot<Half, Off / 2>(Lane, Index, Real);
  } else {
    return (Lane & Off) == 0 && scatterSlot<1, Off / 2>(Lane, Index, Real);
  }
}

/// The rare paths of warpUniformAdds, out of line (and given the pairs by
/// value) so that the hot path keeps its arrays in registers: a partial warp
/// sums each pair on its own (\p Full false); on a full warp, set lanes
/// naming different elements add their own values.
template <class T, class... Rest>
__device__ __attribute__((noinline)) void
warpUniformAddsSlow(bool Full, T *At, T V, Rest... Adds) {
  constexpr unsigned N = 1 + sizeof...(Rest) / 2;
  T *Ats[N];
  T Vs[N];
  unpackAdds<T>(Ats, Vs, At, V, Adds...);
  for (unsigned J = 0; J < N; ++J) {
    if (!Full)
      warpUniformAdd(Ats[J], Vs[J]);
    else if (Ats[J] && Vs[J] != T(0))
      atomicAdd(Ats[J], Vs[J]);
  }
}

/// The full warp's pairs: zero-skip, address check, one tree. Returns false
/// when the set lanes name different elements (nothing added then).
template <class T, unsigned N>
__device__ __forceinline__ bool warpUniformAddsFull(T *(&At)[N], T (&V)[N],
                                                    unsigned Lane) {
  bool Any = false;
MESHAD_UNROLL
  for (unsigned J = 0; J < N; ++J) {
    if (!At[J])
      V[J] = T(0);
    Any |= V[J] != T(0);
  }
  if (!__any_sync(0xffffffffu, Any))
    return true; // the whole warp adds zero (lanes stopped early, skipped)
  unsigned Index = 0;
  const bool Holder = scatterSlot<N>(Lane, Index, N);
  bool Same = true;
  T *Sum = nullptr; // the address of the sum this lane will hold
  MESHAD_UNROLL
  for (unsigned J = 0; J < N; ++J) {
    unsigned Set = __ballot_sync(0xffffffffu, At[J] != nullptr);
    if (Set == 0)
      continue;
    auto Mine = reinterpret_cast<unsigned long long>(At[J]);
    unsigned long long Lead =
        __shfl_sync(0xffffffffu, Mine, __ffs(int(Set)) - 1);
    Same &= !At[J] || Mine == Lead;
    if (J == Index)
      Sum = reinterpret_cast<T *>(Lead);
  }
  if (!__all_sync(0xffffffffu, Same))
    return false;
  scatterLevel<T, N, N, 16>(V, Lane);
  if (Holder && Sum && V[0] != T(0))
    atomicAdd(Sum, V[0]);
  return true;
}

} // namespace detail

/// For each pair (At, V) of \p Adds, what warpUniformAdd(At, V) does, in
/// one reduce-scatter tree for all the pairs (see above). Every lane of the
/// warp calls it, with the same number of pairs of one type T.
template <class T, class... Rest>
__device__ __forceinline__ void warpUniformAdds(T *At, T V, Rest... Adds) {
  constexpr unsigned N = 1 + sizeof...(Rest) / 2;
  static_assert(N <= 32, "at most 32 adds in one tree");
  T *Ats[N];
  T Vs[N];
  detail::unpackAdds<T>(Ats, Vs, At, V, Adds...);
  unsigned Lane;
  bool Full = detail::warpLanes(Lane) == 0xffffffffu;
  if (Full && detail::warpUniformAddsFull<T, N>(Ats, Vs, Lane))
    return;
  detail::warpUniformAddsSlow(Full, At, V, Adds...);
}

//===--- Adds addressed through one key per iteration ---------------------===//
//
// When every add of the iteration goes to Base[Scale * key + Offset] for
// one integer local `key` of the loop body (the Gaussian's `id`: means[2 *
// id + 1], conics[3 * id], opacities[id]...), the generated loop keeps that
// key in one register instead of an address per add, and
//
//   meshad::warpKeyedAdds(_key, _d_means, 2, 0, _d_means_sum, ...)
//
// (quadruples: the adjoint array, Scale, Offset, the value) checks one
// thing per iteration: that the lanes adding anything nonzero hold the same
// key (a ballot, one shuffle of the first such lane's key, one vote), where
// warpUniformAdds checks each address (a ballot and a 64-bit broadcast per
// add). The ballot is also the zero-skip vote. A lane whose values are all
// zero adds nothing wherever its key points, so its key is not checked;
// the lane holding sum j adds it at Base_j[Scale_j * lead + Offset_j], the
// lead lane's key. Keys that differ (should the compiler's proof be wrong),
// or a partial warp, take the out-of-line path: each lane's nonzero values
// at its own addresses.

namespace detail {

template <class T> __device__ __forceinline__ void unpackKeyed(T **, int *, T *) {}

template <class T, class... Rest>
__device__ __forceinline__ void unpackKeyed(T **Base, int *Form, T *V, T *B,
                                            int Scale, int Offset, T X,
                                            Rest... R) {
  *Base = B;
  Form[0] = Scale;
  Form[1] = Offset;
  *V = X;
  unpackKeyed<T>(Base + 1, Form + 2, V + 1, R...);
}

/// The rare paths of warpKeyedAdds, out of line: each lane's nonzero
/// values at its own addresses, summed per pair on a partial warp (\p Full
/// false), added atomically on a full warp whose keys differ.
template <class K, class T, class... Rest>
__device__ __attribute__((noinline)) void
warpKeyedAddsSlow(bool Full, K Key, T *Base, int Scale, int Offset, T V,
                  Rest... Adds) {
  constexpr unsigned N = 1 + sizeof...(Rest) / 4;
  T *Bases[N];
  int Forms[2 * N];
  T Vs[N];
  unpackKeyed<T>(Bases, Forms, Vs, Base, Scale, Offset, V, Adds...);
  for (unsigned J = 0; J < N; ++J) {
    T *At = Vs[J] != T(0) ? Bases[J] + (Forms[2 * J] * Key + Forms[2 * J + 1])
                          : nullptr;
    if (!Full)
      warpUniformAdd(At, Vs[J]);
    else if (At)
      atomicAdd(At, Vs[J]);
  }
}

} // namespace detail

/// Adds, for each quadruple (Base, Scale, Offset, V) of \p Adds, the sum of
/// \p V over the lanes of the warp to Base[Scale * Key + Offset], the
/// lanes' \p Key being the same wherever V is nonzero (see above); one
/// reduce-scatter tree for all the values. Every lane of the warp calls it,
/// with the same number of quadruples of one type T.
template <class K, class T, class... Rest>
__device__ __forceinline__ void warpKeyedAdds(K Key, T *Base, int Scale,
                                              int Offset, T V, Rest... Adds) {
  constexpr unsigned N = 1 + sizeof...(Rest) / 4;
  static_assert(sizeof...(Rest) % 4 == 0, "quadruples (Base, Scale, Offset, V)");
  static_assert(N <= 32, "at most 32 adds in one tree");
  T *Bases[N];
  int Forms[2 * N];
  T Vs[N];
  detail::unpackKeyed<T>(Bases, Forms, Vs, Base, Scale, Offset, V, Adds...);
  unsigned Lane;
  const bool Full = detail::warpLanes(Lane) == 0xffffffffu;
  if (Full) {
    bool Any = false;
    MESHAD_UNROLL
    for (unsigned J = 0; J < N; ++J)
      Any |= Vs[J] != T(0);
    unsigned Live = __ballot_sync(0xffffffffu, Any);
    if (Live == 0)
      return; // the whole warp adds zero (lanes stopped early, skipped)
    K Lead = __shfl_sync(0xffffffffu, Key, __ffs(int(Live)) - 1);
    if (__all_sync(0xffffffffu, !Any || Key == Lead)) {
      unsigned Index = 0;
      const bool Holder = detail::scatterSlot<N>(Lane, Index, N);
      detail::scatterLevel<T, N, N, 16>(Vs, Lane);
      T *At = nullptr;
      MESHAD_UNROLL
      for (unsigned J = 0; J < N; ++J)
        if (J == Index)
          At = Bases[J] + (Forms[2 * J] * Lead + Forms[2 * J + 1]);
      if (Holder && Vs[0] != T(0))
        atomicAdd(At, Vs[0]);
      return;
    }
  }
  detail::warpKeyedAddsSlow(Full, Key, Base, Scale, Offset, V, Adds...);
}

} // namespace meshad

#endif // __CUDACC__ || MESHAD_CPU_CUDA

#endif // MESHAD_WARPSTEP_H
