//===- meshad/codegen/WarpAtomics.h - Warp-aggregated atomic adds --------*- C++ -*-===//
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
/// Under the CPU emulation (include/meshad/cpu) it is a plain atomicAdd: the
/// emulation cannot tell which lanes are converged at a call.
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_WARPATOMICS_H
#define MESHAD_WARPATOMICS_H

#if defined(__CUDACC__) || defined(MESHAD_CPU_CUDA)

namespace meshad {

/// Adds \p V to \p *Addr with one atomicAdd per warp and distinct address.
template <class T> __device__ inline void warpAtomicAdd(T *Addr, T V) {
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
    if (Lane == 0)
      atomicAdd(Addr, V);
    return;
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
  if (Lane == static_cast<unsigned>(__ffs(static_cast<int>(Peers)) - 1))
    atomicAdd(Addr, V);
#else
  atomicAdd(Addr, V);
#endif
}

} // namespace meshad

#endif // __CUDACC__ || MESHAD_CPU_CUDA

#endif // MESHAD_WARPATOMICS_H
