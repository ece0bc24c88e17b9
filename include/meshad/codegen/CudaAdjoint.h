//===- meshad/codegen/CudaAdjoint.h - Adjoints of CUDA runtime calls -----*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// What reverse-mode host code calls to run CUDA runtime operations
/// backwards. A copy dst = src becomes dSrc += dDst; dDst = 0, wherever the
/// two adjoint buffers live:
///
/// \code
///   // forward:  cudaMemcpy(x_d, x, n * sizeof(double), cudaMemcpyHostToDevice);
///   // reverse:
///   meshad::cuda::adjointMemcpy(_d_x_d, _d_x, n * sizeof(double),
///                               cudaMemcpyHostToDevice);
/// \endcode
///
/// Works with the CUDA runtime and under the CPU emulation (where every
/// buffer is host memory).
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_CUDAADJOINT_H
#define MESHAD_CUDAADJOINT_H

#if defined(__CUDACC__) || defined(MESHAD_CPU_CUDA)

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace meshad {
namespace cuda {

/// Dst[i] += Src[i] for i < N, on the device.
template <class T>
__global__ void accumulateKernel(T *Dst, const T *Src, size_t N) {
  for (size_t I = blockIdx.x * (size_t)blockDim.x + threadIdx.x; I < N;
       I += (size_t)blockDim.x * gridDim.x)
    Dst[I] += Src[I];
}

/// Dst += Src for device buffers of N elements.
template <class T>
cudaError_t accumulateOnDevice(T *Dst, const T *Src, size_t N) {
  if (N == 0)
    return cudaSuccess;
  unsigned Blocks = (unsigned)((N + 255) / 256);
  if (Blocks > 65535)
    Blocks = 65535;
#if defined(MESHAD_CPU_CUDA)
  (void)Blocks;
  for (size_t I = 0; I < N; ++I)
    Dst[I] += Src[I];
  return cudaSuccess;
#else
  accumulateKernel<T><<<Blocks, 256>>>(Dst, Src, N);
  return cudaGetLastError();
#endif
}

namespace detail {
/// T, in a context that template argument deduction does not look at.
template <class T> struct NoDeduce {
  using type = T;
};
} // namespace detail

/// The reverse of cudaMemcpy(Dst, Src, Bytes, Kind): DSrc += DDst, then
/// DDst = 0. DSrc may be null (the source carries no derivative: a literal
/// nullptr is accepted, T comes from DDst).
template <class T>
cudaError_t adjointMemcpy(T *DDst, typename detail::NoDeduce<T>::type *DSrc,
                          size_t Bytes, cudaMemcpyKind Kind) {
  size_t N = Bytes / sizeof(T);
  bool DstOnDevice = Kind == cudaMemcpyHostToDevice ||
                     Kind == cudaMemcpyDeviceToDevice;
  bool SrcOnDevice = Kind == cudaMemcpyDeviceToHost ||
                     Kind == cudaMemcpyDeviceToDevice;
#if defined(MESHAD_CPU_CUDA)
  DstOnDevice = SrcOnDevice = false; // All memory is host memory.
#endif
  cudaError_t Err = cudaSuccess;
  if (DSrc && N) {
    if (!DstOnDevice && !SrcOnDevice) {
      for (size_t I = 0; I < N; ++I)
        DSrc[I] += DDst[I];
    } else if (DstOnDevice && SrcOnDevice) {
      Err = accumulateOnDevice(DSrc, (const T *)DDst, N);
    } else if (DstOnDevice) {
      // Device adjoint flows back into a host adjoint.
      std::vector<T> Tmp(N);
      Err = cudaMemcpy(Tmp.data(), DDst, Bytes, cudaMemcpyDeviceToHost);
      for (size_t I = 0; I < N && Err == cudaSuccess; ++I)
        DSrc[I] += Tmp[I];
    } else {
      // Host adjoint flows back into a device adjoint.
      T *Tmp = nullptr;
      Err = cudaMalloc((void **)&Tmp, Bytes);
      if (Err == cudaSuccess)
        Err = cudaMemcpy(Tmp, DDst, Bytes, cudaMemcpyHostToDevice);
      if (Err == cudaSuccess)
        Err = accumulateOnDevice(DSrc, (const T *)Tmp, N);
      if (Tmp) {
        cudaDeviceSynchronize();
        cudaFree(Tmp);
      }
    }
  }
  if (Err != cudaSuccess)
    return Err;
  if (DstOnDevice)
    return cudaMemset(DDst, 0, Bytes);
  std::memset((void *)DDst, 0, Bytes);
  return cudaSuccess;
}

/// A zeroed device scalar that a reversed launch accumulates a scalar
/// argument's adjoint into; read it back with takeScalar().
template <class T> T *deviceScalar() {
  T *P = nullptr;
  cudaMalloc((void **)&P, sizeof(T));
  cudaMemset(P, 0, sizeof(T));
  return P;
}

/// The value of a device scalar from deviceScalar(), which is freed.
template <class T> T takeScalar(T *P) {
  T V = T();
  cudaMemcpy(&V, P, sizeof(T), cudaMemcpyDeviceToHost);
  cudaFree(P);
  return V;
}

namespace detail {
/// The device allocation that contains \p P: its start and size (the
/// driver's cuMemGetAddressRange, reached through the runtime; the CPU
/// emulation's heap). False when \p P is not device memory.
inline bool allocationRange(const void *P, char *&Base, size_t &Bytes) {
#if defined(MESHAD_CPU_CUDA)
  uintptr_t B = 0;
  if (!meshad::cpu::detail::deviceHeap().rangeOf((uintptr_t)P, B, Bytes))
    return false;
  Base = (char *)B;
  return true;
#else
  using RangeFn = int (*)(unsigned long long *, size_t *, unsigned long long);
  static RangeFn Range = [] {
    void *Fn = nullptr;
    cudaDriverEntryPointQueryResult Status;
    if (cudaGetDriverEntryPointByVersion("cuMemGetAddressRange", &Fn, 3020,
                                         cudaEnableDefault,
                                         &Status) != cudaSuccess ||
        Status != cudaDriverEntryPointSuccess)
      Fn = nullptr;
    return (RangeFn)Fn;
  }();
  unsigned long long B = 0;
  if (!Range || Range(&B, &Bytes, (unsigned long long)P) != 0)
    return false;
  Base = (char *)B;
  return true;
#endif
}
} // namespace detail

/// Device copies of buffers that a reversed launch must see as they were
/// before the launch, when the launch or a later operation overwrote them.
/// Host gradients declare one; the forward sweep pushes a copy of the
/// allocation that holds the buffer, or of the elements the launch accesses
/// when meshad knows them, and the reverse sweep pops it back (last in,
/// first out, mirroring the forward sweep):
///
/// \code
///   meshad::cuda::DeviceSnapshots _snapshots;
///   meshad::cuda::snapshotPush(_snapshots, y);    // before square<<<>>>(y)
///   meshad::cuda::snapshotPush(_snapshots, z, n); // z[0:n] before scale
///   ...
///   meshad::cuda::snapshotPop(_snapshots, z);
///   meshad::cuda::snapshotPop(_snapshots, y);     // before square_grad
/// \endcode
class DeviceSnapshots {
public:
  DeviceSnapshots() = default;
  DeviceSnapshots(const DeviceSnapshots &) = delete;
  DeviceSnapshots &operator=(const DeviceSnapshots &) = delete;
  ~DeviceSnapshots() {
    for (const Copy &C : Stack)
      if (C.Data)
        cudaFree(C.Data);
  }

  /// Copies the allocation that contains \p P.
  void push(const void *P) {
    Copy C = {nullptr, nullptr, 0};
    if (!detail::allocationRange(P, C.Base, C.Bytes))
      fail("a buffer that a gradient kernel reads and a launch overwrites "
           "is not device memory from cudaMalloc");
    if (cudaMalloc((void **)&C.Data, C.Bytes) != cudaSuccess ||
        cudaMemcpy(C.Data, C.Base, C.Bytes, cudaMemcpyDeviceToDevice) !=
            cudaSuccess)
      fail("copying a device buffer failed");
    Stack.push_back(C);
  }

  /// Copies the \p Count elements of type \p T from \p P on (none when
  /// \p Count <= 0), at most up to the end of the allocation that holds
  /// them.
  template <class T> void pushRange(const T *P, long long Count) {
    char *Base = nullptr;
    size_t Bytes = 0;
    if (!detail::allocationRange(P, Base, Bytes))
      fail("a buffer that a gradient kernel reads and a launch overwrites "
           "is not device memory from cudaMalloc");
    size_t Room = Bytes - (size_t)((const char *)P - Base);
    size_t Want = Count > 0 ? (size_t)Count * sizeof(T) : (size_t)0;
    Copy C = {(char *)P, nullptr, Want < Room ? Want : Room};
    if (C.Bytes &&
        (cudaMalloc((void **)&C.Data, C.Bytes) != cudaSuccess ||
         cudaMemcpy(C.Data, C.Base, C.Bytes, cudaMemcpyDeviceToDevice) !=
             cudaSuccess))
      fail("copying a device buffer failed");
    Stack.push_back(C);
  }

  /// Restores the last copy, which must be of the allocation of \p P (or
  /// start at \p P).
  void pop(const void *P) {
    if (Stack.empty() ||
        ((const char *)P != Stack.back().Base &&
         ((const char *)P < Stack.back().Base ||
          (const char *)P >= Stack.back().Base + Stack.back().Bytes)))
      fail("the reverse sweep restores buffers out of order");
    Copy C = Stack.back();
    Stack.pop_back();
    if (!C.Data)
      return;
    if (cudaMemcpy(C.Base, C.Data, C.Bytes, cudaMemcpyDeviceToDevice) !=
        cudaSuccess)
      fail("restoring a device buffer failed");
    cudaFree(C.Data);
  }

private:
  struct Copy {
    char *Base;
    char *Data;
    size_t Bytes;
  };
  [[noreturn]] static void fail(const char *Why) {
    std::fprintf(stderr, "meshad: %s\n", Why);
    std::abort();
  }
  std::vector<Copy> Stack;
};

inline void snapshotPush(DeviceSnapshots &S, const void *P) { S.push(P); }
/// Copies \p Count elements from \p P on: the elements a launch accesses.
template <class T, class N>
void snapshotPush(DeviceSnapshots &S, const T *P, N Count) {
  S.pushRange(P, (long long)Count);
}
inline void snapshotPop(DeviceSnapshots &S, const void *P) { S.pop(P); }

namespace detail {
[[noreturn]] inline void shadowFail(const char *Why) {
  std::fprintf(stderr, "meshad: %s\n", Why);
  std::abort();
}
} // namespace detail

/// A zeroed device buffer shaped like the allocation that holds the
/// adjoint buffer \p D, at \p D's offset: what a reversed launch adds into
/// for an argument that may be the same memory as another one (k(x, x)),
/// folded back into \p D by foldShadow() after the gradient launch:
///
/// \code
///   double *_shadow0 = meshad::cuda::shadowAdjoint(_d_x);
///   MESHAD_LAUNCH(k_grad, g, b)(n, x, x, _shadow0, _d_x);
///   meshad::cuda::foldShadow(_d_x, _shadow0);
/// \endcode
template <class T> T *shadowAdjoint(T *D) {
  char *Base = nullptr, *S = nullptr;
  size_t Bytes = 0;
  if (!detail::allocationRange(D, Base, Bytes))
    detail::shadowFail("an adjoint buffer that a launch may alias is not "
                       "device memory from cudaMalloc");
  if (cudaMalloc((void **)&S, Bytes) != cudaSuccess ||
      cudaMemset(S, 0, Bytes) != cudaSuccess)
    detail::shadowFail("allocating a shadow adjoint buffer failed");
  return (T *)(S + ((char *)D - Base));
}

/// Adds the shadow \p S of shadowAdjoint(\p D) into \p D's allocation
/// and frees it.
template <class T> void foldShadow(T *D, T *S) {
  char *Base = nullptr;
  size_t Bytes = 0;
  if (!detail::allocationRange(D, Base, Bytes))
    detail::shadowFail("an adjoint buffer that a launch may alias is not "
                       "device memory from cudaMalloc");
  char *SBase = (char *)S - ((char *)D - Base);
  if (accumulateOnDevice((T *)Base, (const T *)SBase, Bytes / sizeof(T)) !=
      cudaSuccess)
    detail::shadowFail("adding a shadow adjoint buffer failed");
  cudaDeviceSynchronize();
  cudaFree(SBase);
}

} // namespace cuda
} // namespace meshad

#endif // __CUDACC__ || MESHAD_CPU_CUDA

#endif // MESHAD_CUDAADJOINT_H
