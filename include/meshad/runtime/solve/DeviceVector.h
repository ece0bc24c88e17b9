//===- meshad/runtime/solve/DeviceVector.h - Vectors for solvers -*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The vector arithmetic of the solvers on device arrays: a RAII buffer,
/// fill/copy/axpy, and reductions (sum, dot, minimum) that are bitwise
/// reproducible: each thread of a fixed grid adds a fixed stride of the
/// vector, each block reduces its threads in shared memory in a fixed tree,
/// and the host adds the blocks' partials in order.
///
/// \code
///   using namespace meshad::runtime::solve;
///   DeviceBuffer<double> X(N), G(N);
///   axpy(N, -0.5, G.data(), X.data());   // X -= 0.5 G
///   double GG = dot(N, G.data(), G.data());
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_RUNTIME_SOLVE_DEVICEVECTOR_H
#define MESHAD_RUNTIME_SOLVE_DEVICEVECTOR_H

#include "meshad/cpu/Portable.h"
#include "meshad/runtime/Mesh.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#if defined(__CUDACC__)
#include <cuda_runtime.h>
#elif !defined(MESHAD_CPU_CUDA)
#error "meshad/runtime/solve needs CUDA or the CPU emulation"
#endif

namespace meshad {
namespace runtime {
namespace solve {

/// An owning device array of N values (no copies; moves).
template <class T> class DeviceBuffer {
public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(long N) { resize(N); }
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
  DeviceBuffer(DeviceBuffer &&O) noexcept : Ptr(O.Ptr), N(O.N) {
    O.Ptr = nullptr;
    O.N = 0;
  }
  ~DeviceBuffer() { cudaFree(Ptr); }

  /// Reallocates to \p NewSize values (contents lost unless the size stays).
  void resize(long NewSize) {
    if (NewSize == N && Ptr)
      return;
    cudaFree(Ptr);
    Ptr = nullptr;
    N = NewSize;
    if (cudaMalloc(reinterpret_cast<void **>(&Ptr),
                   std::max<long>(N, 1) * sizeof(T)) != cudaSuccess)
      throw MeshError("solver: out of device memory");
  }
  void upload(const T *Host) {
    cudaMemcpy(Ptr, Host, N * sizeof(T), cudaMemcpyHostToDevice);
  }
  void upload(const std::vector<T> &Host) {
    resize(static_cast<long>(Host.size()));
    upload(Host.data());
  }
  std::vector<T> download() const {
    std::vector<T> Host(N);
    cudaMemcpy(Host.data(), Ptr, N * sizeof(T), cudaMemcpyDeviceToHost);
    return Host;
  }
  T *data() { return Ptr; }
  const T *data() const { return Ptr; }
  long size() const { return N; }

private:
  T *Ptr = nullptr;
  long N = 0;
};

namespace detail {

constexpr int VectorBlock = 256;

inline int blocksFor(long N) {
  return static_cast<int>(std::max<long>(1, (N + VectorBlock - 1) / VectorBlock));
}

/// The launch of a grid-stride kernel over N items: a thread per item on a
/// GPU; under the CPU emulation one block of 32 threads (every thread is a
/// fiber there, and switching fibers costs more than the items' work).
struct LaunchShape {
  int Blocks, Threads;
};
inline LaunchShape shapeFor(long N) {
#if defined(MESHAD_CPU_CUDA)
  (void)N;
  return {1, 32};
#else
  return {blocksFor(N), VectorBlock};
#endif
}

/// for (long I : the thread's items of [0, N)) in a grid-stride kernel.
#define MESHAD_SOLVE_GRID_STRIDE(I, N)                                         \
  for (long I = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;      \
       I < (N); I += static_cast<long>(gridDim.x) * blockDim.x)

template <class T> __global__ void fillKernel(long N, T V, T *X) {
  MESHAD_SOLVE_GRID_STRIDE(I, N)
    X[I] = V;
}

/// Y = A X + B Y.
template <class T>
__global__ void axpbyKernel(long N, T A, const T *X, T B, T *Y) {
  MESHAD_SOLVE_GRID_STRIDE(I, N)
    Y[I] = A * X[I] + B * Y[I];
}

/// Z = X + A Y.
template <class T>
__global__ void addScaledKernel(long N, const T *X, T A, const T *Y, T *Z) {
  MESHAD_SOLVE_GRID_STRIDE(I, N)
    Z[I] = X[I] + A * Y[I];
}

/// Z = X * Y, elementwise.
template <class T>
__global__ void multiplyKernel(long N, const T *X, const T *Y, T *Z) {
  MESHAD_SOLVE_GRID_STRIDE(I, N)
    Z[I] = X[I] * Y[I];
}

enum class ReduceOp { Sum, Dot, Min };

/// One partial per block: a fixed stride per thread, a fixed tree per block.
template <class T>
__global__ void reduceKernel(long N, ReduceOp Op, const T *X, const T *Y,
                             T *Partials) {
  __shared__ T Part[VectorBlock];
  bool IsMin = Op == ReduceOp::Min;
  T Acc = IsMin ? T(HUGE_VAL) : T(0);
  long Stride = static_cast<long>(gridDim.x) * blockDim.x;
  for (long I = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
       I < N; I += Stride) {
    if (Op == ReduceOp::Sum)
      Acc += X[I];
    else if (Op == ReduceOp::Dot)
      Acc += X[I] * Y[I];
    else
      Acc = X[I] < Acc ? X[I] : Acc;
  }
  Part[threadIdx.x] = Acc;
  __syncthreads();
  for (int H = blockDim.x / 2; H > 0; H /= 2) { // blockDim.x: a power of 2
    if (threadIdx.x < H) {
      T O = Part[threadIdx.x + H];
      Part[threadIdx.x] =
          IsMin ? (O < Part[threadIdx.x] ? O : Part[threadIdx.x])
                : Part[threadIdx.x] + O;
    }
    __syncthreads();
  }
  if (threadIdx.x == 0)
    Partials[blockIdx.x] = Part[0];
}

constexpr int MaxReduceBlocks = 256;

/// Launches reduceKernel on its fixed grid for N values: one partial per
/// block into Partials (MaxReduceBlocks values); returns the blocks.
template <class T>
int launchReduce(long N, ReduceOp Op, const T *X, const T *Y, T *Partials) {
  int Blocks = std::min(MaxReduceBlocks, shapeFor(N).Blocks),
      Threads = shapeFor(N).Threads;
  while (Threads > 32 && Threads / 2 >= N)
    Threads /= 2; // small vectors: fewer threads
  MESHAD_LAUNCH(reduceKernel<T>, Blocks, Threads)(N, Op, X, Y, Partials);
  return Blocks;
}

/// The blocks' partials added in order (host or device: the same sum).
template <class T>
__host__ __device__ T addPartials(ReduceOp Op, const T *Partials, int Blocks) {
  T Acc = Op == ReduceOp::Min ? T(HUGE_VAL) : T(0);
  for (int B = 0; B < Blocks; ++B)
    Acc = Op == ReduceOp::Min ? (Partials[B] < Acc ? Partials[B] : Acc)
                              : Acc + Partials[B];
  return Acc;
}

template <class T> T reduce(long N, ReduceOp Op, const T *X, const T *Y) {
  static thread_local DeviceBuffer<T> Partials(MaxReduceBlocks);
  int Blocks = launchReduce(N, Op, X, Y, Partials.data());
  T Host[MaxReduceBlocks];
  cudaMemcpy(Host, Partials.data(), Blocks * sizeof(T),
             cudaMemcpyDeviceToHost);
  return addPartials(Op, static_cast<const T *>(Host), Blocks);
}

} // namespace detail

/// X[i] = V.
template <class T> void fill(long N, T V, T *X) {
  if (N > 0)
    MESHAD_LAUNCH(detail::fillKernel<T>, detail::shapeFor(N).Blocks,
                  detail::shapeFor(N).Threads)(N, V, X);
}
/// Y = X.
template <class T> void copy(long N, const T *X, T *Y) {
  cudaMemcpy(Y, X, N * sizeof(T), cudaMemcpyDeviceToDevice);
}
/// Y = A X + B Y.
template <class T> void axpby(long N, T A, const T *X, T B, T *Y) {
  if (N > 0)
    MESHAD_LAUNCH(detail::axpbyKernel<T>, detail::shapeFor(N).Blocks,
                  detail::shapeFor(N).Threads)(N, A, X, B, Y);
}
/// Y += A X.
template <class T> void axpy(long N, T A, const T *X, T *Y) {
  axpby(N, A, X, T(1), Y);
}
/// Z = X + A Y (Z may be X or Y).
template <class T> void addScaled(long N, const T *X, T A, const T *Y, T *Z) {
  if (N > 0)
    MESHAD_LAUNCH(detail::addScaledKernel<T>, detail::shapeFor(N).Blocks,
                  detail::shapeFor(N).Threads)(N, X, A, Y, Z);
}
/// Z = X * Y elementwise (a diagonal preconditioner).
template <class T> void multiply(long N, const T *X, const T *Y, T *Z) {
  if (N > 0)
    MESHAD_LAUNCH(detail::multiplyKernel<T>, detail::shapeFor(N).Blocks,
                  detail::shapeFor(N).Threads)(N, X, Y, Z);
}
/// The sum of X, reproducible bit for bit.
template <class T> T sum(long N, const T *X) {
  return detail::reduce(N, detail::ReduceOp::Sum, X, X);
}
/// X . Y, reproducible bit for bit.
template <class T> T dot(long N, const T *X, const T *Y) {
  return detail::reduce(N, detail::ReduceOp::Dot, X, Y);
}
/// |X|_2.
template <class T> T norm(long N, const T *X) { return std::sqrt(dot(N, X, X)); }
/// The smallest value of X (+infinity when N = 0).
template <class T> T minimum(long N, const T *X) {
  return detail::reduce(N, detail::ReduceOp::Min, X, X);
}

} // namespace solve
} // namespace runtime
} // namespace meshad

#endif // MESHAD_RUNTIME_SOLVE_DEVICEVECTOR_H
