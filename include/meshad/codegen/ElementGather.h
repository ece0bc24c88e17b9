//===- meshad/codegen/ElementGather.h - Gathers of element DOFs -*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Device helpers of the kernels meshad generates for element kernels
/// (lib/GPU/ElementGather.h, lib/AD/HessianElementKernel.h): an element's
/// DOFs gathered into a local array, and the gather by recomputation's
/// per-vertex sums (one thread per vertex, its incident elements in the
/// fixed order of the incidence, plain stores).
///
/// \code
///   double _sum[3] = {};
///   for (int _i = _offsets[_v]; _i < _offsets[_v + 1]; ++_i) {
///     int e = _incident[_i] / 2;
///     double _xl[6];
///     meshad::gatherElement<2, 3>(x, edges, e, _xl);
///     double _gl[6] = {};
///     springs_element_grad(n, edges, e, _xl, _d_E[0], _gl);
///     meshad::keepVertexPart<2, 3>(_sum, _gl, _incident[_i] - 2 * e);
///   }
///   meshad::addVertexSum<3>(_d_x, _v, _sum);
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_CODEGEN_ELEMENTGATHER_H
#define MESHAD_CODEGEN_ELEMENTGATHER_H

#if defined(__CUDACC__) || defined(MESHAD_CPU_CUDA)

namespace meshad {

/// Element \p E's Arity * S DOFs, X[S * Idx[Arity * E + a] + k], into \p Xl
/// (local DOF a * S + k): called by the generated kernel.
template <int Arity, int S, class T>
__device__ inline void gatherElement(const T *X, const int *Idx, int E,
                                     T *Xl) {
  for (int A = 0; A < Arity; ++A)
    for (int K = 0; K < S; ++K)
      Xl[A * S + K] = X[S * Idx[Arity * E + A] + K];
}

/// keepVertexPart for local vertices From..Arity-1: a branch per local
/// vertex, each reading \p Gl at constant indices.
template <int From, int Arity, int S, class T>
__device__ inline void keepVertexPartFrom(T *Sum, const T *Gl, int J) {
  if constexpr (From + 1 < Arity) {
    if (J != From)
      return keepVertexPartFrom<From + 1, Arity, S>(Sum, Gl, J);
  }
#pragma unroll
  for (int K = 0; K < S; ++K)
    Sum[K] += Gl[S * From + K];
}

/// Sum[k] += Gl[S * J + k]: the part of an element's local gradient \p Gl
/// that belongs to its local vertex \p J. Gl is read at constant indices
/// only (a branch per local vertex; selects are folded back into one load
/// at a run-time address): indexed by the run-time J, the local gradient
/// would live in local memory instead of registers (PTX of the elements
/// benchmark's gathers: 48, 72 and 96 bytes a thread before).
template <int Arity, int S, class T>
__device__ inline void keepVertexPart(T *Sum, const T *Gl, int J) {
  keepVertexPartFrom<0, Arity, S>(Sum, Gl, J);
}

/// Adjoint[S * V + k] += Sum[k], once per vertex.
template <int S, class T>
__device__ inline void addVertexSum(T *Adjoint, long long V, const T *Sum) {
  for (int K = 0; K < S; ++K)
    Adjoint[S * V + K] += Sum[K];
}

} // namespace meshad

#endif // __CUDACC__ || MESHAD_CPU_CUDA

#endif // MESHAD_CODEGEN_ELEMENTGATHER_H
