//===- meshad/cpu/Synchronization.h - Barriers, warp functions --*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// __syncthreads (and its _count/_and/_or forms), __syncwarp, the shuffles,
/// the votes and the memory fences, on the fibers of BlockScheduler.h. A warp
/// function waits until every lane of its mask (lanes beyond the end of the
/// block excepted) called a warp function with the same mask, as on Volta
/// and later GPUs. Part of meshad/cpu/CudaOnCpu.h.
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_CPU_SYNCHRONIZATION_H
#define MESHAD_CPU_SYNCHRONIZATION_H

// A system header for the meshad plugin: the emulated CUDA API (atomicAdd,
// make_float3...) stays an intrinsic instead of user code to differentiate.
#if defined(__clang__)
#pragma clang system_header
#endif

#include <atomic>
#include <cstring>
#include <type_traits>

inline void __syncthreads() {
  meshad::cpu::detail::activeRunner("__syncthreads()")
      .syncThreads(0, "__syncthreads()");
}
inline int __syncthreads_count(int Predicate) {
  return int(meshad::cpu::detail::activeRunner("__syncthreads_count()")
                 .syncThreads(Predicate, "__syncthreads_count()"));
}
inline int __syncthreads_and(int Predicate) {
  return meshad::cpu::detail::activeRunner("__syncthreads_and()")
             .syncThreads(Predicate, "__syncthreads_and()") ==
         blockDim.x * blockDim.y * blockDim.z;
}
inline int __syncthreads_or(int Predicate) {
  return meshad::cpu::detail::activeRunner("__syncthreads_or()")
             .syncThreads(Predicate, "__syncthreads_or()") != 0;
}

/// All fibers of a block run on one OS thread: ordering within a block is
/// sequential consistency already; a full fence covers parallel launches.
inline void __threadfence_block() {
  std::atomic_thread_fence(std::memory_order_seq_cst);
}
inline void __threadfence() {
  std::atomic_thread_fence(std::memory_order_seq_cst);
}
inline void __threadfence_system() {
  std::atomic_thread_fence(std::memory_order_seq_cst);
}

inline void __syncwarp(unsigned Mask = 0xffffffffu) {
  meshad::cpu::detail::activeRunner("__syncwarp()")
      .warpExchange(meshad::cpu::detail::WarpOp::Sync, Mask, 0, 0,
                    "__syncwarp()");
}

inline unsigned __ballot_sync(unsigned Mask, int Predicate) {
  return unsigned(meshad::cpu::detail::activeRunner("__ballot_sync()")
                      .warpExchange(meshad::cpu::detail::WarpOp::Vote, Mask, 0,
                                    Predicate != 0, "__ballot_sync()"));
}
inline int __any_sync(unsigned Mask, int Predicate) {
  return unsigned(meshad::cpu::detail::activeRunner("__any_sync()")
                      .warpExchange(meshad::cpu::detail::WarpOp::Vote, Mask, 0,
                                    Predicate != 0, "__any_sync()")) != 0;
}
inline int __all_sync(unsigned Mask, int Predicate) {
  meshad::cpu::detail::BlockRunner &R =
      meshad::cpu::detail::activeRunner("__all_sync()");
  unsigned Group = Mask & R.warpLanes();
  return (unsigned(R.warpExchange(meshad::cpu::detail::WarpOp::Vote, Mask, 0,
                                  Predicate != 0, "__all_sync()")) &
          Group) == Group;
}
/// The lanes of the warp that have not exited.
inline unsigned __activemask() {
  return meshad::cpu::detail::activeRunner("__activemask()").activeLanes();
}

namespace meshad::cpu::detail {

enum class ShuffleKind { Index, Up, Down, Xor };

/// The lane a shuffle of kind \p K reads, by CUDA's rules for segments of
/// \p Width lanes; the own lane where CUDA returns the own value.
inline unsigned shuffleSource(ShuffleKind K, unsigned Lane, int Param,
                              int Width, const char *Function) {
  if (Width < 1 || Width > 32 || (Width & (Width - 1)))
    fatal("%s: width %d is not a power of 2 in [1, 32]", Function, Width);
  unsigned W = unsigned(Width), Start = Lane & ~(W - 1), Offset = Lane - Start;
  switch (K) {
  case ShuffleKind::Index:
    return Start + (unsigned(Param) & (W - 1));
  case ShuffleKind::Up:
    return Offset >= unsigned(Param) ? Lane - unsigned(Param) : Lane;
  case ShuffleKind::Down:
    return Offset + unsigned(Param) < W ? Lane + unsigned(Param) : Lane;
  case ShuffleKind::Xor: {
    unsigned Src = Lane ^ (unsigned(Param) & 31);
    return Src < Start + W ? Src : Lane;
  }
  }
  return Lane;
}

template <class T>
T shuffle(ShuffleKind K, unsigned Mask, T Var, int Param, int Width,
          const char *Function) {
  static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= 8,
                "shuffled values are at most 8 bytes");
  BlockRunner &R = activeRunner(Function);
  unsigned Lane = (threadIdx.x + threadIdx.y * blockDim.x +
                   threadIdx.z * blockDim.x * blockDim.y) %
                  32;
  unsigned long long Bits = 0;
  std::memcpy(&Bits, &Var, sizeof(T));
  Bits = R.warpExchange(WarpOp::Shuffle, Mask,
                        shuffleSource(K, Lane, Param, Width, Function), Bits,
                        Function);
  std::memcpy(&Var, &Bits, sizeof(T));
  return Var;
}

} // namespace meshad::cpu::detail

/// The shuffles for one value type, overloads as in CUDA.
#define MESHAD_CPU_SHUFFLES(T)                                                 \
  inline T __shfl_sync(unsigned Mask, T Var, int SrcLane,                      \
                       int Width = warpSize) {                                 \
    return meshad::cpu::detail::shuffle(                                       \
        meshad::cpu::detail::ShuffleKind::Index, Mask, Var, SrcLane, Width,    \
        "__shfl_sync()");                                                      \
  }                                                                            \
  inline T __shfl_up_sync(unsigned Mask, T Var, unsigned Delta,                \
                          int Width = warpSize) {                              \
    return meshad::cpu::detail::shuffle(meshad::cpu::detail::ShuffleKind::Up,  \
                                        Mask, Var, int(Delta), Width,          \
                                        "__shfl_up_sync()");                   \
  }                                                                            \
  inline T __shfl_down_sync(unsigned Mask, T Var, unsigned Delta,              \
                            int Width = warpSize) {                            \
    return meshad::cpu::detail::shuffle(                                       \
        meshad::cpu::detail::ShuffleKind::Down, Mask, Var, int(Delta), Width,  \
        "__shfl_down_sync()");                                                 \
  }                                                                            \
  inline T __shfl_xor_sync(unsigned Mask, T Var, int LaneMask,                 \
                           int Width = warpSize) {                             \
    return meshad::cpu::detail::shuffle(meshad::cpu::detail::ShuffleKind::Xor, \
                                        Mask, Var, LaneMask, Width,            \
                                        "__shfl_xor_sync()");                  \
  }

MESHAD_CPU_SHUFFLES(int)
MESHAD_CPU_SHUFFLES(unsigned int)
MESHAD_CPU_SHUFFLES(long)
MESHAD_CPU_SHUFFLES(unsigned long)
MESHAD_CPU_SHUFFLES(long long)
MESHAD_CPU_SHUFFLES(unsigned long long)
MESHAD_CPU_SHUFFLES(float)
MESHAD_CPU_SHUFFLES(double)

#undef MESHAD_CPU_SHUFFLES

#endif // MESHAD_CPU_SYNCHRONIZATION_H
