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
  double RZOld = 0; ///< the fused iteration's r . z of the last iteration
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

/// The fused iteration of pcg (CgOptions::FusedKernels): three launches
/// instead of nine. Every block adds the partials of the launch before in
/// the same order, so all blocks read the same scalar; block 0 keeps it in
/// CgScalars; no launch writes a field that its own blocks read.

/// The block's sum of V (a fixed tree); thread 0 gets it.
template <class T> __device__ T blockSum(T V, T *Part) {
  Part[threadIdx.x] = V;
  __syncthreads();
  for (int H = blockDim.x / 2; H > 0; H /= 2) { // blockDim.x: a power of 2
    if (threadIdx.x < H)
      Part[threadIdx.x] += Part[threadIdx.x + H];
    __syncthreads();
  }
  T Sum = Part[0];
  __syncthreads();
  return Sum;
}

/// Y = A X (one thread per row) and the blocks' partials of X . Y.
template <class T, class MatrixT>
__global__ void spmvDotKernel(MatrixT A, const T *X, T *Y, T *Partials) {
  __shared__ T Part[VectorBlock];
  T Acc = 0;
  MESHAD_SOLVE_GRID_STRIDE(Item, A.Rows) {
    int R = static_cast<int>(Item);
    T Row = 0;
    for (int P = A.RowOffsets[R]; P < A.RowOffsets[R + 1]; ++P)
      Row += A.Values[P] * X[A.Columns[P]];
    Y[R] = Row;
    Acc += X[R] * Row;
  }
  T Sum = blockSum(Acc, Part);
  if (threadIdx.x == 0)
    Partials[blockIdx.x] = Sum;
}

/// Alpha from p . A p's partials (non-positive: stop), then per vertex of
/// B rows: x += alpha p, r -= alpha A p, z = Inv_v r_v (B x B row-major
/// inverses, B = 1: Jacobi), and the blocks' partials of r . z and r . r
/// (at Out and Out + MaxReduceBlocks).
template <class T>
__global__ void cgFusedStepKernel(long Vertices, int B, CgScalars *S,
                                  const T *PAPPartials, int PAPBlocks,
                                  const T *Inv, const T *P, const T *AP, T *X,
                                  T *R, T *Z, T *Out) {
  __shared__ T Part[VectorBlock];
  __shared__ double PAP;
  if (S->Status != CgStatus::Running)
    return;
  if (threadIdx.x == 0)
    PAP = addPartials(ReduceOp::Dot, PAPPartials, PAPBlocks);
  __syncthreads();
  bool Lead = blockIdx.x == 0 && threadIdx.x == 0;
  if (!(PAP > 0)) {
    if (Lead)
      S->Status = CgStatus::NegativeCurvature;
    return;
  }
  double Alpha = S->RZ / PAP;
  T A = T(Alpha), RZ = 0, RR = 0;
  MESHAD_SOLVE_GRID_STRIDE(V, Vertices) {
    T Rv[3];
    for (int K = 0; K < B; ++K) {
      long I = V * B + K;
      X[I] = A * P[I] + T(1) * X[I];
      Rv[K] = R[I] = -A * AP[I] + T(1) * R[I];
    }
    for (int K = 0; K < B; ++K) {
      const T *M = Inv + (V * B + K) * B;
      T Zk = 0;
      for (int J = 0; J < B; ++J)
        Zk += M[J] * Rv[J];
      Z[V * B + K] = Zk;
      RZ += Rv[K] * Zk;
      RR += Rv[K] * Rv[K];
    }
  }
  RZ = blockSum(RZ, Part);
  RR = blockSum(RR, Part);
  if (threadIdx.x == 0) {
    Out[blockIdx.x] = RZ;
    Out[MaxReduceBlocks + blockIdx.x] = RR;
  }
  if (Lead) {
    S->Alpha = Alpha;
    S->RZOld = S->RZ;
    ++S->Iterations;
  }
}

/// r . z and r . r from cgFusedStepKernel's partials: beta, the residual,
/// the stop test; then p = z + beta p unless stopped.
template <class T>
__global__ void cgFusedDirectionKernel(long N, CgScalars *S, const T *Partials,
                                       int Blocks, const T *Z, T *P) {
  __shared__ double RZ, RR;
  if (S->Status != CgStatus::Running)
    return;
  if (threadIdx.x == 0) {
    RZ = addPartials(ReduceOp::Dot, Partials, Blocks);
    RR = addPartials(ReduceOp::Dot, Partials + MaxReduceBlocks, Blocks);
  }
  __syncthreads();
  double Beta = RZ / S->RZOld, Relative = sqrt(RR) / S->BNorm;
  bool Converged = Relative <= S->Tolerance,
       Stop = Converged || S->Iterations >= S->MaxIterations;
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    S->RZ = RZ;
    S->Beta = Beta;
    S->RelativeResidual = Relative;
    if (Stop)
      S->Status = Converged ? CgStatus::Converged : CgStatus::MaxIterations;
  }
  if (Stop)
    return;
  T Bt = T(Beta);
  MESHAD_SOLVE_GRID_STRIDE(I, N)
    P[I] = T(1) * Z[I] + Bt * P[I];
}

} // namespace detail
} // namespace solve
} // namespace runtime
} // namespace meshad

#endif // MESHAD_RUNTIME_SOLVE_CGKERNELS_H
