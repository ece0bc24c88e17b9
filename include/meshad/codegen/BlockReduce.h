//===- meshad/codegen/BlockReduce.h - One atomic per block ---------------*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Generated gradient kernels call this once, at their end, for an adjoint
/// that every thread adds to (a kernel's scalar parameter): each thread sums
/// its contributions in a register, then the block sums them with warp
/// shuffles and shared memory, and one thread per block adds the total
/// atomically. Every thread of the block must call it (generated kernels call
/// it at their end, where no thread has returned).
///
/// \code
///   double _d_k_part = 0.;         // this thread's contributions
///   ...                            // _d_k_part += ...
///   meshad::blockReduceAtomicAdd(_d_k, _d_k_part);
/// \endcode
///
/// Works on the GPU and under the CPU emulation (include/meshad/cpu).
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_BLOCKREDUCE_H
#define MESHAD_BLOCKREDUCE_H

#if defined(__CUDACC__) || defined(MESHAD_CPU_CUDA)

namespace meshad {
namespace detail {

/// Sums V over the lanes of \p Mask (contiguous from lane 0: the lanes that
/// exist in a warp at a convergent point); lane 0 gets the total.
template <class T>
__device__ inline T warpSum(T V, unsigned Mask, unsigned Lane) {
  for (unsigned Off = 16; Off > 0; Off /= 2) {
    T Other = __shfl_down_sync(Mask, V, Off);
    if (Lane + Off < 32 && ((Mask >> (Lane + Off)) & 1u))
      V += Other;
  }
  return V;
}

} // namespace detail

/// Adds the sum of \p V over the threads of the block to \p *Target with one
/// atomicAdd per block.
template <class T>
__device__ inline void blockReduceAtomicAdd(T *Target, T V) {
  __shared__ T Partials[32];
  unsigned Tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  unsigned Threads = blockDim.x * blockDim.y * blockDim.z;
  unsigned Lane = Tid % 32, Warp = Tid / 32, Warps = (Threads + 31) / 32;
  V = detail::warpSum(V, __activemask(), Lane);
  if (Lane == 0)
    Partials[Warp] = V;
  __syncthreads();
  if (Warp == 0) {
    V = Lane < Warps ? Partials[Lane] : T(0);
    V = detail::warpSum(V, __activemask(), Lane);
    if (Lane == 0)
      atomicAdd(Target, V);
  }
  // Partials is reused by the next call.
  __syncthreads();
}

} // namespace meshad

#endif // __CUDACC__ || MESHAD_CPU_CUDA

#endif // MESHAD_BLOCKREDUCE_H
