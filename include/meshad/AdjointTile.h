//===- meshad/AdjointTile.h - Per-block adjoint tiles ------------*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A tile-exclusive adjoint (a stencil x[i-1], x[i], x[i+1] with i the 1D
/// global thread id) is accumulated per block in shared memory: the block's
/// threads add to the tile with shared-memory atomics, then write the tile
/// out once per element. Elements that no other block touches get a plain
/// +=, the halo that neighbouring blocks share one atomicAdd each.
///
/// Every access is Stride*gid + d with d in [Lo, Hi]; block b touches the
/// elements Stride*b*blockDim.x + Lo + s for s in [0, Stride*blockDim.x +
/// Hi - Lo). Slot s is shared with an earlier block when s <= Hi - Lo -
/// Stride and with a later one when s >= Stride*blockDim.x. The tile is sized
/// for blockDim.x <= 1024 and the kernel checks for a 1D launch.
///
/// \code
///   __shared__ double _d_x_tile[1026];           // 1*1024 + (1 - -1)
///   meshad::tileZero(_d_x_tile, 1, -1, 1);
///   ...
///   atomicAdd(&_d_x_tile[(long long)(i + 1) - meshad::tileBase(1, -1)], v);
///   ...
///   meshad::tileWriteBack(_d_x, _d_x_tile, 1, -1, 1);
/// \endcode
///
/// Slots that no thread added to (zero) are skipped: they may lie outside
/// the array (a guarded stencil's first and last block).
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_ADJOINTTILE_H
#define MESHAD_ADJOINTTILE_H

#if defined(__CUDACC__) || defined(MESHAD_CPU_CUDA)

namespace meshad {

/// The element of slot 0 of this block's tile.
__device__ inline long long tileBase(long long Stride, long long Lo) {
  return static_cast<long long>(blockIdx.x) * blockDim.x * Stride + Lo;
}

/// Number of slots this block's tile uses.
__device__ inline long long tileSlots(long long Stride, long long Lo,
                                      long long Hi) {
  return Stride * static_cast<long long>(blockDim.x) + (Hi - Lo);
}

/// Zeroes the slots of \p Tile that this block uses; every thread of the
/// block calls it (it ends with __syncthreads).
template <class T>
__device__ inline void tileZero(T *Tile, long long Stride, long long Lo,
                                long long Hi) {
  for (long long S = threadIdx.x, N = tileSlots(Stride, Lo, Hi); S < N;
       S += blockDim.x)
    Tile[S] = T(0);
  __syncthreads();
}

/// Adds \p Tile to \p Adjoint: plain += where no other block adds, one
/// atomicAdd per halo element. Every thread of the block calls it.
template <class T>
__device__ inline void tileWriteBack(T *Adjoint, const T *Tile,
                                     long long Stride, long long Lo,
                                     long long Hi) {
  __syncthreads();
  long long Base = tileBase(Stride, Lo), Owned = Stride * blockDim.x;
  for (long long S = threadIdx.x, N = tileSlots(Stride, Lo, Hi); S < N;
       S += blockDim.x) {
    T V = Tile[S];
    if (V == T(0))
      continue;
    if (S <= Hi - Lo - Stride || S >= Owned)
      atomicAdd(&Adjoint[Base + S], V);
    else
      Adjoint[Base + S] += V;
  }
}

} // namespace meshad

#endif // __CUDACC__ || MESHAD_CPU_CUDA

#endif // MESHAD_ADJOINTTILE_H
