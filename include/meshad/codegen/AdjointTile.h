//===- meshad/codegen/AdjointTile.h - Per-block adjoint tiles ------------*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A tile-exclusive adjoint (a stencil x[i-1], x[i], x[i+1] with i the 1D
/// global thread id) is accumulated per block in shared memory, without
/// atomics: every access is C*gid + d with d in [Lo, Hi], so each thread
/// owns one slot per offset d (row d - Lo, column threadIdx.x) and adds to
/// it plainly. At the end of the kernel the block sums, for each element of
/// its tile, the slots that hold its contributions in a fixed order, then
/// writes the element once: a plain += where no other block adds, one
/// atomicAdd for the halo that neighbouring blocks share. The sums do not
/// depend on thread scheduling: with adjoints that start at zero, repeated
/// runs give bitwise identical gradients.
///
/// Block b touches the elements C*b*blockDim.x + Lo + s for s in
/// [0, C*blockDim.x + Hi - Lo); slot s is shared with an earlier block when
/// s <= Hi - Lo - C and with a later one when s >= C*blockDim.x. When the
/// block has more threads than the tile has columns, the stores fall back
/// to atomicAdd on the adjoint itself (same result, slower). The kernel
/// checks for a 1D launch.
///
/// \code
///   __shared__ double _d_x_tile[3072];          // 3 offsets x 1024 threads
///   meshad::tileZero<1, -1, 1>(_d_x_tile);
///   ...
///   meshad::tileAdd<1, -1, 1>(_d_x_tile, _d_x, i - 1, v);
///   ...
///   meshad::tileWriteBack<1, -1, 1>(_d_x_tile, _d_x);
/// \endcode
///
/// Elements whose sum is zero are not written: they may lie outside the
/// array (a guarded stencil's first and last blocks).
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_ADJOINTTILE_H
#define MESHAD_ADJOINTTILE_H

#if defined(__CUDACC__) || defined(MESHAD_CPU_CUDA)

namespace meshad {
namespace detail {

/// True when this block's threads fit the tile's columns.
template <long long Rows, int N> __device__ inline bool tileFits() {
  return static_cast<long long>(blockDim.x) * Rows <= N;
}

} // namespace detail

/// Zeroes the tile; every thread of the block calls it (it ends with
/// __syncthreads).
template <long long C, long long Lo, long long Hi, class T, int N>
__device__ inline void tileZero(T (&Tile)[N]) {
  constexpr long long Rows = Hi - Lo + 1;
  if (detail::tileFits<Rows, N>())
    for (long long S = threadIdx.x, E = Rows * blockDim.x; S < E;
         S += blockDim.x)
      Tile[S] = T(0);
  __syncthreads();
}

/// Adds \p V to the adjoint element \p Index (= C*gid + d) through the
/// calling thread's slot for offset d.
template <long long C, long long Lo, long long Hi, class T, int N>
__device__ inline void tileAdd(T (&Tile)[N], T *Adjoint, long long Index,
                               T V) {
  constexpr long long Rows = Hi - Lo + 1;
  if (!detail::tileFits<Rows, N>()) {
    atomicAdd(&Adjoint[Index], V);
    return;
  }
  long long Gid = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  Tile[(Index - C * Gid - Lo) * blockDim.x + threadIdx.x] += V;
}

/// Adds the tile to \p Adjoint: plain += where no other block adds, one
/// atomicAdd per halo element. Every thread of the block calls it.
template <long long C, long long Lo, long long Hi, class T, int N>
__device__ inline void tileWriteBack(const T (&Tile)[N], T *Adjoint) {
  constexpr long long Rows = Hi - Lo + 1;
  if (!detail::tileFits<Rows, N>())
    return;
  __syncthreads();
  long long Threads = blockDim.x, Owned = C * Threads;
  long long Base = static_cast<long long>(blockIdx.x) * Owned + Lo;
  for (long long S = threadIdx.x; S < Owned + (Hi - Lo); S += Threads) {
    // Element Base + S = C*(block's first gid + t) + Lo + R.
    T Sum = T(0);
    for (long long R = 0; R < Rows; ++R) {
      long long Q = S - R;
      if (Q >= 0 && Q % C == 0 && Q / C < Threads)
        Sum += Tile[R * Threads + Q / C];
    }
    if (Sum == T(0))
      continue;
    if (S <= Hi - Lo - C || S >= Owned)
      atomicAdd(&Adjoint[Base + S], Sum);
    else
      Adjoint[Base + S] += Sum;
  }
}

/// The gather form of a tile-exclusive adjoint (lib/GPU/GatherTiles)
/// walks slots j = gid, gid + T, ... below gatherSlots<Lo, Hi>(T), T the
/// threads of the grid. Slot j < T is element j, so that a warp's elements
/// are aligned; the Hi - Lo slots after those are the elements that
/// threads reach past either end of the grid: [Lo, 0) and [T, T + Hi).
///
/// \code
///   for (long long j = gid; j < meshad::gatherSlots<-1, 1>(T); j += T) {
///     long long e = meshad::gatherElement<-1, 1>(j, T);
///     ... sum the contributions of threads e + 1, e, e - 1 to element e ...
///   }
/// \endcode
template <long long Lo, long long Hi>
__host__ __device__ inline long long gatherSlots(long long Threads) {
  constexpr long long Before = Lo < 0 ? -Lo : 0, After = Hi > 0 ? Hi : 0;
  return Threads + Before + After;
}

/// The element of gather slot \p J (see gatherSlots).
template <long long Lo, long long Hi>
__host__ __device__ inline long long gatherElement(long long J,
                                                  long long Threads) {
  constexpr long long Before = Lo < 0 ? -Lo : 0;
  if (J < Threads)
    return J;
  if (J - Threads < Before)
    return J - Threads - Before;
  return J - Before;
}

} // namespace meshad

#endif // __CUDACC__ || MESHAD_CPU_CUDA

#endif // MESHAD_ADJOINTTILE_H
