//===- benchmarks/elements/handwritten.cu - Hand-written gradients --------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// What an expert writes for an element energy's gradient, with the local
/// gradients of Energies.h derived by hand:
///   - scatter: one thread per element, atomicAdd of each vertex's part;
///   - gather: one thread per vertex walks its incident elements (the
///     incidence, meshad/runtime/Incidence.h), recomputes each element's
///     local gradient and keeps its own part: no atomics, fixed order;
///   - two-phase: one thread per element writes its local gradient to its
///     slots, then one thread per vertex sums its slots in the incidence's
///     order: no atomics, fixed order, each element evaluated once.
///
//===----------------------------------------------------------------------===//

#include "Elements.h"

namespace elements {
namespace {

constexpr int MaxLocal = 12; // 3 * 4 (tets)

__global__ void scatterKernel(Problem P, const double *X, const double *DE,
                              double *DX) {
  int T = blockIdx.x * blockDim.x + threadIdx.x;
  if (T >= P.NumElements)
    return;
  double G[MaxLocal];
  localGradient(P.Kind, P.Elements, P.Rest, P.Measure, X, T, G);
  double Seed = DE[0];
  for (int J = 0; J < P.Arity; ++J) {
    int V = P.Elements[P.Arity * T + J];
    for (int K = 0; K < 3; ++K)
      atomicAdd(&DX[3 * V + K], Seed * G[3 * J + K]);
  }
}

__global__ void gatherKernel(Problem P, const double *X, const double *DE,
                             double *DX) {
  int V = blockIdx.x * blockDim.x + threadIdx.x;
  if (V >= P.NumVertices)
    return;
  double Sum[3] = {0, 0, 0};
  for (int I = P.IncOffsets[V]; I < P.IncOffsets[V + 1]; ++I) {
    int Slot = P.IncSlots[I];
    int T = Slot / P.Arity, J = Slot - T * P.Arity;
    double G[MaxLocal];
    localGradient(P.Kind, P.Elements, P.Rest, P.Measure, X, T, G);
    for (int K = 0; K < 3; ++K)
      Sum[K] += G[3 * J + K];
  }
  double Seed = DE[0];
  for (int K = 0; K < 3; ++K)
    DX[3 * V + K] += Seed * Sum[K];
}

__global__ void slotsKernel(Problem P, const double *X) {
  int T = blockIdx.x * blockDim.x + threadIdx.x;
  if (T >= P.NumElements)
    return;
  double G[MaxLocal];
  localGradient(P.Kind, P.Elements, P.Rest, P.Measure, X, T, G);
  for (int I = 0; I < 3 * P.Arity; ++I)
    P.SlotBuf[3 * P.Arity * T + I] = G[I];
}

__global__ void segmentedSumKernel(Problem P, const double *DE, double *DX) {
  int V = blockIdx.x * blockDim.x + threadIdx.x;
  if (V >= P.NumVertices)
    return;
  double Sum[3] = {0, 0, 0};
  for (int I = P.IncOffsets[V]; I < P.IncOffsets[V + 1]; ++I) {
    const double *S = P.SlotBuf + 3 * P.IncSlots[I];
    for (int K = 0; K < 3; ++K)
      Sum[K] += S[K];
  }
  double Seed = DE[0];
  for (int K = 0; K < 3; ++K)
    DX[3 * V + K] += Seed * Sum[K];
}

} // namespace

void handScatter(const Problem &P, const double *X, double *, double *DX,
                 double *DE) {
  MESHAD_LAUNCH(scatterKernel, grid1D(P.NumElements), dim3(BlockSize))(P, X,
                                                                      DE, DX);
}

void handGather(const Problem &P, const double *X, double *, double *DX,
                double *DE) {
  MESHAD_LAUNCH(gatherKernel, grid1D(P.NumVertices), dim3(BlockSize))(P, X,
                                                                     DE, DX);
}

void handTwoPhase(const Problem &P, const double *X, double *, double *DX,
                  double *DE) {
  MESHAD_LAUNCH(slotsKernel, grid1D(P.NumElements), dim3(BlockSize))(P, X);
  MESHAD_LAUNCH(segmentedSumKernel, grid1D(P.NumVertices), dim3(BlockSize))(
      P, DE, DX);
}

} // namespace elements
