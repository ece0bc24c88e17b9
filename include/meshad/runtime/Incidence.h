//===- meshad/runtime/Incidence.h - DOF-to-element incidence ----*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The inverse of an element kernel's index array: for an array of
/// NumElements * Arity vertex indices (`edges[2*t + j]`, `tets[4*t + j]`),
/// the incidence lists, for every vertex (DOF owner), the slots that name it,
/// Slot = Arity * element + j, in increasing order. Compressed rows: vertex
/// v's slots are Slots[Offsets[v] .. Offsets[v + 1]).
///
/// Built on the GPU (a stable radix sort of the indices by key, then the row
/// starts by binary search; Thrust/CUB of the CUDA toolkit), or on the host
/// under the CPU emulation and in CUDA builds without Thrust (the indices
/// copied back); both give the same arrays, so that a gather over
/// it adds the contributions in a fixed order and is bitwise reproducible.
/// An index outside [0, NumVertices) is a MeshError (it would be a write out
/// of bounds), found for free in the sorted keys.
///
/// \code
///   meshad::runtime::Incidence Inc(dEdges, NumEdges, 2, NumVertices);
///   // Inc.offsets(), Inc.slots(): device arrays until Inc is destroyed
///   gatherKernel<<<...>>>(Inc.offsets(), Inc.slots(), ...);
///   Inc.rebuild(dEdges, NumEdges, 2, NumVertices); // connectivity changed
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_RUNTIME_INCIDENCE_H
#define MESHAD_RUNTIME_INCIDENCE_H

#include "meshad/runtime/Mesh.h"

#include <string>
#include <utility>
#include <vector>

#if defined(__CUDACC__) && __has_include(<thrust/sort.h>)
#define MESHAD_INCIDENCE_THRUST 1
#include <cuda_runtime.h>
#include <thrust/binary_search.h>
#include <thrust/device_ptr.h>
#include <thrust/device_vector.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/sequence.h>
#include <thrust/extrema.h>
#include <thrust/sort.h>
#elif defined(__CUDACC__)
#include <cuda_runtime.h>
#elif !defined(MESHAD_CPU_CUDA)
#error "meshad/runtime/Incidence.h needs CUDA or the CPU emulation"
#endif

namespace meshad {
namespace runtime {

inline std::string incidenceRangeError(long Slot, int Index, int NumVertices) {
  return "incidence: index[" + std::to_string(Slot) + "] = " +
         std::to_string(Index) + " is not a vertex (" +
         std::to_string(NumVertices) + " vertices)";
}

/// The incidence on the host, by a stable counting sort (also the reference
/// the GPU build is tested against).
inline Csr buildIncidenceOnHost(const int *Indices, int NumElements, int Arity,
                                int NumVertices) {
  long N = static_cast<long>(NumElements) * Arity;
  Csr R;
  R.Offsets.assign(NumVertices + 1, 0);
  for (long S = 0; S < N; ++S) {
    if (Indices[S] < 0 || Indices[S] >= NumVertices)
      throw MeshError(incidenceRangeError(S, Indices[S], NumVertices));
    ++R.Offsets[Indices[S] + 1];
  }
  for (int V = 0; V < NumVertices; ++V)
    R.Offsets[V + 1] += R.Offsets[V];
  R.Entries.resize(N);
  std::vector<int> Fill(R.Offsets.begin(), R.Offsets.end() - 1);
  for (long S = 0; S < N; ++S)
    R.Entries[Fill[Indices[S]]++] = static_cast<int>(S);
  return R;
}

/// The incidence of a device index array, in device memory it owns.
class Incidence {
public:
  Incidence() = default;
  /// \p DeviceIndices: NumElements * Arity vertex indices in device memory.
  Incidence(const int *DeviceIndices, int NumElements, int Arity,
            int NumVertices) {
    rebuild(DeviceIndices, NumElements, Arity, NumVertices);
  }
  Incidence(const Incidence &) = delete;
  Incidence &operator=(const Incidence &) = delete;
  Incidence(Incidence &&O) noexcept { *this = std::move(O); }
  Incidence &operator=(Incidence &&O) noexcept {
    std::swap(Offsets, O.Offsets);
    std::swap(Slots, O.Slots);
    std::swap(Shape, O.Shape);
    return *this;
  }
  ~Incidence() { release(); }

  /// Builds the incidence again (the connectivity changed).
  void rebuild(const int *DeviceIndices, int NumElements, int Arity,
               int NumVertices);

  const int *offsets() const { return Offsets; }  ///< NumVertices + 1
  const int *slots() const { return Slots; }      ///< NumElements * Arity
  int numVertices() const { return Shape.NumVertices; }
  int numElements() const { return Shape.NumElements; }
  int arity() const { return Shape.Arity; }

  /// True when this incidence was built for these sizes: a handle checks
  /// it before every launch, so that a stale incidence is an error.
  bool matches(int NumElements, int Arity, int NumVertices) const {
    return Shape.NumElements == NumElements && Shape.Arity == Arity &&
           Shape.NumVertices == NumVertices;
  }

  /// Both arrays copied back to the host.
  Csr toHost() const {
    Csr R;
    R.Offsets.resize(Shape.NumVertices + 1);
    R.Entries.resize(static_cast<size_t>(Shape.NumElements) * Shape.Arity);
    cudaMemcpy(R.Offsets.data(), Offsets, R.Offsets.size() * sizeof(int),
               cudaMemcpyDeviceToHost);
    cudaMemcpy(R.Entries.data(), Slots, R.Entries.size() * sizeof(int),
               cudaMemcpyDeviceToHost);
    return R;
  }

private:
  struct Sizes {
    int NumElements = 0, Arity = 0, NumVertices = 0;
  };
  int *Offsets = nullptr;
  int *Slots = nullptr;
  Sizes Shape;

  void release() {
    cudaFree(Offsets);
    cudaFree(Slots);
    Offsets = Slots = nullptr;
    Shape = Sizes();
  }

  void allocate(int NumElements, int Arity, int NumVertices) {
    release();
    size_t N = static_cast<size_t>(NumElements) * Arity;
    if (cudaMalloc(reinterpret_cast<void **>(&Offsets),
                   (NumVertices + 1) * sizeof(int)) != cudaSuccess ||
        cudaMalloc(reinterpret_cast<void **>(&Slots),
                   (N ? N : 1) * sizeof(int)) != cudaSuccess)
      throw MeshError("incidence: out of device memory");
    Shape = {NumElements, Arity, NumVertices};
  }
};

/// The number of vertices an index array names: its largest index + 1
/// (0 for no indices). A negative index is a MeshError.
int countVertices(const int *DeviceIndices, long NumIndices);

#if defined(MESHAD_INCIDENCE_THRUST)
inline int countVertices(const int *DeviceIndices, long NumIndices) {
  if (NumIndices <= 0)
    return 0;
  auto Begin = thrust::device_pointer_cast(DeviceIndices);
  auto MinMax = thrust::minmax_element(Begin, Begin + NumIndices);
  int Lo = *MinMax.first, Hi = *MinMax.second;
  if (Lo < 0)
    throw MeshError(incidenceRangeError(MinMax.first - Begin, Lo, Hi + 1));
  return Hi + 1;
}

inline void Incidence::rebuild(const int *DeviceIndices, int NumElements,
                               int Arity, int NumVertices) {
  allocate(NumElements, Arity, NumVertices);
  long N = static_cast<long>(NumElements) * Arity;
  thrust::device_vector<int> Keys(thrust::device_pointer_cast(DeviceIndices),
                                  thrust::device_pointer_cast(DeviceIndices) +
                                      N);
  thrust::device_ptr<int> SlotPtr = thrust::device_pointer_cast(Slots);
  thrust::sequence(SlotPtr, SlotPtr + N);
  // Radix sort: stable, so each row keeps its slots in increasing order.
  thrust::stable_sort_by_key(Keys.begin(), Keys.end(), SlotPtr);
  if (N > 0) {
    int First = Keys.front(), Last = Keys.back();
    if (First < 0 || Last >= NumVertices) {
      int Bad = First < 0 ? First : Last;
      int Slot = First < 0 ? SlotPtr[0] : SlotPtr[N - 1];
      release();
      throw MeshError(incidenceRangeError(Slot, Bad, NumVertices));
    }
  }
  thrust::device_ptr<int> OffPtr = thrust::device_pointer_cast(Offsets);
  thrust::lower_bound(Keys.begin(), Keys.end(),
                      thrust::counting_iterator<int>(0),
                      thrust::counting_iterator<int>(NumVertices + 1), OffPtr);
}
#else
/// The indices on the host (under the CPU emulation, device memory is host
/// memory; without Thrust, a copy).
inline std::vector<int> hostIndices(const int *DeviceIndices, long N) {
#if defined(MESHAD_CPU_CUDA)
  // Any host memory is device memory (kernels may read stack arrays too).
  return std::vector<int>(DeviceIndices, DeviceIndices + (N > 0 ? N : 0));
#else
  std::vector<int> Host(N > 0 ? N : 0);
  if (N > 0 && cudaMemcpy(Host.data(), DeviceIndices, N * sizeof(int),
                          cudaMemcpyDeviceToHost) != cudaSuccess)
    throw MeshError("incidence: cannot read the index array");
  return Host;
#endif
}

inline int countVertices(const int *DeviceIndices, long NumIndices) {
  std::vector<int> Host = hostIndices(DeviceIndices, NumIndices);
  int Hi = -1;
  long Negative = -1;
  for (long S = 0; S < NumIndices; ++S) {
    if (Host[S] < 0 && Negative < 0)
      Negative = S;
    Hi = Host[S] > Hi ? Host[S] : Hi;
  }
  // As on the GPU: the vertices the other indices name.
  if (Negative >= 0)
    throw MeshError(incidenceRangeError(Negative, Host[Negative], Hi + 1));
  return Hi + 1;
}

inline void Incidence::rebuild(const int *DeviceIndices, int NumElements,
                               int Arity, int NumVertices) {
  // The CPU emulation, or CUDA without Thrust: built on the host.
  std::vector<int> Host =
      hostIndices(DeviceIndices, static_cast<long>(NumElements) * Arity);
  Csr R = buildIncidenceOnHost(Host.data(), NumElements, Arity, NumVertices);
  allocate(NumElements, Arity, NumVertices);
  cudaMemcpy(Offsets, R.Offsets.data(), R.Offsets.size() * sizeof(int),
             cudaMemcpyHostToDevice);
  cudaMemcpy(Slots, R.Entries.data(), R.Entries.size() * sizeof(int),
             cudaMemcpyHostToDevice);
}
#endif

} // namespace runtime
} // namespace meshad

#endif // MESHAD_RUNTIME_INCIDENCE_H
