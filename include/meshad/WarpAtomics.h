//===- meshad/WarpAtomics.h - Warp-aggregated atomic adds --------*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Generated gradient kernels add to adjoints whose address is the same in
/// every thread at a given point but not known at compile time (p[5*k + c]
/// with k a loop counter: the splats that every pixel of an image blends)
/// through warpAtomicAdd: the lanes that call it together are grouped by
/// address (__match_any_sync), each group sums its values with shuffles in
/// log2(group size) steps, and one lane per group adds the sum atomically.
/// With one address per warp that is 32 times fewer atomics. It is correct
/// for any addresses (each group adds its own sum), so it never depends on a
/// proof of uniformity; the proof only says that it pays off.
///
/// \code
///   meshad::warpAtomicAdd(&_d_p[5 * k + 2], _r3);   // instead of atomicAdd
/// \endcode
///
/// In a gradient kernel, cachedAtomicAdd goes one step further: the warp's
/// sum goes into a per-block shared-memory slot of the element
/// (AtomicCache), and the block adds each element to global memory once, at
/// the end of the kernel.
///
/// Under the CPU emulation (include/meshad/cpu) each lane adds alone: the
/// emulation cannot tell which lanes are converged at a call.
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_WARPATOMICS_H
#define MESHAD_WARPATOMICS_H

#if defined(__CUDACC__) || defined(MESHAD_CPU_CUDA)

namespace meshad {

/// Adds \p V to \p *Addr with one atomicAdd per warp and distinct address.
/// Sums \p V over the active lanes of the warp that pass the same \p Addr.
/// Returns true in one lane per address (the lowest), which then holds the
/// group's sum in \p V; the other lanes' V is a partial sum.
template <class T> __device__ inline bool warpAggregate(T *Addr, T &V) {
#if defined(__CUDA_ARCH__)
  unsigned Lane;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(Lane));
  unsigned Active = __activemask();
  unsigned Peers =
      __match_any_sync(Active, reinterpret_cast<unsigned long long>(Addr));
  if (Peers == 0xffffffffu) {
    // The whole warp, one address: a butterfly sum.
    for (unsigned Off = 16; Off > 0; Off /= 2)
      V += __shfl_xor_sync(0xffffffffu, V, Off);
    return Lane == 0;
  }
  // Pairwise tree over each group's lanes in lane order: in every step a
  // remaining lane adds the partial sum of the next remaining lane of its
  // group, then the lanes at odd positions drop out.
  unsigned Rank = __popc(Peers & ((1u << Lane) - 1u));
  unsigned Higher = Peers & ~((2u << Lane) - 1u);
  while (__any_sync(Active, Higher)) {
    int Next = __ffs(static_cast<int>(Higher));
    T Other = __shfl_sync(Active, V, Next ? Next - 1 : static_cast<int>(Lane));
    if (Next)
      V += Other;
    Higher &= __ballot_sync(Active, !(Rank & 1u));
    Rank >>= 1;
  }
  return Lane == static_cast<unsigned>(__ffs(static_cast<int>(Peers)) - 1);
#else
  (void)Addr;
  (void)V;
  return true;
#endif
}

/// One atomicAdd per warp and address (see warpAggregate).
template <class T> __device__ inline void warpAtomicAdd(T *Addr, T V) {
  if (warpAggregate(Addr, V))
    atomicAdd(Addr, V);
}

/// A block's sums of adjoint elements that all its threads add to (uniform
/// symbolic addresses: the parameters of the splat every pixel blends at
/// step k), kept in shared memory until the end of the kernel, so that the
/// block adds each element to global memory once instead of once per warp.
/// Direct-mapped by address: an element whose slot another element took
/// first goes straight to global memory (warp-aggregated).
///
/// \code
///   __shared__ meshad::AtomicCache<double, 512> _d_p_cache;
///   meshad::atomicCacheZero(_d_p_cache);            // every thread
///   ...
///   meshad::cachedAtomicAdd(_d_p_cache, &_d_p[5 * k + 4], v);
///   ...
///   meshad::atomicCacheFlush(_d_p_cache);           // every thread, at the end
/// \endcode
template <class T, int Slots> struct AtomicCache {
  unsigned long long Tag[Slots];
  T Sum[Slots];
};

namespace detail {
__device__ inline unsigned blockThreadRank() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
__device__ inline unsigned blockThreads() {
  return blockDim.x * blockDim.y * blockDim.z;
}
} // namespace detail

/// Empties the cache; every thread of the block calls it (it ends with
/// __syncthreads).
template <class T, int Slots>
__device__ inline void atomicCacheZero(AtomicCache<T, Slots> &C) {
  for (unsigned S = detail::blockThreadRank(); S < Slots;
       S += detail::blockThreads()) {
    C.Tag[S] = 0;
    C.Sum[S] = T(0);
  }
  __syncthreads();
}

/// Adds \p V to \p *Addr through the block's cache: summed per warp, then
/// into the element's shared slot.
template <class T, int Slots>
__device__ inline void cachedAtomicAdd(AtomicCache<T, Slots> &C, T *Addr,
                                       T V) {
  if (!warpAggregate(Addr, V))
    return;
  unsigned long long Key = reinterpret_cast<unsigned long long>(Addr);
  unsigned S = static_cast<unsigned>((Key / sizeof(T)) % Slots);
  unsigned long long Old = atomicCAS(&C.Tag[S], 0ull, Key);
  if (Old == 0 || Old == Key)
    atomicAdd(&C.Sum[S], V);
  else
    atomicAdd(Addr, V);
}

/// Adds the cached sums to global memory, one atomicAdd per element; every
/// thread of the block calls it at the end of the kernel.
template <class T, int Slots>
__device__ inline void atomicCacheFlush(AtomicCache<T, Slots> &C) {
  __syncthreads();
  for (unsigned S = detail::blockThreadRank(); S < Slots;
       S += detail::blockThreads())
    if (C.Tag[S] != 0)
      atomicAdd(reinterpret_cast<T *>(C.Tag[S]), C.Sum[S]);
}

} // namespace meshad

#endif // __CUDACC__ || MESHAD_CPU_CUDA

#endif // MESHAD_WARPATOMICS_H
