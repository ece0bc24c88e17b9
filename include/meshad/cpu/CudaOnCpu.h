//===- meshad/cpu/CudaOnCpu.h - CUDA emulated on the CPU --------*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Compiles a CUDA source file as ordinary C++20 and runs its kernels on the
/// CPU, so that kernels (and the derivative kernels meshad generates) are
/// checked numerically on machines without a GPU:
///
/// \code
///   clang++ -x c++ -std=c++20 -include meshad/cpu/CudaOnCpu.h
///           -I<meshad>/include -pthread kernel.cu -o kernel
/// \endcode
///
/// (`%cpu_cuda_flags` in the lit tests). The threads of a block run as
/// cooperative fibers of one OS thread, so __syncthreads() and the warp
/// functions are real barriers; blocks run one after another. Launches use
/// `MESHAD_LAUNCH(kernel, grid, block[, shared[, stream]])(args...)` (which
/// is `kernel<<<grid, block, ...>>>(args...)` under CUDA, see
/// meshad/cpu/Portable.h) or meshad::cpu::launch(). docs/cpu-emulation.md
/// lists what is emulated and the limits.
///
/// This header defines MESHAD_CPU_CUDA, never __CUDACC__ (which would pull in
/// the CUDA headers).
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_CPU_CUDAONCPU_H
#define MESHAD_CPU_CUDAONCPU_H

// A system header for the meshad plugin: the emulated CUDA API (atomicAdd,
// make_float3...) stays an intrinsic instead of user code to differentiate.
#if defined(__clang__)
#pragma clang system_header
#endif

#if defined(__CUDACC__)
#error "meshad/cpu/CudaOnCpu.h emulates CUDA in plain C++: compile with -x c++"
#endif

#ifndef MESHAD_CPU_CUDA
#define MESHAD_CPU_CUDA 1
#endif

// Execution-space qualifiers. Under clang they stay visible to the meshad
// plugin as annotations; other compilers drop them.
#if defined(__clang__)
#define __global__ __attribute__((annotate("meshad.cuda.global")))
#define __device__ __attribute__((annotate("meshad.cuda.device")))
#define __host__ __attribute__((annotate("meshad.cuda.host")))
#define __constant__ __attribute__((annotate("meshad.cuda.constant")))
#define MESHAD_CPU_SHARED_ANNOTATION                                           \
  __attribute__((annotate("meshad.cuda.shared")))
#else
#define __global__
#define __device__
#define __host__
#define __constant__
#define MESHAD_CPU_SHARED_ANNOTATION
#endif

/// Static shared memory. The blocks of a launch run one after another, and
/// all threads (fibers) of a block run on the OS thread that launched, so one
/// static variable per OS thread is exactly one array per running block;
/// `thread_local` keeps launches made in parallel from different OS threads
/// apart. Unlike a GPU, the contents survive from one block to the next
/// (reading shared memory before writing it is a bug either way).
/// `extern __shared__ T a[];` cannot be expressed this way: use
/// MESHAD_DYNAMIC_SHARED(T, a) for dynamic shared memory.
#define __shared__ static thread_local MESHAD_CPU_SHARED_ANNOTATION
#define __managed__
#define __grid_constant__
#define __forceinline__ inline
#define __launch_bounds__(...)
// __restrict__ is a keyword of g++ and clang++ already. __noinline__ stays
// undefined: libstdc++ spells __attribute__((__noinline__)) itself.

#define CUDART_VERSION 13000

#include "meshad/cpu/VectorTypes.h"

#include "meshad/cpu/Runtime.h"

#include "meshad/cpu/BlockScheduler.h"

#include "meshad/cpu/Synchronization.h"

#include "meshad/cpu/Atomics.h"

#include "meshad/cpu/DeviceMath.h"

#include "meshad/cpu/Launch.h"

#endif // MESHAD_CPU_CUDAONCPU_H
