//===- meshad/cpu/Runtime.h - CUDA runtime API on the CPU -------*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The host side of the CUDA runtime on host memory: errors (with the real
/// codes and a per-OS-thread last error), device allocations, copies and
/// memsets, streams and events (launches are synchronous). "Device" memory
/// is host memory that the emulation tracks, so that copies in the wrong
/// direction or past the end of an allocation fail as on a GPU, and fresh
/// allocations are filled with 0xFF bytes (NaN as float and double) so that
/// reading memory nobody wrote shows. Part of meshad/cpu/CudaOnCpu.h.
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_CPU_RUNTIME_H
#define MESHAD_CPU_RUNTIME_H

// A system header for the meshad plugin: the emulated CUDA API (atomicAdd,
// make_float3...) stays an intrinsic instead of user code to differentiate.
#if defined(__clang__)
#pragma clang system_header
#endif

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <new>

enum cudaError {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInvalidConfiguration = 9,
  cudaErrorInvalidSymbol = 13,
  cudaErrorInvalidDevicePointer = 17,
  cudaErrorInvalidMemcpyDirection = 21,
  cudaErrorInvalidDeviceFunction = 98,
  cudaErrorInvalidDevice = 101,
  cudaErrorInvalidResourceHandle = 400,
  cudaErrorNotSupported = 801,
  cudaErrorUnknown = 999
};
typedef enum cudaError cudaError_t;

enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4
};

enum cudaFuncAttribute {
  cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
  cudaFuncAttributePreferredSharedMemoryCarveout = 9
};

/// Streams and events: launches and copies complete before they return, so
/// a stream only has to exist; an event records the host time.
struct CUstream_st {
  int Unused;
};
typedef CUstream_st *cudaStream_t;
struct CUevent_st {
  std::chrono::steady_clock::time_point Time;
};
typedef CUevent_st *cudaEvent_t;

namespace meshad::cpu::detail {

/// The last error of this OS thread, as cudaGetLastError reports it.
inline cudaError_t &lastError() {
  static thread_local cudaError_t Error = cudaSuccess;
  return Error;
}

/// Returns \p E, remembering it as the last error when it is one.
inline cudaError_t record(cudaError_t E) {
  if (E != cudaSuccess)
    lastError() = E;
  return E;
}

/// The emulated device memory: every live allocation and its size.
class DeviceHeap {
public:
  /// Where a pointer lies.
  enum class Space { Host, Device, Managed };

  void *allocate(size_t Bytes, bool Managed) {
    void *P = ::operator new(Bytes, std::align_val_t(256), std::nothrow);
    if (!P)
      return nullptr;
    std::memset(P, 0xFF, Bytes);
    std::lock_guard<std::mutex> Lock(Mutex);
    Blocks[reinterpret_cast<uintptr_t>(P)] = {Bytes, Managed};
    return P;
  }

  bool release(void *P) {
    {
      std::lock_guard<std::mutex> Lock(Mutex);
      if (!Blocks.erase(reinterpret_cast<uintptr_t>(P)))
        return false;
    }
    ::operator delete(P, std::align_val_t(256));
    return true;
  }

  /// The space of [P, P + Bytes); Host also when the range starts in an
  /// allocation but runs past its end (\p InBounds is then false).
  Space spaceOf(uintptr_t Addr, size_t Bytes, bool &InBounds) const {
    std::lock_guard<std::mutex> Lock(Mutex);
    InBounds = true;
    auto It = Blocks.upper_bound(Addr);
    if (It == Blocks.begin())
      return Space::Host;
    --It;
    uintptr_t Offset = Addr - It->first;
    if (Offset >= It->second.Bytes)
      return Space::Host;
    InBounds = Bytes <= It->second.Bytes - Offset;
    if (!InBounds)
      return Space::Host;
    return It->second.Managed ? Space::Managed : Space::Device;
  }

  /// The allocation that contains \p Addr: its start and size; false when
  /// \p Addr is not in one.
  bool rangeOf(uintptr_t Addr, uintptr_t &Base, size_t &Bytes) const {
    std::lock_guard<std::mutex> Lock(Mutex);
    auto It = Blocks.upper_bound(Addr);
    if (It == Blocks.begin())
      return false;
    --It;
    if (Addr - It->first >= It->second.Bytes)
      return false;
    Base = It->first;
    Bytes = It->second.Bytes;
    return true;
  }

private:
  struct Block {
    size_t Bytes;
    bool Managed;
  };
  mutable std::mutex Mutex;
  std::map<uintptr_t, Block> Blocks;
};

inline DeviceHeap &deviceHeap() {
  static DeviceHeap Heap;
  return Heap;
}

/// True when [P, P + Bytes) may be used as memory of the side \p Device.
/// (An address, not a pointer: nothing is read.)
inline bool isUsableAs(uintptr_t P, size_t Bytes, bool Device) {
  bool InBounds = true;
  DeviceHeap::Space S = deviceHeap().spaceOf(P, Bytes, InBounds);
  if (S == DeviceHeap::Space::Managed)
    return true;
  if (Device)
    return S == DeviceHeap::Space::Device;
  // A host range must not start inside device memory (nor run past the end
  // of an allocation it starts in).
  return S == DeviceHeap::Space::Host && InBounds;
}

} // namespace meshad::cpu::detail

inline cudaError_t cudaGetLastError() {
  cudaError_t E = meshad::cpu::detail::lastError();
  meshad::cpu::detail::lastError() = cudaSuccess;
  return E;
}
inline cudaError_t cudaPeekAtLastError() {
  return meshad::cpu::detail::lastError();
}

inline const char *cudaGetErrorName(cudaError_t E) {
  switch (E) {
  case cudaSuccess:
    return "cudaSuccess";
  case cudaErrorInvalidValue:
    return "cudaErrorInvalidValue";
  case cudaErrorMemoryAllocation:
    return "cudaErrorMemoryAllocation";
  case cudaErrorInvalidConfiguration:
    return "cudaErrorInvalidConfiguration";
  case cudaErrorInvalidSymbol:
    return "cudaErrorInvalidSymbol";
  case cudaErrorInvalidDevicePointer:
    return "cudaErrorInvalidDevicePointer";
  case cudaErrorInvalidMemcpyDirection:
    return "cudaErrorInvalidMemcpyDirection";
  case cudaErrorInvalidDeviceFunction:
    return "cudaErrorInvalidDeviceFunction";
  case cudaErrorInvalidDevice:
    return "cudaErrorInvalidDevice";
  case cudaErrorInvalidResourceHandle:
    return "cudaErrorInvalidResourceHandle";
  case cudaErrorNotSupported:
    return "cudaErrorNotSupported";
  default:
    return "cudaErrorUnknown";
  }
}

inline const char *cudaGetErrorString(cudaError_t E) {
  switch (E) {
  case cudaSuccess:
    return "no error";
  case cudaErrorInvalidValue:
    return "invalid argument";
  case cudaErrorMemoryAllocation:
    return "out of memory";
  case cudaErrorInvalidConfiguration:
    return "invalid configuration argument";
  case cudaErrorInvalidSymbol:
    return "invalid device symbol";
  case cudaErrorInvalidDevicePointer:
    return "invalid device pointer";
  case cudaErrorInvalidMemcpyDirection:
    return "invalid copy direction for memcpy";
  case cudaErrorInvalidDeviceFunction:
    return "invalid device function";
  case cudaErrorInvalidDevice:
    return "invalid device ordinal";
  case cudaErrorInvalidResourceHandle:
    return "invalid resource handle";
  case cudaErrorNotSupported:
    return "operation not supported";
  default:
    return "unknown error";
  }
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

inline cudaError_t cudaMalloc(void **Ptr, size_t Bytes) {
  if (!Ptr)
    return meshad::cpu::detail::record(cudaErrorInvalidValue);
  *Ptr = nullptr;
  if (Bytes == 0)
    return cudaSuccess;
  *Ptr = meshad::cpu::detail::deviceHeap().allocate(Bytes, false);
  return meshad::cpu::detail::record(*Ptr ? cudaSuccess
                                          : cudaErrorMemoryAllocation);
}
template <class T> cudaError_t cudaMalloc(T **Ptr, size_t Bytes) {
  return cudaMalloc(reinterpret_cast<void **>(Ptr), Bytes);
}

/// Managed memory: usable on both sides.
inline cudaError_t cudaMallocManaged(void **Ptr, size_t Bytes,
                                     unsigned /*Flags*/ = 1) {
  if (!Ptr)
    return meshad::cpu::detail::record(cudaErrorInvalidValue);
  *Ptr =
      Bytes ? meshad::cpu::detail::deviceHeap().allocate(Bytes, true) : nullptr;
  return meshad::cpu::detail::record(
      *Ptr || !Bytes ? cudaSuccess : cudaErrorMemoryAllocation);
}
template <class T>
cudaError_t cudaMallocManaged(T **Ptr, size_t Bytes, unsigned Flags = 1) {
  return cudaMallocManaged(reinterpret_cast<void **>(Ptr), Bytes, Flags);
}

inline cudaError_t cudaFree(void *Ptr) {
  if (!Ptr || meshad::cpu::detail::deviceHeap().release(Ptr))
    return cudaSuccess;
  return meshad::cpu::detail::record(cudaErrorInvalidValue);
}

/// Pinned host memory is ordinary host memory here.
inline cudaError_t cudaMallocHost(void **Ptr, size_t Bytes) {
  if (!Ptr)
    return meshad::cpu::detail::record(cudaErrorInvalidValue);
  *Ptr = std::malloc(Bytes ? Bytes : 1);
  return meshad::cpu::detail::record(*Ptr ? cudaSuccess
                                          : cudaErrorMemoryAllocation);
}
template <class T> cudaError_t cudaMallocHost(T **Ptr, size_t Bytes) {
  return cudaMallocHost(reinterpret_cast<void **>(Ptr), Bytes);
}
inline cudaError_t cudaFreeHost(void *Ptr) {
  std::free(Ptr);
  return cudaSuccess;
}

/// Copies \p Bytes, checking that each side lies in the memory \p Kind names.
inline cudaError_t cudaMemcpy(void *Dst, const void *Src, size_t Bytes,
                              cudaMemcpyKind Kind) {
  if (Bytes == 0)
    return cudaSuccess;
  if (!Dst || !Src)
    return meshad::cpu::detail::record(cudaErrorInvalidValue);
  uintptr_t D = reinterpret_cast<uintptr_t>(Dst);
  uintptr_t S = reinterpret_cast<uintptr_t>(Src);
  using meshad::cpu::detail::isUsableAs;
  bool Valid = true;
  switch (Kind) {
  case cudaMemcpyHostToHost:
    Valid = isUsableAs(D, Bytes, false) && isUsableAs(S, Bytes, false);
    break;
  case cudaMemcpyHostToDevice:
    Valid = isUsableAs(D, Bytes, true) && isUsableAs(S, Bytes, false);
    break;
  case cudaMemcpyDeviceToHost:
    Valid = isUsableAs(D, Bytes, false) && isUsableAs(S, Bytes, true);
    break;
  case cudaMemcpyDeviceToDevice:
    Valid = isUsableAs(D, Bytes, true) && isUsableAs(S, Bytes, true);
    break;
  case cudaMemcpyDefault:
    break;
  default:
    return meshad::cpu::detail::record(cudaErrorInvalidMemcpyDirection);
  }
  if (!Valid)
    return meshad::cpu::detail::record(cudaErrorInvalidValue);
  std::memmove(Dst, Src, Bytes);
  return cudaSuccess;
}
inline cudaError_t cudaMemcpyAsync(void *Dst, const void *Src, size_t Bytes,
                                   cudaMemcpyKind Kind,
                                   cudaStream_t /*Stream*/ = nullptr) {
  return cudaMemcpy(Dst, Src, Bytes, Kind);
}

inline cudaError_t cudaMemset(void *Dst, int Value, size_t Bytes) {
  if (Bytes == 0)
    return cudaSuccess;
  if (!Dst || !meshad::cpu::detail::isUsableAs(reinterpret_cast<uintptr_t>(Dst),
                                               Bytes, true))
    return meshad::cpu::detail::record(cudaErrorInvalidValue);
  std::memset(Dst, Value, Bytes);
  return cudaSuccess;
}
inline cudaError_t cudaMemsetAsync(void *Dst, int Value, size_t Bytes,
                                   cudaStream_t /*Stream*/ = nullptr) {
  return cudaMemset(Dst, Value, Bytes);
}

/// __device__ and __constant__ variables are host globals.
template <class T>
cudaError_t cudaMemcpyToSymbol(const T &Symbol, const void *Src, size_t Bytes,
                               size_t Offset = 0,
                               cudaMemcpyKind = cudaMemcpyHostToDevice) {
  if (Offset > sizeof(T) || Bytes > sizeof(T) - Offset)
    return meshad::cpu::detail::record(cudaErrorInvalidValue);
  std::memcpy(reinterpret_cast<char *>(const_cast<T *>(&Symbol)) + Offset, Src,
              Bytes);
  return cudaSuccess;
}
template <class T>
cudaError_t cudaMemcpyFromSymbol(void *Dst, const T &Symbol, size_t Bytes,
                                 size_t Offset = 0,
                                 cudaMemcpyKind = cudaMemcpyDeviceToHost) {
  if (Offset > sizeof(T) || Bytes > sizeof(T) - Offset)
    return meshad::cpu::detail::record(cudaErrorInvalidValue);
  std::memcpy(Dst, reinterpret_cast<const char *>(&Symbol) + Offset, Bytes);
  return cudaSuccess;
}

//===----------------------------------------------------------------------===//
// Device, streams, events
//===----------------------------------------------------------------------===//

inline cudaError_t cudaDeviceSynchronize() { return cudaSuccess; }
inline cudaError_t cudaDeviceReset() { return cudaSuccess; }
inline cudaError_t cudaGetDeviceCount(int *Count) {
  *Count = 1;
  return cudaSuccess;
}
inline cudaError_t cudaGetDevice(int *Device) {
  *Device = 0;
  return cudaSuccess;
}
inline cudaError_t cudaSetDevice(int Device) {
  return Device == 0 ? cudaSuccess
                     : meshad::cpu::detail::record(cudaErrorInvalidDevice);
}
/// Accepted and ignored (the emulation has no shared-memory carve-out).
template <class T>
cudaError_t cudaFuncSetAttribute(T * /*Kernel*/, cudaFuncAttribute, int) {
  return cudaSuccess;
}

inline cudaError_t cudaStreamCreate(cudaStream_t *Stream) {
  *Stream = new CUstream_st{0};
  return cudaSuccess;
}
inline cudaError_t cudaStreamDestroy(cudaStream_t Stream) {
  delete Stream;
  return cudaSuccess;
}
inline cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }

inline cudaError_t cudaEventCreate(cudaEvent_t *Event) {
  *Event = new CUevent_st{std::chrono::steady_clock::now()};
  return cudaSuccess;
}
inline cudaError_t cudaEventDestroy(cudaEvent_t Event) {
  delete Event;
  return cudaSuccess;
}
inline cudaError_t cudaEventRecord(cudaEvent_t Event,
                                   cudaStream_t /*Stream*/ = nullptr) {
  if (!Event)
    return meshad::cpu::detail::record(cudaErrorInvalidResourceHandle);
  Event->Time = std::chrono::steady_clock::now();
  return cudaSuccess;
}
inline cudaError_t cudaEventSynchronize(cudaEvent_t) { return cudaSuccess; }
inline cudaError_t cudaEventElapsedTime(float *Ms, cudaEvent_t Start,
                                        cudaEvent_t End) {
  if (!Start || !End)
    return meshad::cpu::detail::record(cudaErrorInvalidResourceHandle);
  *Ms =
      std::chrono::duration<float, std::milli>(End->Time - Start->Time).count();
  return cudaSuccess;
}

#endif // MESHAD_CPU_RUNTIME_H
