//===- meshad/cpu/Launch.h - Kernel launches on the CPU ---------*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Launching kernels on the CPU. `<<<...>>>` is not C++, so launches are
///
/// \code
///   MESHAD_LAUNCH(scale, Grid, Block)(N, X);             // kernel<<<G, B>>>
///   MESHAD_LAUNCH(scale, Grid, Block, Bytes, Stream)(N, X);
///   meshad::cpu::launch(scale, Grid, Block, /*SharedBytes=*/0, N, X);
/// \endcode
///
/// The arguments are converted to the kernel's parameter types once, as a
/// CUDA launch does, and every thread gets its own copy. A launch returns
/// (and records as the last error) cudaErrorInvalidConfiguration for a
/// configuration CUDA rejects; it returns when the whole grid ran.
/// cudaLaunchKernel takes a typed kernel (as the C++ overload of the CUDA
/// runtime does) or, through `const void *`, a kernel registered with
/// meshad::cpu::registerKernel. Part of meshad/cpu/CudaOnCpu.h.
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_CPU_LAUNCH_H
#define MESHAD_CPU_LAUNCH_H

// A system header for the meshad plugin: the emulated CUDA API (atomicAdd,
// make_float3...) stays an intrinsic instead of user code to differentiate.
#if defined(__clang__)
#pragma clang system_header
#endif

#include <cstdint>
#include <cstdio>
#include <map>
#include <mutex>
#include <tuple>
#include <type_traits>
#include <utility>

namespace meshad::cpu {

namespace detail {

/// A kernel and its converted arguments.
template <class... Params> struct KernelCall {
  void (*Kernel)(Params...);
  std::tuple<std::decay_t<Params>...> Args;

  /// The body of every thread: the kernel on a copy of the arguments.
  static void invoke(const void *Self) {
    const auto &Call = *static_cast<const KernelCall *>(Self);
    std::apply(Call.Kernel, Call.Args);
  }
};

/// Reads the arguments of \p Kernel from CUDA's array of pointers.
template <class... Params, size_t... I>
cudaError_t launchFromPointers(void (*Kernel)(Params...), dim3 Grid, dim3 Block,
                               void **Args, size_t SharedBytes,
                               std::index_sequence<I...>) {
  KernelCall<Params...> Call{
      Kernel, {*static_cast<std::decay_t<Params> *>(Args[I])...}};
  return runGrid(Grid, Block, SharedBytes, &KernelCall<Params...>::invoke,
                 &Call, nullptr);
}

/// Launches the kernel \p Kernel of type void(Params...).
template <class... Params>
cudaError_t launchUntyped(const void *Kernel, dim3 Grid, dim3 Block,
                          void **Args, size_t SharedBytes) {
  return launchFromPointers(
      reinterpret_cast<void (*)(Params...)>(const_cast<void *>(Kernel)), Grid,
      Block, Args, SharedBytes, std::index_sequence_for<Params...>());
}

/// Launches registered under their untyped address.
class KernelRegistry {
public:
  using Thunk = cudaError_t (*)(const void *, dim3, dim3, void **, size_t);

  void add(const void *Kernel, Thunk T) {
    std::lock_guard<std::mutex> Lock(Mutex);
    Thunks[Kernel] = T;
  }
  Thunk find(const void *Kernel) const {
    std::lock_guard<std::mutex> Lock(Mutex);
    auto It = Thunks.find(Kernel);
    return It == Thunks.end() ? nullptr : It->second;
  }

private:
  mutable std::mutex Mutex;
  std::map<const void *, Thunk> Thunks;
};

inline KernelRegistry &kernelRegistry() {
  static KernelRegistry Registry;
  return Registry;
}

} // namespace detail

/// Launches \p Kernel on a grid of \p Grid blocks of \p Block threads with
/// \p SharedBytes of dynamic shared memory; \p Name (may be null) names the
/// kernel in diagnostics.
template <class... Params, class... Args>
cudaError_t launchNamed(const char *Name, void (*Kernel)(Params...), dim3 Grid,
                        dim3 Block, size_t SharedBytes, Args &&...A) {
  static_assert(sizeof...(Params) == sizeof...(Args),
                "meshad::cpu::launch: the number of arguments differs from "
                "the kernel's number of parameters");
  if (!Kernel)
    return detail::record(cudaErrorInvalidDeviceFunction);
  detail::KernelCall<Params...> Call{Kernel, {std::forward<Args>(A)...}};
  return detail::runGrid(Grid, Block, SharedBytes,
                         &detail::KernelCall<Params...>::invoke, &Call, Name);
}

template <class... Params, class... Args>
cudaError_t launch(void (*Kernel)(Params...), dim3 Grid, dim3 Block,
                   size_t SharedBytes, Args &&...A) {
  return launchNamed(nullptr, Kernel, Grid, Block, SharedBytes,
                     std::forward<Args>(A)...);
}

/// A configured launch waiting for its arguments (MESHAD_LAUNCH).
template <class... Params> class Launcher {
public:
  Launcher(const char *Name, void (*Kernel)(Params...), dim3 Grid, dim3 Block,
           size_t SharedBytes = 0, cudaStream_t = nullptr)
      : Name(Name), Kernel(Kernel), Grid(Grid), Block(Block),
        SharedBytes(SharedBytes) {}

  template <class... Args> cudaError_t operator()(Args &&...A) const {
    return launchNamed(Name, Kernel, Grid, Block, SharedBytes,
                       std::forward<Args>(A)...);
  }

private:
  const char *Name;
  void (*Kernel)(Params...);
  dim3 Grid, Block;
  size_t SharedBytes;
};

/// Makes \p Kernel launchable through cudaLaunchKernel(const void *, ...).
template <class... Params> void registerKernel(void (*Kernel)(Params...)) {
  detail::kernelRegistry().add(reinterpret_cast<const void *>(Kernel),
                               &detail::launchUntyped<Params...>);
}

/// The dynamic shared memory of the running block (MESHAD_DYNAMIC_SHARED).
template <class T> T *dynamicShared() {
  return reinterpret_cast<T *>(
      detail::activeRunner("MESHAD_DYNAMIC_SHARED").DynamicShared);
}

/// The size in bytes of the running block's dynamic shared memory.
inline size_t dynamicSharedBytes() {
  return detail::activeRunner("meshad::cpu::dynamicSharedBytes")
      .DynamicSharedBytes;
}

} // namespace meshad::cpu

/// `MESHAD_LAUNCH(kernel, grid, block[, sharedBytes[, stream]])(args...)`:
/// `kernel<<<grid, block, sharedBytes, stream>>>(args...)`. A kernel name
/// with a comma (a template-id) goes in parentheses.
#define MESHAD_LAUNCH(KERNEL, ...)                                             \
  ::meshad::cpu::Launcher(#KERNEL, KERNEL, __VA_ARGS__)

/// `extern __shared__ T NAME[];` (dynamic shared memory) of CUDA.
#define MESHAD_DYNAMIC_SHARED(T, NAME)                                         \
  T *NAME = ::meshad::cpu::dynamicShared<T>()

/// The C++ form of CUDA's cudaLaunchKernel: \p Args points at each argument.
template <class... Params>
cudaError_t cudaLaunchKernel(void (*Kernel)(Params...), dim3 Grid, dim3 Block,
                             void **Args, size_t SharedBytes = 0,
                             cudaStream_t = nullptr) {
  return meshad::cpu::detail::launchFromPointers(
      Kernel, Grid, Block, Args, SharedBytes,
      std::index_sequence_for<Params...>());
}

/// CUDA's cudaLaunchKernel, for kernels registered with
/// meshad::cpu::registerKernel (cudaErrorInvalidDeviceFunction otherwise).
inline cudaError_t cudaLaunchKernel(const void *Kernel, dim3 Grid, dim3 Block,
                                    void **Args, size_t SharedBytes = 0,
                                    cudaStream_t = nullptr) {
  auto Thunk = meshad::cpu::detail::kernelRegistry().find(Kernel);
  if (!Thunk) {
    std::fprintf(stderr,
                 "meshad-cpu: cudaLaunchKernel: kernel %p is not "
                 "registered (meshad::cpu::registerKernel)\n",
                 Kernel);
    return meshad::cpu::detail::record(cudaErrorInvalidDeviceFunction);
  }
  return Thunk(Kernel, Grid, Block, Args, SharedBytes);
}

#endif // MESHAD_CPU_LAUNCH_H
