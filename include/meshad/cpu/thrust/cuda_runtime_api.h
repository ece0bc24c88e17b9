//===- meshad/cpu/thrust/cuda_runtime_api.h - Thrust on the CPU -*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Lets Thrust (CCCL 3) compile over the CPU emulation with its CPP device
/// system: libcu++ includes <cuda_runtime_api.h> whenever it can find one,
/// and then wants the toolkit's types. Put this folder first on the include
/// path (the lit substitution %cpu_thrust_flags does, see
/// docs/cpu-emulation.md):
/// \code
///   clang++ -x c++ -std=c++20 -include meshad/cpu/CudaOnCpu.h \
///     -I<meshad>/include -I<meshad>/include/meshad/cpu/thrust \
///     -I<cuda>/include/cccl \
///     -DTHRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_CPP \
///     -DCCCL_DISABLE_FP16_SUPPORT -DCCCL_DISABLE_BF16_SUPPORT -pthread f.cu
/// \endcode
/// `thrust::device` then runs on the calling CPU thread.
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_CPU_THRUST_CUDA_RUNTIME_API_H
#define MESHAD_CPU_THRUST_CUDA_RUNTIME_API_H

#include <meshad/cpu/CudaOnCpu.h>

#ifndef CUDART_VERSION
#define CUDART_VERSION 13000
#endif

// CUDA 13's over-aligned vector types, which libcu++ gives tuple interfaces.
#define MESHAD_CPU_ALIGNED_VECTOR(T, E)                                        \
  struct T##_16a {                                                             \
    E x, y, z, w;                                                              \
  };                                                                           \
  struct T##_32a {                                                             \
    E x, y, z, w;                                                              \
  };
MESHAD_CPU_ALIGNED_VECTOR(long4, long)
MESHAD_CPU_ALIGNED_VECTOR(ulong4, unsigned long)
MESHAD_CPU_ALIGNED_VECTOR(longlong4, long long)
MESHAD_CPU_ALIGNED_VECTOR(ulonglong4, unsigned long long)
MESHAD_CPU_ALIGNED_VECTOR(double4, double)
#undef MESHAD_CPU_ALIGNED_VECTOR

#endif // MESHAD_CPU_THRUST_CUDA_RUNTIME_API_H
