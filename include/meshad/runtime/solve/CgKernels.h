//===- meshad/runtime/solve/CgKernels.h - CG's scalars on the device -*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The kernels of conjugate gradients that keep alpha, beta and the
/// residual norm in device memory (CgScalars), so that an iteration has no
/// host round trip: the dot products are reduceKernel's partials
/// (DeviceVector.h) added in order by one thread, which also computes the
/// scalars and the stop test; the vector updates read them from device
/// memory and do nothing once the solve has stopped. The arithmetic is the
/// host loop's (the same partials added in the same order, the same
/// expressions), so both give the same iterates bit for bit. cgWith
/// (LinearSolvers.h) launches them when CgOptions::DeviceScalars is set
/// and copies the scalars back every CgOptions::CheckEvery iterations.
///
/// \code
///   // one iteration, Partials: 3 * detail::MaxReduceBlocks values
///   Apply(P, AP);
///   int Nb = detail::launchReduce(N, ReduceOp::Dot, P, AP, Partials);
///   MESHAD_LAUNCH(detail::cgCurvatureKernel<T>, 1, 1)(S, Partials, Nb);
///   ...
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_RUNTIME_SOLVE_CGKERNELS_H
#define MESHAD_RUNTIME_SOLVE_CGKERNELS_H

#include "meshad/runtime/solve/DeviceVector.h"

namespace meshad {
namespace runtime {
namespace solve {

enum class CgStatus : int { Running, Converged, MaxIterations, NegativeCurvature };

/// The scalars of one CG solve, in device memory.
struct CgScalars {
  double RZ = 0;    ///< r . z
  double Alpha = 0; ///< r . z / p . A p
  double Beta = 0;  ///< the new r . z over the old one
  double RelativeResidual = 0, BNorm = 0, Tolerance = 0;
  int Iterations = 0, MaxIterations = 0;
  CgStatus Status = CgStatus::Running;
};

namespace detail {

/// p . A p from its partials: non-positive curvature stops the solve, else
/// Alpha = r . z / p . A p. One thread.
template <class T>
__global__ void cgCurvatureKernel(CgScalars *S, const T *Partials, int Blocks) {
  if (S->Status != CgStatus::Running)
    return;
  double PAP = addPartials(ReduceOp::Dot, Partials, Blocks);
  if (!(PAP > 0)) {
    S->Status = CgStatus::NegativeCurvature;
    return;
  }
  S->Alpha = S->RZ / PAP;
}

/// X += Alpha P, R -= Alpha AP (axpy's expression) while running.
template <class T>
__global__ void cgStepKernel(long N, const CgScalars *S, const T *P,
                             const T *AP, T *X, T *R) {
  if (S->Status != CgStatus::Running)
    return;
  T A = T(S->Alpha), MinusA = T(-S->Alpha);
  MESHAD_SOLVE_GRID_STRIDE(I, N) {
    X[I] = A * P[I] + T(1) * X[I];
    R[I] = MinusA * AP[I] + T(1) * R[I];
  }
}

/// r . z and r . r from their partials: Beta and the count (not on the
/// first call, before any iteration), then the stop test. One thread.
template <class T>
__global__ void cgResidualKernel(CgScalars *S, const T *RZPartials,
                                 const T *RRPartials, int Blocks, bool First) {
  if (S->Status != CgStatus::Running)
    return;
  double RZNew = addPartials(ReduceOp::Dot, RZPartials, Blocks);
  if (!First) {
    S->Beta = RZNew / S->RZ;
    ++S->Iterations;
  }
  S->RZ = RZNew;
  T RR = addPartials(ReduceOp::Dot, RRPartials, Blocks);
  S->RelativeResidual = double(sqrt(RR)) / S->BNorm;
  if (S->RelativeResidual <= S->Tolerance)
    S->Status = CgStatus::Converged;
  else if (S->Iterations >= S->MaxIterations)
    S->Status = CgStatus::MaxIterations;
}

/// P = Z + Beta P (axpby's expression) while running.
template <class T>
__global__ void cgDirectionKernel(long N, const CgScalars *S, const T *Z,
                                  T *P) {
  if (S->Status != CgStatus::Running)
    return;
  T B = T(S->Beta);
  MESHAD_SOLVE_GRID_STRIDE(I, N)
    P[I] = T(1) * Z[I] + B * P[I];
}

} // namespace detail
} // namespace solve
} // namespace runtime
} // namespace meshad

#endif // MESHAD_RUNTIME_SOLVE_CGKERNELS_H
