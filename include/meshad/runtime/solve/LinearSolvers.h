//===- meshad/runtime/solve/LinearSolvers.h - Sparse SPD solves -*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The linear solves of Newton's method on a symmetric positive definite
/// matrix in plain CSR (int32 offsets and columns, device arrays, the
/// format SparseHessian<T> assembles):
/// - conjugate gradients over any operator (`cg`): Jacobi-preconditioned on
///   a CSR matrix (`pcg`: SpMV through cuSPARSE when MESHAD_SOLVE_CUSPARSE is
///   defined, link -lcusparse; an own CSR kernel otherwise and under the CPU
///   emulation), or matrix-free through an HVP;
/// - a direct sparse Cholesky (`choleskySolve`): cuSOLVER's
///   cusolverSpDcsrlsvchol when MESHAD_SOLVE_CUSOLVER is defined (double,
///   link -lcusolver -lcusparse), else a host skyline (envelope) Cholesky of
///   the matrix copied back, fine for the small problems of tests.
///
/// \code
///   using namespace meshad::runtime::solve;
///   CsrView<double> A{N, H.csrRowOffsets(), H.csrColumns(), H.values()};
///   CgResult R = pcg(A, B, X, CgOptions{1e-10, 1000});  // X: initial guess
///   choleskySolve(A, B, X);                              // X = A^-1 B
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_RUNTIME_SOLVE_LINEARSOLVERS_H
#define MESHAD_RUNTIME_SOLVE_LINEARSOLVERS_H

#include "meshad/runtime/solve/DeviceVector.h"

#include <cmath>
#include <string>
#include <vector>

#if defined(__CUDACC__) && defined(MESHAD_SOLVE_CUSPARSE)
#include <cusparse.h>
#endif
#if defined(__CUDACC__) && defined(MESHAD_SOLVE_CUSOLVER)
#include <cusolverSp.h>
#include <cusparse.h>
#endif

namespace meshad {
namespace runtime {
namespace solve {

/// A CSR matrix in device memory (not owned).
template <class T> struct CsrView {
  int Rows = 0;
  const int *RowOffsets = nullptr; ///< Rows + 1
  const int *Columns = nullptr;    ///< RowOffsets[Rows]
  const T *Values = nullptr;
};

struct CgOptions {
  double RelativeTolerance = 1e-10; ///< stop at |r| <= tol |b|
  int MaxIterations = 1000;
};

struct CgResult {
  int Iterations = 0;
  double RelativeResidual = 0;
  bool Converged = false;
  bool NegativeCurvature = false; ///< p^T A p <= 0 met (stopped there)
};

namespace detail {

template <class T>
__global__ void csrSpmvKernel(CsrView<T> A, const T *X, T *Y) {
  MESHAD_SOLVE_GRID_STRIDE(Item, A.Rows) {
    int R = static_cast<int>(Item);
    T Acc = 0;
    for (int P = A.RowOffsets[R]; P < A.RowOffsets[R + 1]; ++P)
      Acc += A.Values[P] * X[A.Columns[P]];
    Y[R] = Acc;
  }
}

/// InvDiag[r] = 1 / A(r, r) (1 where the diagonal is not positive).
template <class T>
__global__ void inverseDiagonalKernel(CsrView<T> A, T *InvDiag) {
  MESHAD_SOLVE_GRID_STRIDE(Item, A.Rows) {
    int R = static_cast<int>(Item);
    T D = 0;
    for (int P = A.RowOffsets[R]; P < A.RowOffsets[R + 1]; ++P)
      if (A.Columns[P] == R)
        D += A.Values[P];
    InvDiag[R] = D > T(0) ? T(1) / D : T(1);
  }
}

} // namespace detail

/// Y = A X (X and Y distinct).
template <class T> void spmv(const CsrView<T> &A, const T *X, T *Y) {
#if defined(__CUDACC__) && defined(MESHAD_SOLVE_CUSPARSE)
  static thread_local cusparseHandle_t Handle = nullptr;
  if (!Handle)
    cusparseCreate(&Handle);
  cudaDataType Ty = sizeof(T) == 8 ? CUDA_R_64F : CUDA_R_32F;
  int Nnz = 0;
  cudaMemcpy(&Nnz, A.RowOffsets + A.Rows, sizeof(int), cudaMemcpyDeviceToHost);
  cusparseSpMatDescr_t M;
  cusparseDnVecDescr_t VX, VY;
  cusparseCreateCsr(&M, A.Rows, A.Rows, Nnz, const_cast<int *>(A.RowOffsets),
                    const_cast<int *>(A.Columns), const_cast<T *>(A.Values),
                    CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                    CUSPARSE_INDEX_BASE_ZERO, Ty);
  cusparseCreateDnVec(&VX, A.Rows, const_cast<T *>(X), Ty);
  cusparseCreateDnVec(&VY, A.Rows, Y, Ty);
  T One = 1, Zero = 0;
  size_t Bytes = 0;
  cusparseSpMV_bufferSize(Handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &One, M,
                          VX, &Zero, VY, Ty, CUSPARSE_SPMV_ALG_DEFAULT, &Bytes);
  static thread_local DeviceBuffer<char> Work;
  if (Work.size() < static_cast<long>(Bytes))
    Work.resize(static_cast<long>(Bytes));
  cusparseSpMV(Handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &One, M, VX, &Zero,
               VY, Ty, CUSPARSE_SPMV_ALG_DEFAULT, Work.data());
  cusparseDestroySpMat(M);
  cusparseDestroyDnVec(VX);
  cusparseDestroyDnVec(VY);
#else
  if (A.Rows)
    MESHAD_LAUNCH(detail::csrSpmvKernel<T>, detail::shapeFor(A.Rows).Blocks,
                  detail::shapeFor(A.Rows).Threads)
    (A, X, Y);
#endif
}

/// Preconditioned conjugate gradients for A X = B, A symmetric positive
/// definite given as an operator: \p Apply(P, AP) sets AP = A P. \p InvDiag
/// (a diagonal preconditioner, device, N values) may be null. X holds the
/// initial guess and gets the solution. Stops at |r| <= tol |B|, at the
/// iteration limit, or on non-positive curvature (X is then the last
/// iterate; the first direction when it met it at once is B itself).
template <class T, class ApplyFn>
CgResult cg(long N, ApplyFn &&Apply, const T *InvDiag, const T *B, T *X,
            const CgOptions &Opt = {}) {
  CgResult Res;
  DeviceBuffer<T> R(N), Z(N), P(N), AP(N);
  Apply(X, AP.data());
  addScaled(N, B, T(-1), AP.data(), R.data()); // r = b - A x
  double BNorm = norm(N, B);
  if (BNorm == 0) {
    fill(N, T(0), X);
    Res.Converged = true;
    return Res;
  }
  auto Precondition = [&] {
    if (InvDiag)
      multiply(N, InvDiag, R.data(), Z.data());
    else
      copy(N, R.data(), Z.data());
  };
  Precondition();
  copy(N, Z.data(), P.data());
  double RZ = dot(N, R.data(), Z.data());
  for (;;) {
    Res.RelativeResidual = norm(N, R.data()) / BNorm;
    if (Res.RelativeResidual <= Opt.RelativeTolerance) {
      Res.Converged = true;
      return Res;
    }
    if (Res.Iterations >= Opt.MaxIterations)
      return Res;
    Apply(P.data(), AP.data());
    double PAP = dot(N, P.data(), AP.data());
    if (!(PAP > 0)) {
      Res.NegativeCurvature = true;
      if (Res.Iterations == 0)
        copy(N, B, X);
      return Res;
    }
    double Alpha = RZ / PAP;
    axpy(N, T(Alpha), P.data(), X);
    axpy(N, T(-Alpha), AP.data(), R.data());
    Precondition();
    double RZNew = dot(N, R.data(), Z.data());
    axpby(N, T(1), Z.data(), T(RZNew / RZ), P.data()); // p = z + beta p
    RZ = RZNew;
    ++Res.Iterations;
  }
}

/// Jacobi-preconditioned CG on a CSR matrix.
template <class T>
CgResult pcg(const CsrView<T> &A, const T *B, T *X, const CgOptions &Opt = {}) {
  DeviceBuffer<T> InvDiag(A.Rows);
  if (A.Rows)
    MESHAD_LAUNCH(detail::inverseDiagonalKernel<T>,
                  detail::shapeFor(A.Rows).Blocks,
                  detail::shapeFor(A.Rows).Threads)
    (A, InvDiag.data());
  return cg(
      A.Rows, [&](const T *P, T *AP) { spmv(A, P, AP); }, InvDiag.data(), B,
      X, Opt);
}

namespace detail {

/// A host skyline Cholesky: row i of L is stored from its first nonzero
/// column First[i] to the diagonal. Throws MeshError when A is not SPD.
template <class T>
std::vector<T> skylineCholeskySolve(int N, const std::vector<int> &Off,
                                    const std::vector<int> &Col,
                                    const std::vector<T> &Val,
                                    std::vector<T> B) {
  std::vector<int> First(N), Start(N + 1, 0);
  for (int I = 0; I < N; ++I) {
    First[I] = I;
    for (int P = Off[I]; P < Off[I + 1]; ++P)
      First[I] = std::min(First[I], Col[P]);
    Start[I + 1] = Start[I] + (I - First[I] + 1);
  }
  std::vector<double> L(Start[N], 0.0);
  auto At = [&](int I, int J) -> double & { return L[Start[I] + J - First[I]]; };
  for (int I = 0; I < N; ++I)
    for (int P = Off[I]; P < Off[I + 1]; ++P)
      if (Col[P] <= I)
        At(I, Col[P]) += Val[P];
  for (int I = 0; I < N; ++I) {
    for (int J = First[I]; J <= I; ++J) {
      double S = At(I, J);
      for (int K = std::max(First[I], First[J]); K < J; ++K)
        S -= At(I, K) * At(J, K);
      if (J < I)
        At(I, J) = S / At(J, J);
      else if (S > 0)
        At(I, I) = std::sqrt(S);
      else
        throw MeshError("cholesky: the matrix is not positive definite (row " +
                        std::to_string(I) + ")");
    }
  }
  std::vector<double> Y(B.begin(), B.end());
  for (int I = 0; I < N; ++I) { // L y = b
    for (int K = First[I]; K < I; ++K)
      Y[I] -= At(I, K) * Y[K];
    Y[I] /= At(I, I);
  }
  for (int I = N - 1; I >= 0; --I) { // L^T x = y
    Y[I] /= At(I, I);
    for (int K = First[I]; K < I; ++K)
      Y[K] -= At(I, K) * Y[I];
  }
  return std::vector<T>(Y.begin(), Y.end());
}

} // namespace detail

/// X = A^-1 B by a sparse Cholesky factorization (A symmetric positive
/// definite, both triangles stored). Throws MeshError when A is not SPD.
template <class T> void choleskySolve(const CsrView<T> &A, const T *B, T *X) {
  int N = A.Rows;
  if (N == 0)
    return;
#if defined(__CUDACC__) && defined(MESHAD_SOLVE_CUSOLVER)
  if constexpr (sizeof(T) == 8) {
    static thread_local cusolverSpHandle_t Handle = nullptr;
    if (!Handle)
      cusolverSpCreate(&Handle);
    cusparseMatDescr_t Descr;
    cusparseCreateMatDescr(&Descr);
    cusparseSetMatType(Descr, CUSPARSE_MATRIX_TYPE_GENERAL);
    cusparseSetMatIndexBase(Descr, CUSPARSE_INDEX_BASE_ZERO);
    int Nnz = 0, Singular = -1;
    cudaMemcpy(&Nnz, A.RowOffsets + N, sizeof(int), cudaMemcpyDeviceToHost);
    cusolverSpDcsrlsvchol(Handle, N, Nnz, Descr, A.Values, A.RowOffsets,
                          A.Columns, B, 0.0, /*reorder=*/1, X, &Singular);
    cusparseDestroyMatDescr(Descr);
    if (Singular >= 0)
      throw MeshError("cholesky: the matrix is not positive definite (row " +
                      std::to_string(Singular) + ")");
    return;
  }
#endif
  int Nnz = 0;
  cudaMemcpy(&Nnz, A.RowOffsets + N, sizeof(int), cudaMemcpyDeviceToHost);
  std::vector<int> Off(N + 1), Col(Nnz);
  std::vector<T> Val(Nnz), HostB(N);
  cudaMemcpy(Off.data(), A.RowOffsets, (N + 1) * sizeof(int),
             cudaMemcpyDeviceToHost);
  cudaMemcpy(Col.data(), A.Columns, Nnz * sizeof(int), cudaMemcpyDeviceToHost);
  cudaMemcpy(Val.data(), A.Values, Nnz * sizeof(T), cudaMemcpyDeviceToHost);
  cudaMemcpy(HostB.data(), B, N * sizeof(T), cudaMemcpyDeviceToHost);
  std::vector<T> HostX = detail::skylineCholeskySolve(N, Off, Col, Val, HostB);
  cudaMemcpy(X, HostX.data(), N * sizeof(T), cudaMemcpyHostToDevice);
}

} // namespace solve
} // namespace runtime
} // namespace meshad

#endif // MESHAD_RUNTIME_SOLVE_LINEARSOLVERS_H
