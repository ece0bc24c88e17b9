//===- benchmarks/ownership/BenchSupport.h - Harness helpers ----*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Helpers of the ownership benchmark harness (main.cu): device buffers,
/// CUDA error checks, timing statistics and the relative error of a
/// gradient. Host code; builds as CUDA and under the CUDA-on-CPU emulation.
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_BENCHMARKS_OWNERSHIP_BENCHSUPPORT_H
#define MESHAD_BENCHMARKS_OWNERSHIP_BENCHSUPPORT_H

#if defined(__CUDACC__)
#include <cuda_runtime.h>
#endif

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace bench {

/// Aborts with a FAIL line when a CUDA call failed (after a kernel trap the
/// context is unusable: nothing sensible can follow).
inline void check(cudaError_t Err, const char *What) {
  if (Err == cudaSuccess)
    return;
  std::printf("FAIL %s: CUDA error %s (%s)\n", What, cudaGetErrorName(Err),
              cudaGetErrorString(Err));
  std::fflush(stdout);
  std::exit(2);
}

/// Waits for the device and checks the launches since the last check.
inline void checkLaunch(const char *What) {
  check(cudaDeviceSynchronize(), What);
  check(cudaGetLastError(), What);
}

/// N elements of T in device memory.
template <class T> class DeviceBuffer {
public:
  explicit DeviceBuffer(size_t N) : Size(N) {
    check(cudaMalloc(reinterpret_cast<void **>(&Ptr), bytes()), "cudaMalloc");
  }
  explicit DeviceBuffer(const std::vector<T> &Host)
      : DeviceBuffer(Host.size()) {
    upload(Host);
  }
  ~DeviceBuffer() { cudaFree(Ptr); }
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;

  T *get() const { return Ptr; }
  size_t size() const { return Size; }
  size_t bytes() const { return Size * sizeof(T); }

  void upload(const std::vector<T> &Host) {
    check(cudaMemcpy(Ptr, Host.data(), bytes(), cudaMemcpyHostToDevice),
          "upload");
  }
  std::vector<T> download() const {
    std::vector<T> Host(Size);
    check(cudaMemcpy(Host.data(), Ptr, bytes(), cudaMemcpyDeviceToHost),
          "download");
    return Host;
  }
  /// Enqueues a copy of \p From (same size) into this buffer.
  void copyFrom(const DeviceBuffer &From) {
    check(cudaMemcpyAsync(Ptr, From.Ptr, bytes(), cudaMemcpyDeviceToDevice,
                          nullptr),
          "device copy");
  }
  /// Enqueues zeroing the buffer.
  void zero() { check(cudaMemsetAsync(Ptr, 0, bytes(), nullptr), "memset"); }

private:
  T *Ptr = nullptr;
  size_t Size;
};

/// Median, minimum and maximum of the timed runs, in milliseconds.
struct Timing {
  double Median = 0, Min = 0, Max = 0;
  int Runs = 0;
  bool Valid = false;
};

inline Timing summarize(std::vector<double> Ms) {
  Timing T;
  if (Ms.empty())
    return T;
  std::sort(Ms.begin(), Ms.end());
  size_t N = Ms.size();
  T.Median = N % 2 ? Ms[N / 2] : 0.5 * (Ms[N / 2 - 1] + Ms[N / 2]);
  T.Min = Ms.front();
  T.Max = Ms.back();
  T.Runs = static_cast<int>(N);
  T.Valid = true;
  return T;
}

/// Part of a gradient compared as a whole: its elements with the same index
/// modulo Stride (one parameter kind: the x components of the vertices, the
/// colours of the splats...) form one group; the relative error of the part
/// is the largest over its groups of max |got - expected| / max |expected|.
struct GradientPart {
  int Stride = 1;
  std::vector<double> Values;
};

/// Expected values of some elements of a part (a sampled reference).
struct SampledPart {
  std::vector<size_t> Index;
  std::vector<double> Value;
};

/// The relative error of \p Got against \p Expected (same layout).
inline double relativeError(const GradientPart &Got,
                            const GradientPart &Expected) {
  double Worst = 0;
  if (Got.Values.size() != Expected.Values.size())
    return INFINITY;
  for (int G = 0; G < Expected.Stride; ++G) {
    double Diff = 0, Scale = 0;
    for (size_t I = G; I < Got.Values.size(); I += Expected.Stride) {
      double D = std::fabs(Got.Values[I] - Expected.Values[I]);
      Diff = std::isnan(D) ? INFINITY : std::max(Diff, D);
      Scale = std::max(Scale, std::fabs(Expected.Values[I]));
    }
    Worst = std::max(Worst, Scale > 0 ? Diff / Scale : Diff);
  }
  return Worst;
}

/// The relative error of \p Got at the sampled elements \p Expected.
inline double relativeError(const GradientPart &Got,
                            const SampledPart &Expected) {
  std::vector<double> Diff(Got.Stride, 0.0), Scale(Got.Stride, 0.0);
  for (size_t J = 0; J < Expected.Index.size(); ++J) {
    size_t I = Expected.Index[J];
    if (I >= Got.Values.size())
      return INFINITY;
    double D = std::fabs(Got.Values[I] - Expected.Value[J]);
    size_t G = I % Got.Stride;
    Diff[G] = std::isnan(D) ? INFINITY : std::max(Diff[G], D);
    Scale[G] = std::max(Scale[G], std::fabs(Expected.Value[J]));
  }
  double Worst = 0;
  for (int G = 0; G < Got.Stride; ++G)
    Worst = std::max(Worst, Scale[G] > 0 ? Diff[G] / Scale[G] : Diff[G]);
  return Worst;
}

} // namespace bench

#endif // MESHAD_BENCHMARKS_OWNERSHIP_BENCHSUPPORT_H
