//===- meshad/codegen/DynamicShared.h - Derivatives in dynamic shared memory -*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A kernel's dynamic shared memory (`extern __shared__ double buf[];`,
/// `MESHAD_DYNAMIC_SHARED(double, buf)` for the CPU emulation too) gets its
/// tangent or adjoint in the upper half of the derived kernel's dynamic
/// shared memory: the derived kernel is launched with twice the primal's
/// dynamic shared bytes (execute_kernel doubles the bytes it is given; a
/// direct launch of the derived kernel passes twice the primal's bytes).
///
/// \code
///   MESHAD_DYNAMIC_SHARED(double, buf);
///   double *_d_buf = meshad::dynamicSharedShadow<double>();
///   meshad::zeroDynamicSharedShadow(); // reverse mode: then __syncthreads
///   // An HVP: four times the primal's bytes, the adjoint, the tangent and
///   // the adjoint's tangent in slots 1, 2, 3.
///   double *_d2_d_buf = meshad::dynamicSharedShadow<double, 3, 4>();
/// \endcode
///
/// Works on the GPU and under the CPU emulation (include/meshad/cpu).
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_CODEGEN_DYNAMICSHARED_H
#define MESHAD_CODEGEN_DYNAMICSHARED_H

#if defined(__CUDACC__) || defined(MESHAD_CPU_CUDA)

#include <cstddef>
#include <cstdio>
#include <cstdlib>

#if !defined(MESHAD_DYNAMIC_SHARED)
/// extern __shared__ T NAME[]; (the CPU emulation defines its own form)
#define MESHAD_DYNAMIC_SHARED(T, NAME) extern __shared__ T NAME[]
#endif

namespace meshad {
namespace detail {

/// The launch's dynamic shared memory and its size in bytes.
__device__ inline unsigned char *dynamicSharedBase(size_t &Bytes) {
#if defined(MESHAD_CPU_CUDA)
  Bytes = ::meshad::cpu::dynamicSharedBytes();
  return ::meshad::cpu::dynamicShared<unsigned char>();
#else
  extern __shared__ __align__(16) unsigned char MeshadDynamicShared[];
  unsigned Size;
  asm volatile("mov.u32 %0, %%dynamic_smem_size;" : "=r"(Size));
  Bytes = Size;
  return MeshadDynamicShared;
#endif
}

/// Slot \p Slot of \p Slots equal parts of the dynamic shared memory, for
/// values of \p Align bytes; stops the kernel when the launch cannot have
/// been given \p Slots times the primal's bytes.
__device__ inline unsigned char *dynamicSharedSlot(size_t Align, int Slot,
                                                   int Slots) {
  size_t Bytes;
  unsigned char *Base = dynamicSharedBase(Bytes);
  if (Bytes == 0 || Bytes % (Slots * Align) != 0) {
    printf("meshad: a derived kernel with dynamic shared memory was launched "
           "with %llu dynamic shared bytes; it needs %d times the primal's "
           "(execute_kernel multiplies the bytes it is given)\n",
           static_cast<unsigned long long>(Bytes), Slots);
#if defined(MESHAD_CPU_CUDA)
    std::abort();
#else
    __trap();
#endif
  }
  return Base + Slot * (Bytes / Slots);
}

} // namespace detail

/// The tangent or adjoint memory of the kernel's dynamic shared memory:
/// slot \p Slot of \p Slots equal parts (the upper half by default; an
/// HVP keeps the adjoint, the primal's tangent and the adjoint's tangent in
/// slots 1, 2 and 3 of 4).
template <class T, int Slot = 1, int Slots = 2>
__device__ inline T *dynamicSharedShadow() {
  return reinterpret_cast<T *>(
      detail::dynamicSharedSlot(alignof(T), Slot, Slots));
}

/// Zeroes the slots above the primal's (1 to \p Slots - 1) of the dynamic
/// shared memory, every thread of the block a strided part, then waits for
/// the block.
template <int Slots = 2> __device__ inline void zeroDynamicSharedShadow() {
  size_t Bytes;
  unsigned char *Base = detail::dynamicSharedBase(Bytes);
  unsigned Tid =
      threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  unsigned Threads = blockDim.x * blockDim.y * blockDim.z;
  for (size_t I = Bytes / Slots + Tid; I < Bytes; I += Threads)
    Base[I] = 0;
  __syncthreads();
}

} // namespace meshad

#endif
#endif // MESHAD_CODEGEN_DYNAMICSHARED_H
