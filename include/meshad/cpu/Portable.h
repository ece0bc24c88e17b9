//===- meshad/cpu/Portable.h - Launch macros for CUDA and CPU ---*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Lets one source launch kernels both as real CUDA and under the CPU
/// emulation (meshad/cpu/CudaOnCpu.h, which defines the same macros):
///
/// \code
///   #include <meshad/cpu/Portable.h>
///   MESHAD_LAUNCH(scale, Grid, Block)(N, X);    // scale<<<Grid, Block>>>
///   __global__ void k() { MESHAD_DYNAMIC_SHARED(float, Buf); ... }
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_CPU_PORTABLE_H
#define MESHAD_CPU_PORTABLE_H

// A system header for the meshad plugin: the emulated CUDA API (atomicAdd,
// make_float3...) stays an intrinsic instead of user code to differentiate.
#if defined(__clang__)
#pragma clang system_header
#endif

#if !defined(MESHAD_CPU_CUDA)
/// kernel<<<grid, block[, sharedBytes[, stream]]>>>(args...)
#define MESHAD_LAUNCH(KERNEL, ...) KERNEL<<<__VA_ARGS__>>>
/// extern __shared__ T NAME[];
#define MESHAD_DYNAMIC_SHARED(T, NAME) extern __shared__ T NAME[]
#endif

#endif // MESHAD_CPU_PORTABLE_H
