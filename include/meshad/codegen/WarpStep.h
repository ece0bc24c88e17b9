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
///     meshad::warpUniformAdd(_d_w_at, _d_w_sum);
///   }
/// \endcode
///
/// Works on the GPU and under the CPU emulation (include/meshad/cpu), whose
/// warp functions wait for every lane of their mask.
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_WARPSTEP_H
#define MESHAD_WARPSTEP_H

#if defined(__CUDACC__) || defined(MESHAD_CPU_CUDA)

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

/// Adds the sum of \p V over the lanes of the warp whose \p At is set to
/// \p *At (the same element in every such lane), with one atomicAdd; lanes
/// whose \p At is null add nothing. Nothing is added when no lane is set or
/// the sum is zero. Should the set lanes name different elements after all,
/// each adds its own value atomically: the result never depends on the
/// compiler's proof, only the speed does. Every lane of the warp calls it.
template <class T> __device__ inline void warpUniformAdd(T *At, T V) {
  unsigned Lane;
  unsigned Mask = detail::warpLanes(Lane);
  unsigned Set = __ballot_sync(Mask, At != nullptr);
  if (Set == 0)
    return;
  auto Addr = reinterpret_cast<unsigned long long>(At);
  unsigned long long First = __shfl_sync(Mask, Addr, __ffs(int(Set)) - 1);
  if (!__all_sync(Mask, !At || Addr == First)) {
    if (At)
      atomicAdd(At, V);
    return;
  }
  if (!At)
    V = T(0);
  for (unsigned Off = 16; Off > 0; Off /= 2) {
    T Other = __shfl_down_sync(Mask, V, Off);
    if (Lane + Off < 32 && ((Mask >> (Lane + Off)) & 1u))
      V += Other;
  }
  if (Lane == 0 && V != T(0))
    atomicAdd(reinterpret_cast<T *>(First), V);
}

} // namespace meshad

#endif // __CUDACC__ || MESHAD_CPU_CUDA

#endif // MESHAD_WARPSTEP_H
