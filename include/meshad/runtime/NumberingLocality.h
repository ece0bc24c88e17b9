//===- meshad/runtime/NumberingLocality.h - Mesh numbering -*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// How local the numbering of an element kernel's index array is: the
/// statistic by which an element gradient's handle chooses, on its first
/// launch, between gather by recomputation and two-phase slots (issue 11,
/// docs/element-kernels.md, "The choice at run time").
///
/// For each local vertex j and each pair of consecutive elements t, t + 1,
/// the step |idx[c*(t+1) + j] - idx[c*t + j]| between the vertices they
/// name; the locality is the fraction of the nonzero steps of at most
/// localityWindow(V) vertices (a zero step, the same vertex again as in
/// the springs of one vertex in a row, says nothing of the numbering). A
/// grid, a mesh file or a subdivision (several sequential streams of
/// vertex numbers) has nearly every step small; a shuffled numbering has a
/// fraction of about 2 * window / V.
/// The gather rereads each element's vertices once per vertex and pays a
/// scattered numbering most (6.7x on the H100, V = 4M, where two-phase
/// slots pay 1.5x), so it is chosen when at least a fifth of the steps are
/// small (isLocalNumbering; measured: LocalNumberingShare). Under
/// ElementStrategy::Fastest the other choice is atomics, chosen below
/// GatherOverAtomicsShare (isGatherOverAtomics).
///
/// \code
///   double L = meshad::runtime::numberingLocality(dEdges, NumEdges, 2, V);
///   bool Gather = meshad::runtime::isLocalNumbering(L);
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_RUNTIME_NUMBERINGLOCALITY_H
#define MESHAD_RUNTIME_NUMBERINGLOCALITY_H

#include <vector>

#if defined(__CUDACC__) && __has_include(<thrust/count.h>)
#define MESHAD_LOCALITY_THRUST 1
#include <cuda_runtime.h>
#include <thrust/count.h>
#include <thrust/execution_policy.h>
#include <thrust/iterator/counting_iterator.h>
#elif defined(__CUDACC__)
#include <cuda_runtime.h>
#elif !defined(MESHAD_CPU_CUDA)
#error "meshad/runtime/NumberingLocality.h needs CUDA or the CPU emulation"
#endif

namespace meshad {
namespace runtime {

/// The largest step between consecutive elements' vertices that counts as
/// local: V / 16, at least 16 and at most 65536 vertices (65536 3D fp64
/// vertices are 1.5 MB, a small part of an H100's 50 MB L2).
inline long localityWindow(long NumVertices) {
  long W = NumVertices / 16;
  return W < 16 ? 16 : W > 65536 ? 65536 : W;
}

/// The share of small steps from which the gather is chosen. On the H100
/// (session 8, benchmarks/elements): the gather won at 1.00 (springs, grid
/// order) and 0.28 (symmetric Dirichlet on the Loop-subdivided camel, whose
/// new vertices are numbered after the old ones), two-phase slots at 0.12
/// (the same two meshes with shuffled vertex numbers).
constexpr double LocalNumberingShare = 0.2;

inline bool isLocalNumbering(double Locality) {
  return Locality >= LocalNumberingShare;
}

/// The share of small steps from which the gather is chosen over atomics
/// (ElementStrategy::Fastest, which allows a nondeterministic gradient).
/// Atomics pay a scattered numbering less than two-phase slots do, so the
/// gather needs a more local numbering to beat them. On the H100
/// (benchmarks/elements, fp64, V = 1M springs, sessions 8 and 9): gather
/// 0.068 ms, atomics 0.181 at 1.00 (grid order); gather 0.249, atomics
/// 0.243 at 0.34 (vertex numbers shuffled within blocks of 6 windows);
/// gather 0.480, atomics 0.263 at 0.12 (shuffled). With the logarithm of
/// the time ratio linear in the locality between 0.34 and 1.00 they cross
/// at 0.36, where either choice costs about the same. The subdivided camel
/// (triangles, 0.28) is on the atomics' side: atomics 0.164, gather 0.217.
constexpr double GatherOverAtomicsShare = 0.35;

inline bool isGatherOverAtomics(double Locality) {
  return Locality >= GatherOverAtomicsShare;
}

/// Whether the step at position \p S (element S / Arity, local vertex
/// S % Arity, to the next element's) of \p Indices is nonzero, and, with
/// \p Window > 0, at most Window.
struct SmallStep {
  const int *Indices;
  int Arity;
  long Window;
#if defined(__CUDACC__)
  __host__ __device__
#endif
  bool operator()(long S) const {
    long D = static_cast<long>(Indices[S + Arity]) - Indices[S];
    D = D < 0 ? -D : D;
    return D != 0 && (Window <= 0 || D <= Window);
  }
};

/// The number of positions below \p Steps where \p Pred holds.
inline long countSteps(long Steps, const SmallStep &Pred) {
#if defined(MESHAD_LOCALITY_THRUST)
  return thrust::count_if(thrust::device, thrust::counting_iterator<long>(0),
                          thrust::counting_iterator<long>(Steps), Pred);
#else
  long Count = 0;
  for (long S = 0; S < Steps; ++S)
    Count += Pred(S);
  return Count;
#endif
}

/// The fraction of the nonzero steps between consecutive elements' vertices
/// of at most localityWindow(NumVertices) (1 when there are none);
/// \p DeviceIndices holds NumElements * Arity vertex indices in device
/// memory. Only the speed depends on it: both strategies it chooses from
/// give the gradient.
inline double numberingLocality(const int *DeviceIndices, int NumElements,
                                int Arity, int NumVertices) {
  long Steps = static_cast<long>(NumElements - 1) * Arity;
  if (Steps <= 0)
    return 1;
#if defined(MESHAD_LOCALITY_THRUST) || defined(MESHAD_CPU_CUDA)
  // On the GPU, or under the CPU emulation (device memory is host memory).
  const int *Indices = DeviceIndices;
#else
  std::vector<int> Copy(static_cast<size_t>(Steps + Arity));
  if (cudaMemcpy(Copy.data(), DeviceIndices, Copy.size() * sizeof(int),
                 cudaMemcpyDeviceToHost) != cudaSuccess)
    return 1; // unreadable here: the launch reports the error
  const int *Indices = Copy.data();
#endif
  long NonZero = countSteps(Steps, SmallStep{Indices, Arity, 0});
  long Small =
      countSteps(Steps, SmallStep{Indices, Arity, localityWindow(NumVertices)});
  return NonZero ? static_cast<double>(Small) / NonZero : 1;
}

} // namespace runtime
} // namespace meshad

#endif // MESHAD_RUNTIME_NUMBERINGLOCALITY_H
