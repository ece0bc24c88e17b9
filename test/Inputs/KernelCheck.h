//===- test/Inputs/KernelCheck.h - Numerical checks of kernels ---*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Helpers for tests and demos that check derivative kernels: device arrays
/// mirrored on the host, launch error checks, the weighted loss
/// L = sum_i w_i out_i of a kernel's outputs, and its gradient by central
/// finite differences (NumericCheck.h) for comparison with a reverse-mode
/// adjoint. Host code only; compiles as CUDA (clang or nvcc) and under the
/// CUDA-on-CPU emulation (%cpu_cuda_flags).
///
/// \code
///   meshad::test::DeviceArray<double> X(N), Y(N);
///   Rng.fill(X.host(), N, -1, 1);
///   X.upload();
///   MESHAD_LAUNCH(square, Grid, Block)(N, X.device(), Y.device());
///   meshad::test::checkLaunch("square");
///   Y.download();
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_TEST_KERNELCHECK_H
#define MESHAD_TEST_KERNELCHECK_H

#include "NumericCheck.h"

#if defined(__CUDACC__)
#include <cuda_runtime.h>
#endif
#include <meshad/cpu/Portable.h>

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace meshad {
namespace test {

/// Records a failed check named \p Name when the last launch (or any CUDA
/// call since the last check) failed; waits for the device first.
inline bool checkLaunch(const char *Name) {
  cudaError_t Sync = cudaDeviceSynchronize();
  cudaError_t Last = cudaGetLastError();
  cudaError_t Err = Sync != cudaSuccess ? Sync : Last;
  if (Err == cudaSuccess)
    return true;
  std::printf("FAIL %s: CUDA error %s\n", Name, cudaGetErrorString(Err));
  checker().close(std::string(Name) + " launch", 0.0, 1.0, 0.0);
  return false;
}

/// N elements of T in device memory with a host mirror.
template <class T> class DeviceArray {
public:
  explicit DeviceArray(std::size_t N) : Host(N, T()) {
    if (cudaMalloc(reinterpret_cast<void **>(&Dev), bytes()) != cudaSuccess) {
      std::printf("FAIL cudaMalloc of %zu bytes\n", bytes());
      std::exit(1);
    }
    upload();
  }
  ~DeviceArray() { cudaFree(Dev); }
  DeviceArray(const DeviceArray &) = delete;
  DeviceArray &operator=(const DeviceArray &) = delete;

  /// Copies the host mirror to the device.
  void upload() { cudaMemcpy(Dev, Host.data(), bytes(), cudaMemcpyHostToDevice); }
  /// Copies the device array to the host mirror.
  void download() {
    cudaMemcpy(Host.data(), Dev, bytes(), cudaMemcpyDeviceToHost);
  }
  /// Sets every element to zero on both sides (adjoints accumulate).
  void zero() {
    for (T &V : Host)
      V = T();
    upload();
  }

  T *device() { return Dev; }
  T *host() { return Host.data(); }
  T &operator[](std::size_t I) { return Host[I]; }
  std::size_t size() const { return Host.size(); }
  std::size_t bytes() const { return Host.size() * sizeof(T); }

private:
  std::vector<T> Host;
  T *Dev = nullptr;
};

/// sum_i W[i] * Out[i] in double.
template <class T>
double weightedSum(const double *W, const T *Out, std::size_t N) {
  double S = 0;
  for (std::size_t I = 0; I < N; ++I)
    S += W[I] * static_cast<double>(Out[I]);
  return S;
}

/// How many of an array's N entries a test checks against finite
/// differences: N, or 1 when the environment sets MESHAD_TEST_QUICK (under
/// compute-sanitizer racecheck on a GPU every launch is slow, and the
/// gradient kernels, run once each, are what the sanitizer checks; the
/// plain run checks every entry).
inline std::size_t checkedEntries(std::size_t N) {
  const char *Quick = std::getenv("MESHAD_TEST_QUICK");
  return Quick && *Quick && *Quick != '0' && N > 0 ? 1 : N;
}

/// d Loss / d A[K] for K in [0, N) by central differences; \p Loss is a
/// nullary callable that reads the host array A (e.g. uploads it and runs the
/// primal kernel).
template <class F, class T>
std::vector<double> fdGradient(F &&Loss, T *A, std::size_t N) {
  std::vector<double> G(N);
  for (std::size_t K = 0; K < N; ++K)
    G[K] = centralDifferenceAt(Loss, A, K);
  return G;
}

/// Directional derivatives d Out[J] / dt at t = 0 of A := A0 + t Dir, for J
/// in [0, M), by central differences: \p Run is a nullary callable that reads
/// the host array A[0..N) and fills the host array Out[0..M) (e.g. uploads A,
/// runs the primal kernel and downloads Out). A is restored afterwards.
template <class F, class T, class U>
std::vector<double> fdDirectional(F &&Run, T *A, const double *Dir,
                                  std::size_t N, const U *Out, std::size_t M) {
  std::vector<T> Saved(A, A + N);
  std::vector<double> D(M);
  for (std::size_t J = 0; J < M; ++J)
    D[J] = centralDifference(
        [&](double Step) {
          for (std::size_t K = 0; K < N; ++K)
            A[K] = static_cast<T>(Saved[K] + Step * Dir[K]);
          Run();
          return static_cast<double>(Out[J]);
        },
        0.0);
  for (std::size_t K = 0; K < N; ++K)
    A[K] = Saved[K];
  return D;
}

/// One check per element: Got[K] against Expected[K], named "Name[K]", with
/// the tolerance of T.
template <class T>
void checkArray(const std::string &Name, const T *Got, const double *Expected,
                std::size_t N) {
  for (std::size_t K = 0; K < N; ++K)
    checkClose(Name + "[" + std::to_string(K) + "]", Got[K], Expected[K]);
}

/// One check per element that Got[K] is exactly zero (the adjoint of an
/// array's initial contents that the function overwrites without reading).
template <class T>
void checkZero(const std::string &Name, const T *Got, std::size_t N) {
  for (std::size_t K = 0; K < N; ++K)
    checker().close(Name + "[" + std::to_string(K) + "] == 0",
                    static_cast<double>(Got[K]), 0.0, 0.0);
}

} // namespace test
} // namespace meshad

#endif // MESHAD_TEST_KERNELCHECK_H
