//===- meshad/codegen/SlotSums.h - Phase 2 of two-phase slots ---*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The second phase of the two-phase strategy (lib/GPU/TwoPhaseSlots.h): a
/// generated element kernel has added element t's local adjoint of vertex
/// component (j, k) to Slots[Stride*(Arity*t + j) + k]; one thread per
/// vertex v sums its slots in the fixed order of the incidence
/// (meshad/runtime/Incidence.h: the slots Arity*t + j naming v, increasing)
/// and adds the sums to the adjoint once. No atomics; the same bits on
/// every run.
///
/// \code
///   meshad::slotAdd<2, 3>(_slots, n, e, 2 * e + 1, k, -_r0);  // phase 1
///   meshad::slotStore<2, 3>(_slots, n, e, 2 * e + 1, k, -_r0); // (stored
///                                           // once per path: no zeroing)
///   meshad::slotSums<double, 3><<<(V + 255) / 256, 256>>>(
///       Inc.offsets(), Inc.slots(), Slots, _d_x, V);
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_CODEGEN_SLOTSUMS_H
#define MESHAD_CODEGEN_SLOTSUMS_H

#if defined(__CUDACC__) || defined(MESHAD_CPU_CUDA)

namespace meshad {

/// Phase 1: Slots[Stride*Pos + K] += V for element E of N, where Pos is the
/// position Arity*E + j of the vertex in the index array and K the
/// component. The generated code derives Pos and K from the kernel's own
/// indices; they are checked here (an element writes its own slots only),
/// so that a slot out of range stops the kernel instead of racing.
template <int Arity, int Stride, class T>
__device__ inline void slotAdd(T *Slots, long long N, long long E,
                               long long Pos, long long K, T V) {
  if (E < 0 || E >= N || Pos < Arity * E || Pos >= Arity * E + Arity ||
      K < 0 || K >= Stride)
    detail::launchShapeError("meshad: an element adds to a slot that is not "
                             "its own (index outside the element map)\n");
  Slots[Stride * Pos + K] += V;
}

/// Phase 1 where each slot of an element is stored exactly once on every
/// path (proven by the generator, lib/GPU/SlotStores.h): Slots[Stride*Pos +
/// K] = V, with slotAdd's checks. The handle then need not zero the slots
/// when its launch covers every element.
template <int Arity, int Stride, class T>
__device__ inline void slotStore(T *Slots, long long N, long long E,
                                 long long Pos, long long K, T V) {
  if (E < 0 || E >= N || Pos < Arity * E || Pos >= Arity * E + Arity ||
      K < 0 || K >= Stride)
    detail::launchShapeError("meshad: an element stores to a slot that is "
                             "not its own (index outside the element map)\n");
  Slots[Stride * Pos + K] = V;
}

/// Adjoint[Stride*v + k] += the slots of vertex v, for v < NumVertices.
template <class T, int Stride>
__global__ void slotSums(const int *Offsets, const int *Entries,
                         const T *Slots, T *Adjoint, int NumVertices) {
  int V = blockIdx.x * blockDim.x + threadIdx.x;
  if (V >= NumVertices || Offsets[V] == Offsets[V + 1])
    return;
  T Sum[Stride];
  for (int K = 0; K < Stride; ++K)
    Sum[K] = T(0);
  for (int I = Offsets[V]; I < Offsets[V + 1]; ++I) {
    const T *Slot = Slots + static_cast<long long>(Stride) * Entries[I];
    for (int K = 0; K < Stride; ++K)
      Sum[K] += Slot[K];
  }
  for (int K = 0; K < Stride; ++K)
    Adjoint[static_cast<long long>(Stride) * V + K] += Sum[K];
}

} // namespace meshad

#endif // __CUDACC__ || MESHAD_CPU_CUDA

#endif // MESHAD_CODEGEN_SLOTSUMS_H
