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
/// - conjugate gradients over any operator (`cg`, `cgWith`): on a CSR matrix
///   (`pcg`) preconditioned by block-Jacobi (the inverses of the vertices'
///   2x2 / 3x3 diagonal blocks, CgOptions::Precondition) or Jacobi, its
///   SpMV through cuSPARSE when MESHAD_SOLVE_CUSPARSE is defined (link
///   -lcusparse; the descriptors kept in an SpmvPlan across calls) or an own
///   CSR kernel (and under the CPU emulation); or matrix-free through an HVP;
///   alpha, beta and the residual stay on the device (CgKernels.h,
///   CgOptions::DeviceScalars), read back every CheckEvery iterations;
/// - a direct sparse Cholesky (`choleskySolve`, SparseCholesky.h): cuSOLVER's
///   low-level sparse Cholesky after a METIS ordering when
///   MESHAD_SOLVE_CUSOLVER is defined (double, link -lcusolver -lcusparse),
///   else a host envelope Cholesky after a reverse Cuthill-McKee ordering,
///   fine for the small problems of tests.
///
/// \code
///   using namespace meshad::runtime::solve;
///   CsrView<double> A{N, H.csrRowOffsets(), H.csrColumns(), H.values()};
///   A.BlockSize = 3;                                     // DOFs per vertex
///   PcgWorkspace<double> W;                              // kept across calls
///   CgResult R = pcg(A, B, X, CgOptions{1e-10, 1000}, &W); // X: initial guess
///   choleskySolve(A, B, X);                              // X = A^-1 B
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_RUNTIME_SOLVE_LINEARSOLVERS_H
#define MESHAD_RUNTIME_SOLVE_LINEARSOLVERS_H

#include "meshad/runtime/solve/CgKernels.h"
#include "meshad/runtime/solve/DeviceVector.h"
#include "meshad/runtime/solve/SparseCholesky.h"

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#if defined(__CUDACC__) && defined(MESHAD_SOLVE_CUSPARSE)
#include <cusparse.h>
#endif

namespace meshad {
namespace runtime {
namespace solve {

/// What `pcg` multiplies the residual by.
enum class Preconditioner {
  Jacobi,     ///< the inverse of the diagonal
  BlockJacobi ///< the inverses of the B x B diagonal blocks (B = 2, 3)
};

struct CgOptions {
  double RelativeTolerance = 1e-10; ///< stop at |r| <= tol |b|
  int MaxIterations = 1000;
  /// pcg's preconditioner; BlockJacobi is Jacobi where BlockSize is 1 or
  /// above 3, and per vertex where a block is not positive definite.
  Preconditioner Precondition = Preconditioner::BlockJacobi;
  /// Alpha, beta and the residual norm stay in device memory (CgKernels.h):
  /// no host round trip in an iteration; the host reads the scalars every
  /// CheckEvery iterations (the iterations after the stop do nothing). The
  /// same iterates as the host dots (false: a sync per dot product).
  bool DeviceScalars = true;
  int CheckEvery = 8;
  /// pcg with DeviceScalars: an iteration in three launches (the SpMV with
  /// p . A p's partials, or cuSPARSE's SpMV and a reduction; the step with
  /// the preconditioner and r . z, r . r's partials; the direction with
  /// beta and the stop test) instead of nine (CgKernels.h). The same
  /// algorithm; the dot products add the same terms in another order, so
  /// the iterates differ from the unfused ones in round-off.
  bool FusedKernels = true;
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

/// Inv[v] = the inverse of vertex v's B x B diagonal block (row-major, B*B
/// values a vertex; B <= 3) by Cholesky; the inverse of its diagonal where
/// the block is not positive definite. One thread per vertex.
template <class T>
__global__ void blockJacobiInverseKernel(CsrView<T> A, T *Inv) {
  const int B = A.BlockSize;
  MESHAD_SOLVE_GRID_STRIDE(Item, A.Rows / B) {
    int V = static_cast<int>(Item);
    T M[9] = {}, L[9] = {}, *Out = Inv + static_cast<long>(B) * B * V;
    for (int I = 0; I < B; ++I)
      for (int P = A.RowOffsets[B * V + I]; P < A.RowOffsets[B * V + I + 1];
           ++P)
        if (A.Columns[P] >= B * V && A.Columns[P] < B * V + B)
          M[I * B + A.Columns[P] - B * V] += A.Values[P];
    bool Spd = true; // M = L L^T
    for (int I = 0; I < B && Spd; ++I)
      for (int J = 0; J <= I; ++J) {
        T Sum = M[I * B + J];
        for (int K = 0; K < J; ++K)
          Sum -= L[I * B + K] * L[J * B + K];
        if (J < I)
          L[I * B + J] = Sum / L[J * B + J];
        else if (Sum > T(0))
          L[I * B + I] = sqrt(Sum);
        else
          Spd = false;
      }
    for (int C = 0; C < B; ++C) { // column C of M^-1: L L^T x = e_C
      T X[3];
      for (int I = 0; I < B; ++I) {
        T Sum = I == C ? T(1) : T(0);
        for (int K = 0; K < I; ++K)
          Sum -= L[I * B + K] * X[K];
        X[I] = Spd ? Sum / L[I * B + I] : T(0);
      }
      for (int I = B - 1; I >= 0 && Spd; --I) {
        for (int K = I + 1; K < B; ++K)
          X[I] -= L[K * B + I] * X[K];
        X[I] /= L[I * B + I];
      }
      for (int I = 0; I < B; ++I) {
        T Diag = M[I * B + I];
        T Jacobi = I == C && Diag > T(0) ? T(1) / Diag : I == C ? T(1) : T(0);
        Out[I * B + C] = Spd ? X[I] : Jacobi;
      }
    }
  }
}

/// Z = Inv R, vertex by vertex (one thread per row).
template <class T>
__global__ void blockJacobiApplyKernel(long N, int B, const T *Inv, const T *R,
                                    T *Z) {
  MESHAD_SOLVE_GRID_STRIDE(I, N) {
    long V = I / B, Row = I % B;
    const T *M = Inv + (V * B + Row) * B;
    T Acc = 0;
    for (int J = 0; J < B; ++J)
      Acc += M[J] * R[V * B + J];
    Z[I] = Acc;
  }
}

} // namespace detail

/// Y = A X with a matrix's SpMV state kept across calls: with cuSPARSE
/// (MESHAD_SOLVE_CUSPARSE), the handle, the matrix and vector descriptors
/// and the work buffer, created on the first call for a matrix (its arrays
/// and size) and again only when another matrix comes; freed with the
/// plan. Without cuSPARSE, the own CSR kernel (nothing to keep).
template <class T> class SpmvPlan {
public:
  SpmvPlan() = default;
  SpmvPlan(const SpmvPlan &) = delete;
  SpmvPlan &operator=(const SpmvPlan &) = delete;
  ~SpmvPlan() { release(); }

  /// Y = A X (X and Y distinct).
  void operator()(const CsrView<T> &A, const T *X, T *Y) {
    if (!A.Rows)
      return;
#if defined(__CUDACC__) && defined(MESHAD_SOLVE_CUSPARSE)
    prepare(A, X, Y);
    cusparseDnVecSetValues(VX, const_cast<T *>(X));
    cusparseDnVecSetValues(VY, Y);
    T One = 1, Zero = 0;
    cusparseSpMV(Handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &One, M, VX, &Zero,
                 VY, valueType(), CUSPARSE_SPMV_ALG_DEFAULT, Work.data());
#else
    MESHAD_LAUNCH(detail::csrSpmvKernel<T>, detail::shapeFor(A.Rows).Blocks,
                  detail::shapeFor(A.Rows).Threads)
    (A, X, Y);
#endif
  }
  /// The descriptors were made (again) this many times: once per matrix.
  int setups() const { return Setups; }

private:
  int Setups = 0;
#if defined(__CUDACC__) && defined(MESHAD_SOLVE_CUSPARSE)
  cusparseHandle_t Handle = nullptr;
  cusparseSpMatDescr_t M = nullptr;
  cusparseDnVecDescr_t VX = nullptr, VY = nullptr;
  DeviceBuffer<char> Work;
  CsrView<T> For;

  static cudaDataType valueType() {
    return sizeof(T) == 8 ? CUDA_R_64F : CUDA_R_32F;
  }
  void prepare(const CsrView<T> &A, const T *X, T *Y) {
    if (M && A.Rows == For.Rows && A.RowOffsets == For.RowOffsets &&
        A.Columns == For.Columns && A.Values == For.Values)
      return;
    release();
    cusparseCreate(&Handle);
    int Nnz = 0;
    cudaMemcpy(&Nnz, A.RowOffsets + A.Rows, sizeof(int),
               cudaMemcpyDeviceToHost);
    cusparseCreateCsr(&M, A.Rows, A.Rows, Nnz, const_cast<int *>(A.RowOffsets),
                      const_cast<int *>(A.Columns), const_cast<T *>(A.Values),
                      CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                      CUSPARSE_INDEX_BASE_ZERO, valueType());
    cusparseCreateDnVec(&VX, A.Rows, const_cast<T *>(X), valueType());
    cusparseCreateDnVec(&VY, A.Rows, Y, valueType());
    T One = 1, Zero = 0;
    size_t Bytes = 0;
    cusparseSpMV_bufferSize(Handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &One, M,
                            VX, &Zero, VY, valueType(),
                            CUSPARSE_SPMV_ALG_DEFAULT, &Bytes);
    Work.resize(static_cast<long>(Bytes));
    For = A;
    ++Setups;
  }
  void release() {
    if (M)
      cusparseDestroySpMat(M);
    if (VX)
      cusparseDestroyDnVec(VX);
    if (VY)
      cusparseDestroyDnVec(VY);
    if (Handle)
      cusparseDestroy(Handle);
    M = nullptr;
    VX = VY = nullptr;
    Handle = nullptr;
  }
#else
  void release() {}
#endif
};

/// Y = A X (X and Y distinct), without state kept: a plan made for the
/// call (pcg keeps one for all its iterations).
template <class T> void spmv(const CsrView<T> &A, const T *X, T *Y) {
  SpmvPlan<T> Plan;
  Plan(A, X, Y);
}

/// What pcg keeps across calls on matrices of one pattern (the owner of the
/// matrix keeps it: Problem does): the SpMV plan, the preconditioner's
/// values and the CG vectors.
template <class T> struct PcgWorkspace {
  SpmvPlan<T> Spmv;
  DeviceBuffer<T> Preconditioner, R, Z, P, AP;
  DeviceBuffer<T> Partials;          ///< CgOptions::DeviceScalars: 3 dots'
  DeviceBuffer<CgScalars> Scalars;   ///< CgOptions::DeviceScalars
};

namespace detail {

/// One unfused CG iteration of cgDeviceLoop: nine launches.
template <class T, class ApplyFn, class ResidualFn>
void cgDeviceIteration(long N, ApplyFn &Apply, ResidualFn &Residual,
                       PcgWorkspace<T> &Ws, T *X) {
  T *PAP = Ws.Partials.data(), *P = Ws.P.data(), *AP = Ws.AP.data();
  CgScalars *S = Ws.Scalars.data();
  LaunchShape Shape = shapeFor(N);
  Apply(static_cast<const T *>(P), AP);
  int Nb = launchReduce(N, ReduceOp::Dot, static_cast<const T *>(P),
                        static_cast<const T *>(AP), PAP);
  MESHAD_LAUNCH(cgCurvatureKernel<T>, 1, 1)(S, PAP, Nb);
  MESHAD_LAUNCH(cgStepKernel<T>, Shape.Blocks, Shape.Threads)
  (N, S, P, AP, X, Ws.R.data());
  Residual(false);
  MESHAD_LAUNCH(cgDirectionKernel<T>, Shape.Blocks, Shape.Threads)
  (N, S, static_cast<const T *>(Ws.Z.data()), P);
}

/// cgWith's loop with its scalars on the device (CgKernels.h), from
/// r = b - A x and |b| (not 0) on: the same iterates as the host loop.
/// \p Iterate (null: cgDeviceIteration's nine launches) runs one
/// iteration after the first residual.
template <class T, class ApplyFn, class PreconditionFn>
CgResult cgDeviceLoop(long N, ApplyFn &Apply, PreconditionFn &Precondition,
                      const T *B, T *X, const CgOptions &Opt,
                      PcgWorkspace<T> &Ws, double BNorm,
                      const std::function<void()> &Iterate = nullptr) {
  Ws.Partials.resize(3 * MaxReduceBlocks);
  Ws.Scalars.resize(1);
  T *PAP = Ws.Partials.data(), *RZ = PAP + MaxReduceBlocks,
    *RR = RZ + MaxReduceBlocks;
  T *R = Ws.R.data(), *Z = Ws.Z.data(), *P = Ws.P.data(), *AP = Ws.AP.data();
  CgScalars Host, *S = Ws.Scalars.data();
  Host.BNorm = BNorm;
  Host.Tolerance = Opt.RelativeTolerance;
  Host.MaxIterations = Opt.MaxIterations;
  cudaMemcpy(S, &Host, sizeof(Host), cudaMemcpyHostToDevice);
  auto Residual = [&](bool First) { // r . z, |r|, beta, the stop test
    Precondition(static_cast<const T *>(R), Z);
    if (First)
      copy(N, static_cast<const T *>(Z), P);
    int Nb = launchReduce(N, ReduceOp::Dot, static_cast<const T *>(R),
                          static_cast<const T *>(Z), RZ);
    launchReduce(N, ReduceOp::Dot, static_cast<const T *>(R),
                 static_cast<const T *>(R), RR);
    MESHAD_LAUNCH(cgResidualKernel<T>, 1, 1)(S, RZ, RR, Nb, First);
  };
  Residual(true);
  for (;;) {
    cudaMemcpy(&Host, S, sizeof(Host), cudaMemcpyDeviceToHost);
    if (Host.Status != CgStatus::Running)
      break;
    int Left = Host.MaxIterations - Host.Iterations;
    for (int K = 0; K < std::min(std::max(1, Opt.CheckEvery), Left); ++K) {
      if (Iterate)
        Iterate();
      else
        cgDeviceIteration(N, Apply, Residual, Ws, X);
    }
  }
  CgResult Res;
  Res.Iterations = Host.Iterations;
  Res.RelativeResidual = Host.RelativeResidual;
  Res.Converged = Host.Status == CgStatus::Converged;
  Res.NegativeCurvature = Host.Status == CgStatus::NegativeCurvature;
  if (Res.NegativeCurvature && Res.Iterations == 0)
    copy(N, B, X);
  return Res;
}

} // namespace detail

/// Preconditioned conjugate gradients for A X = B, A symmetric positive
/// definite given as an operator: \p Apply(P, AP) sets AP = A P, and
/// \p Precondition(R, Z) sets Z = M^-1 R. X holds the initial guess and
/// gets the solution. Stops at |r| <= tol |B|, at the iteration limit, or
/// on non-positive curvature (X is then the last iterate; the first
/// direction when it met it at once is B itself). \p W: the vectors, kept
/// by the caller across calls (null: allocated for this call).
template <class T, class ApplyFn, class PreconditionFn>
CgResult cgWith(long N, ApplyFn &&Apply, PreconditionFn &&Precondition,
                const T *B, T *X, const CgOptions &Opt = {},
                PcgWorkspace<T> *W = nullptr);

namespace detail {

/// cgWith, its device loop's iterations by \p Iterate when given.
template <class T, class ApplyFn, class PreconditionFn>
CgResult cgIterated(long N, ApplyFn &Apply, PreconditionFn &Precondition,
                    const T *B, T *X, const CgOptions &Opt,
                    PcgWorkspace<T> *W,
                    const std::function<void()> &Iterate) {
  CgResult Res;
  PcgWorkspace<T> Local;
  PcgWorkspace<T> &Ws = W ? *W : Local;
  for (DeviceBuffer<T> *V : {&Ws.R, &Ws.Z, &Ws.P, &Ws.AP})
    if (V->size() != N)
      V->resize(N);
  DeviceBuffer<T> &R = Ws.R, &Z = Ws.Z, &P = Ws.P, &AP = Ws.AP;
  Apply(X, AP.data());
  addScaled(N, B, T(-1), AP.data(), R.data()); // r = b - A x
  double BNorm = norm(N, B);
  if (BNorm == 0) {
    fill(N, T(0), X);
    Res.Converged = true;
    return Res;
  }
  if (Opt.DeviceScalars)
    return cgDeviceLoop(N, Apply, Precondition, B, X, Opt, Ws, BNorm, Iterate);
  Precondition(static_cast<const T *>(R.data()), Z.data());
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
    Precondition(static_cast<const T *>(R.data()), Z.data());
    double RZNew = dot(N, R.data(), Z.data());
    axpby(N, T(1), Z.data(), T(RZNew / RZ), P.data()); // p = z + beta p
    RZ = RZNew;
    ++Res.Iterations;
  }
}

/// pcg's iteration in three launches (CgOptions::FusedKernels; Inv: the
/// B x B inverses, B = 1 for Jacobi).
template <class T>
void pcgFusedIteration(const CsrView<T> &A, int B, const T *Inv,
                       PcgWorkspace<T> &Ws, T *X) {
  long N = A.Rows, Vertices = N / B;
  T *PAP = Ws.Partials.data(), *P = Ws.P.data(), *AP = Ws.AP.data();
  CgScalars *S = Ws.Scalars.data();
  int Nb;
#if defined(__CUDACC__) && defined(MESHAD_SOLVE_CUSPARSE)
  Ws.Spmv(A, P, AP);
  Nb = launchReduce(N, ReduceOp::Dot, static_cast<const T *>(P),
                    static_cast<const T *>(AP), PAP);
#else
  Nb = std::min(MaxReduceBlocks, shapeFor(N).Blocks);
  MESHAD_LAUNCH((spmvDotKernel<T, CsrView<T>>), Nb, shapeFor(N).Threads)
  (A, static_cast<const T *>(P), AP, PAP);
#endif
  int Vb = std::min(MaxReduceBlocks, shapeFor(Vertices).Blocks);
  MESHAD_LAUNCH(cgFusedStepKernel<T>, Vb, shapeFor(Vertices).Threads)
  (Vertices, B, S, static_cast<const T *>(PAP), Nb, Inv,
   static_cast<const T *>(P), static_cast<const T *>(AP), X, Ws.R.data(),
   Ws.Z.data(), PAP + MaxReduceBlocks);
  MESHAD_LAUNCH(cgFusedDirectionKernel<T>, shapeFor(N).Blocks,
                shapeFor(N).Threads)
  (N, S, static_cast<const T *>(PAP + MaxReduceBlocks), Vb,
   static_cast<const T *>(Ws.Z.data()), P);
}

} // namespace detail

template <class T, class ApplyFn, class PreconditionFn>
CgResult cgWith(long N, ApplyFn &&Apply, PreconditionFn &&Precondition,
                const T *B, T *X, const CgOptions &Opt, PcgWorkspace<T> *W) {
  return detail::cgIterated(N, Apply, Precondition, B, X, Opt, W, nullptr);
}

/// Preconditioned CG over any operator with a diagonal preconditioner
/// \p InvDiag (device, N values; null: none).
template <class T, class ApplyFn>
CgResult cg(long N, ApplyFn &&Apply, const T *InvDiag, const T *B, T *X,
            const CgOptions &Opt = {}) {
  auto Precondition = [&](const T *R, T *Z) {
    if (InvDiag)
      multiply(N, InvDiag, R, Z);
    else
      copy(N, R, Z);
  };
  return cgWith(N, Apply, Precondition, B, X, Opt);
}

/// True when pcg inverts A's diagonal blocks (Opt.Precondition and A's
/// block size 2 or 3).
template <class T>
bool usesBlockJacobi(const CsrView<T> &A, const CgOptions &Opt) {
  return Opt.Precondition == Preconditioner::BlockJacobi &&
         (A.BlockSize == 2 || A.BlockSize == 3) && A.Rows % A.BlockSize == 0;
}

/// Preconditioned CG on a CSR matrix: Jacobi or block-Jacobi
/// (Opt.Precondition). \p W (kept by the matrix's owner across calls on
/// one pattern; null: made for this call) keeps cuSPARSE's descriptors and
/// the buffers.
template <class T>
CgResult pcg(const CsrView<T> &A, const T *B, T *X, const CgOptions &Opt = {},
             PcgWorkspace<T> *W = nullptr) {
  PcgWorkspace<T> Local;
  PcgWorkspace<T> &Ws = W ? *W : Local;
  bool Blocks = usesBlockJacobi(A, Opt);
  long N = A.Rows, Size = Blocks ? N * A.BlockSize : N;
  if (Ws.Preconditioner.size() != Size)
    Ws.Preconditioner.resize(Size);
  T *M = Ws.Preconditioner.data();
  if (N && Blocks)
    MESHAD_LAUNCH(detail::blockJacobiInverseKernel<T>,
                  detail::shapeFor(N / A.BlockSize).Blocks,
                  detail::shapeFor(N / A.BlockSize).Threads)
    (A, M);
  else if (N)
    MESHAD_LAUNCH(detail::inverseDiagonalKernel<T>, detail::shapeFor(N).Blocks,
                  detail::shapeFor(N).Threads)
    (A, M);
  auto Precondition = [&](const T *R, T *Z) {
    if (!Blocks)
      return multiply(N, static_cast<const T *>(M), R, Z);
    MESHAD_LAUNCH(detail::blockJacobiApplyKernel<T>, detail::shapeFor(N).Blocks,
                  detail::shapeFor(N).Threads)
    (N, A.BlockSize, static_cast<const T *>(M), R, Z);
  };
  auto Apply = [&](const T *P, T *AP) { Ws.Spmv(A, P, AP); };
  std::function<void()> Fused;
  if (Opt.FusedKernels && N)
    Fused = [&] {
      detail::pcgFusedIteration(A, Blocks ? A.BlockSize : 1,
                                static_cast<const T *>(M), Ws, X);
    };
  return detail::cgIterated(N, Apply, Precondition, B, X, Opt, &Ws, Fused);
}

/// X = A^-1 B by a sparse Cholesky factorization made for this call
/// (SparseCholesky.h; Newton keeps one across its iterations: the ordering
/// and symbolic analysis once per pattern). A symmetric positive definite,
/// both triangles stored. Throws MeshError when A is not SPD.
template <class T> void choleskySolve(const CsrView<T> &A, const T *B, T *X) {
  SparseCholesky<T> Factor;
  if (!Factor.factor(A) || !Factor.solve(B, X))
    throw MeshError("cholesky: the matrix is not positive definite");
}

} // namespace solve
} // namespace runtime
} // namespace meshad

#endif // MESHAD_RUNTIME_SOLVE_LINEARSOLVERS_H
