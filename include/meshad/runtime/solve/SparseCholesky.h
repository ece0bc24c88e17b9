//===- meshad/runtime/solve/SparseCholesky.h - Sparse Cholesky -*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A sparse direct Cholesky factorization A = L L^T of symmetric positive
/// definite CSR matrices (both triangles stored, the format SparseHessian<T>
/// assembles) that share one pattern, as Newton's matrices do: the
/// fill-reducing ordering and the symbolic analysis run once per pattern,
/// the numeric factorization once per matrix, then any number of solves.
/// Its cost does not grow with the conditioning of A (CG's does: O(N)
/// iterations on a cloth of N x N vertices), only with the fill of L.
/// - On a GPU (MESHAD_SOLVE_CUSOLVER, double; link -lcusolver -lcusparse):
///   METIS's nested dissection ordering (cusolverSpXcsrmetisndHost), the
///   permuted pattern (cusolverSpXcsrpermHost) and cuSOLVER's low-level
///   sparse Cholesky: cusolverSpXcsrcholAnalysis once,
///   cusolverSpDcsrcholFactor per matrix, cusolverSpDcsrcholSolve per
///   right-hand side, the values permuted on the device.
/// - Otherwise (the CPU emulation, float): on the host, a reverse
///   Cuthill-McKee ordering and an envelope (skyline) factor whose profile
///   is computed once; fine for the small problems of tests.
///
/// \code
///   using namespace meshad::runtime::solve;
///   SparseCholesky<double> F;                  // kept across iterations
///   CsrView<double> A = P.hessian(X, true);    // or any SPD CSR matrix
///   if (!F.factor(A) || !F.solve(B, D))        // D = A^-1 B (device arrays)
///     ...;                                     // A is not positive definite
///   F.analyses();                              // 1 while the pattern stays
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_RUNTIME_SOLVE_SPARSECHOLESKY_H
#define MESHAD_RUNTIME_SOLVE_SPARSECHOLESKY_H

#include "meshad/runtime/solve/DeviceVector.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#if defined(__CUDACC__) && defined(MESHAD_SOLVE_CUSOLVER)
#include <cusolverSp.h>
#include <cusolverSp_LOWLEVEL_PREVIEW.h>
#include <cusparse.h>
#define MESHAD_SOLVE_CUSOLVER_CHOLESKY 1
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
  /// DOFs per vertex: rows B v .. B v + B - 1 are one vertex's (the
  /// diagonal blocks block-Jacobi inverts; Problem::csr() sets it).
  int BlockSize = 1;
};

namespace detail {

/// Out[i] = In[Index[i]].
template <class T>
__global__ void gatherKernel(long N, const int *Index, const T *In, T *Out) {
  MESHAD_SOLVE_GRID_STRIDE(I, N) { Out[I] = In[Index[I]]; }
}

/// Out[Index[i]] = In[i].
template <class T>
__global__ void scatterKernel(long N, const int *Index, const T *In, T *Out) {
  MESHAD_SOLVE_GRID_STRIDE(I, N) { Out[Index[I]] = In[I]; }
}

/// A reverse Cuthill-McKee ordering of a symmetric pattern: Order[new] =
/// old. Each connected component from a pseudo-peripheral vertex (the
/// last level of a breadth-first search, repeated while it deepens),
/// neighbours in increasing degree; the whole order reversed.
inline std::vector<int> reverseCuthillMcKee(int N, const std::vector<int> &Off,
                                            const std::vector<int> &Col) {
  auto Degree = [&](int V) { return Off[V + 1] - Off[V]; };
  std::vector<int> Order, Level(N, -1);
  Order.reserve(N);
  std::vector<char> Placed(N, 0);
  auto Search = [&](int Root, std::vector<int> &Out) { // BFS; depth
    Out.assign(1, Root);
    std::fill(Level.begin(), Level.end(), -1);
    Level[Root] = 0;
    for (size_t K = 0; K < Out.size(); ++K) {
      int V = Out[K];
      size_t First = Out.size();
      for (int P = Off[V]; P < Off[V + 1]; ++P)
        if (Level[Col[P]] < 0 && !Placed[Col[P]]) {
          Level[Col[P]] = Level[V] + 1;
          Out.push_back(Col[P]);
        }
      std::sort(Out.begin() + First, Out.end(), [&](int A, int B) {
        return std::make_pair(Degree(A), A) < std::make_pair(Degree(B), B);
      });
    }
    return Level[Out.back()];
  };
  std::vector<int> Component;
  for (int Start = 0; Start < N; ++Start) {
    if (Placed[Start])
      continue;
    int Root = Start, Depth = Search(Root, Component);
    for (int Tries = 0; Tries < 8; ++Tries) { // a pseudo-peripheral root
      int Best = Component.back();
      for (int V : Component)
        if (Level[V] == Depth && Degree(V) < Degree(Best))
          Best = V;
      std::vector<int> Other;
      int Deeper = Search(Best, Other);
      if (Deeper <= Depth)
        break;
      Root = Best;
      Depth = Deeper;
      Component.swap(Other);
    }
    Search(Root, Component);
    for (int V : Component)
      Placed[V] = 1;
    Order.insert(Order.end(), Component.begin(), Component.end());
  }
  std::reverse(Order.begin(), Order.end());
  return Order;
}

/// The envelope (skyline) Cholesky factor of a permuted matrix on the host:
/// row i of L stored from its first nonzero column First[i] to the
/// diagonal. The profile and where each CSR value goes are computed once
/// (analyze); factor adds the values in and eliminates.
template <class T> class EnvelopeCholesky {
public:
  void analyze(int Rows, const std::vector<int> &Off,
               const std::vector<int> &Col) {
    N = Rows;
    Order = reverseCuthillMcKee(N, Off, Col);
    std::vector<int> NewOf(N);
    for (int I = 0; I < N; ++I)
      NewOf[Order[I]] = I;
    First.assign(N, 0);
    for (int I = 0; I < N; ++I)
      First[I] = I;
    for (int R = 0; R < N; ++R)
      for (int P = Off[R]; P < Off[R + 1]; ++P) {
        int I = NewOf[R], J = NewOf[Col[P]];
        if (J < I)
          First[I] = std::min(First[I], J);
      }
    Start.assign(N + 1, 0);
    for (int I = 0; I < N; ++I)
      Start[I + 1] = Start[I] + (I - First[I] + 1);
    Slot.assign(Off[N], -1);
    for (int R = 0; R < N; ++R)
      for (int P = Off[R]; P < Off[R + 1]; ++P) {
        int I = NewOf[R], J = NewOf[Col[P]];
        if (J <= I)
          Slot[P] = Start[I] + J - First[I];
      }
    L.assign(Start[N], 0.0);
  }
  /// L L^T = A's values (its pattern analyzed); -1, else the first row
  /// whose pivot is not positive.
  long factor(const std::vector<T> &Val) {
    std::fill(L.begin(), L.end(), 0.0);
    for (size_t P = 0; P < Val.size(); ++P)
      if (Slot[P] >= 0)
        L[Slot[P]] += Val[P];
    for (int I = 0; I < N; ++I)
      for (int J = First[I]; J <= I; ++J) {
        double S = at(I, J);
        for (int K = std::max(First[I], First[J]); K < J; ++K)
          S -= at(I, K) * at(J, K);
        if (J < I)
          at(I, J) = S / at(J, J);
        else if (S > 0)
          at(I, I) = std::sqrt(S);
        else
          return I;
      }
    return -1;
  }
  /// X = A^-1 B (host vectors of the original numbering).
  std::vector<T> solve(const std::vector<T> &B) const {
    std::vector<double> Y(N);
    for (int I = 0; I < N; ++I)
      Y[I] = B[Order[I]];
    for (int I = 0; I < N; ++I) { // L y = b
      for (int K = First[I]; K < I; ++K)
        Y[I] -= at(I, K) * Y[K];
      Y[I] /= at(I, I);
    }
    for (int I = N - 1; I >= 0; --I) { // L^T x = y
      Y[I] /= at(I, I);
      for (int K = First[I]; K < I; ++K)
        Y[K] -= at(I, K) * Y[I];
    }
    std::vector<T> X(N);
    for (int I = 0; I < N; ++I)
      X[Order[I]] = static_cast<T>(Y[I]);
    return X;
  }
  long factorEntries() const { return static_cast<long>(L.size()); }

private:
  int N = 0;
  std::vector<int> Order, First, Start;
  std::vector<long> Slot; ///< CSR entry -> its place in L (upper: -1)
  std::vector<double> L;

  double &at(int I, int J) { return L[Start[I] + J - First[I]]; }
  double at(int I, int J) const { return L[Start[I] + J - First[I]]; }
};

#ifdef MESHAD_SOLVE_CUSOLVER_CHOLESKY
inline void checkCusolver(cusolverStatus_t S, const char *What) {
  if (S != CUSOLVER_STATUS_SUCCESS)
    throw MeshError(std::string("cholesky: ") + What + " failed (cuSOLVER " +
                    std::to_string(static_cast<int>(S)) + ")");
}

/// cuSOLVER's low-level sparse Cholesky of one pattern, METIS-ordered.
class CusolverCholesky {
public:
  CusolverCholesky() {
    checkCusolver(cusolverSpCreate(&Handle), "cusolverSpCreate");
    cusparseCreateMatDescr(&Descr);
    cusparseSetMatType(Descr, CUSPARSE_MATRIX_TYPE_GENERAL);
    cusparseSetMatIndexBase(Descr, CUSPARSE_INDEX_BASE_ZERO);
  }
  CusolverCholesky(const CusolverCholesky &) = delete;
  CusolverCholesky &operator=(const CusolverCholesky &) = delete;
  ~CusolverCholesky() {
    if (Info)
      cusolverSpDestroyCsrcholInfo(Info);
    cusparseDestroyMatDescr(Descr);
    cusolverSpDestroy(Handle);
  }

  /// The ordering, the permuted pattern (rows sorted) and the symbolic
  /// factorization; Off and Col are the host copies of the pattern.
  void analyze(int Rows, std::vector<int> Off, std::vector<int> Col) {
    N = Rows;
    int Nnz = Off[N];
    std::vector<int> Perm(N), Map(Nnz);
    checkCusolver(cusolverSpXcsrmetisndHost(Handle, N, Nnz, Descr, Off.data(),
                                            Col.data(), nullptr, Perm.data()),
                  "the METIS ordering");
    size_t Bytes = 0;
    checkCusolver(cusolverSpXcsrperm_bufferSizeHost(
                      Handle, N, N, Nnz, Descr, Off.data(), Col.data(),
                      Perm.data(), Perm.data(), &Bytes),
                  "csrperm_bufferSize");
    std::vector<char> Work(std::max<size_t>(Bytes, 1));
    std::iota(Map.begin(), Map.end(), 0);
    checkCusolver(cusolverSpXcsrpermHost(Handle, N, N, Nnz, Descr, Off.data(),
                                         Col.data(), Perm.data(), Perm.data(),
                                         Map.data(), Work.data()),
                  "csrperm");
    sortRows(Off, Col, Map);
    RowsD.upload(Off);
    ColsD.upload(Col);
    MapD.upload(Map);
    PermD.upload(Perm);
    ValuesD.resize(Nnz);
    Pb.resize(N);
    Px.resize(N);
    if (Info)
      cusolverSpDestroyCsrcholInfo(Info);
    checkCusolver(cusolverSpCreateCsrcholInfo(&Info), "csrcholInfo");
    checkCusolver(cusolverSpXcsrcholAnalysis(Handle, N, Nnz, Descr,
                                             RowsD.data(), ColsD.data(), Info),
                  "the symbolic analysis");
    size_t Internal = 0, Workspace = 0;
    checkCusolver(cusolverSpDcsrcholBufferInfo(
                      Handle, N, Nnz, Descr, ValuesD.data(), RowsD.data(),
                      ColsD.data(), Info, &Internal, &Workspace),
                  "csrcholBufferInfo");
    Buffer.resize(static_cast<long>(std::max<size_t>(Workspace, 1)));
  }
  /// The numeric factorization of A's values; false where a pivot is not
  /// positive.
  bool factor(const double *Values) {
    long Nnz = MapD.size();
    MESHAD_LAUNCH(gatherKernel<double>, shapeFor(Nnz).Blocks,
                  shapeFor(Nnz).Threads)
    (Nnz, static_cast<const int *>(MapD.data()), Values, ValuesD.data());
    checkCusolver(cusolverSpDcsrcholFactor(Handle, N, static_cast<int>(Nnz),
                                           Descr, ValuesD.data(), RowsD.data(),
                                           ColsD.data(), Info, Buffer.data()),
                  "the numeric factorization");
    int Singular = -1;
    checkCusolver(cusolverSpDcsrcholZeroPivot(Handle, Info, 0.0, &Singular),
                  "csrcholZeroPivot");
    return Singular < 0;
  }
  void solve(const double *B, double *X) {
    MESHAD_LAUNCH(gatherKernel<double>, shapeFor(N).Blocks, shapeFor(N).Threads)
    (N, static_cast<const int *>(PermD.data()), B, Pb.data());
    checkCusolver(cusolverSpDcsrcholSolve(Handle, N, Pb.data(), Px.data(),
                                          Info, Buffer.data()),
                  "the triangular solves");
    MESHAD_LAUNCH(scatterKernel<double>, shapeFor(N).Blocks,
                  shapeFor(N).Threads)
    (N, static_cast<const int *>(PermD.data()),
     static_cast<const double *>(Px.data()), X);
  }

private:
  cusolverSpHandle_t Handle = nullptr;
  cusparseMatDescr_t Descr = nullptr;
  csrcholInfo_t Info = nullptr;
  int N = 0;
  DeviceBuffer<int> RowsD, ColsD, MapD, PermD;
  DeviceBuffer<double> ValuesD, Pb, Px;
  DeviceBuffer<char> Buffer;

  /// Each row's columns in increasing order, the value map along.
  static void sortRows(const std::vector<int> &Off, std::vector<int> &Col,
                       std::vector<int> &Map) {
    std::vector<std::pair<int, int>> Row;
    for (size_t R = 0; R + 1 < Off.size(); ++R) {
      Row.clear();
      for (int P = Off[R]; P < Off[R + 1]; ++P)
        Row.push_back({Col[P], Map[P]});
      std::sort(Row.begin(), Row.end());
      for (int P = Off[R]; P < Off[R + 1]; ++P)
        std::tie(Col[P], Map[P]) = Row[P - Off[R]];
    }
  }
};
#endif

} // namespace detail

/// A sparse Cholesky factorization kept across matrices of one pattern
/// (Newton's iterations: Problem keeps one, Problem::cholesky()). The
/// pattern is analyzed again only when another one comes (its arrays or
/// size differ).
template <class T> class SparseCholesky {
public:
  /// Factors A (SPD, both triangles stored); false when it is not positive
  /// definite (a pivot is not positive). Analyzes A's pattern first when it
  /// is new.
  bool factor(const CsrView<T> &A) {
    if (!A.Rows) {
      For = A;
      return Factored = true;
    }
    if (!(A.Rows == For.Rows && A.RowOffsets == For.RowOffsets &&
          A.Columns == For.Columns))
      analyze(A);
    ++Factorizations;
#ifdef MESHAD_SOLVE_CUSOLVER_CHOLESKY
    if constexpr (sizeof(T) == 8) {
      Factored = Gpu->factor(reinterpret_cast<const double *>(A.Values));
      return Factored;
    }
#endif
    std::vector<T> Val(Nnz);
    cudaMemcpy(Val.data(), A.Values, Nnz * sizeof(T), cudaMemcpyDeviceToHost);
    Factored = Host.factor(Val) < 0;
    return Factored;
  }
  /// X = A^-1 B with the last factor (device arrays, X and B may be one);
  /// false when factor failed or the solution is not finite.
  bool solve(const T *B, T *X) {
    long N = For.Rows;
    if (!Factored)
      return false;
    if (!N)
      return true;
#ifdef MESHAD_SOLVE_CUSOLVER_CHOLESKY
    if constexpr (sizeof(T) == 8) {
      Gpu->solve(reinterpret_cast<const double *>(B),
                 reinterpret_cast<double *>(X));
      return std::isfinite(norm(N, static_cast<const T *>(X)));
    }
#endif
    std::vector<T> HostB(N);
    cudaMemcpy(HostB.data(), B, N * sizeof(T), cudaMemcpyDeviceToHost);
    std::vector<T> HostX = Host.solve(HostB);
    cudaMemcpy(X, HostX.data(), N * sizeof(T), cudaMemcpyHostToDevice);
    return std::all_of(HostX.begin(), HostX.end(),
                       [](T V) { return std::isfinite(V); });
  }
  /// Patterns analyzed (ordering and symbolic factorization) so far.
  int analyses() const { return Analyses; }
  /// Numeric factorizations so far.
  int factorizations() const { return Factorizations; }

private:
  CsrView<T> For;
  int Nnz = 0, Analyses = 0, Factorizations = 0;
  bool Factored = false;
  detail::EnvelopeCholesky<T> Host;
#ifdef MESHAD_SOLVE_CUSOLVER_CHOLESKY
  std::unique_ptr<detail::CusolverCholesky> Gpu;
#endif

  void analyze(const CsrView<T> &A) {
    int N = A.Rows;
    cudaMemcpy(&Nnz, A.RowOffsets + N, sizeof(int), cudaMemcpyDeviceToHost);
    std::vector<int> Off(N + 1), Col(Nnz);
    cudaMemcpy(Off.data(), A.RowOffsets, (N + 1) * sizeof(int),
               cudaMemcpyDeviceToHost);
    cudaMemcpy(Col.data(), A.Columns, Nnz * sizeof(int),
               cudaMemcpyDeviceToHost);
    For = A;
    ++Analyses;
#ifdef MESHAD_SOLVE_CUSOLVER_CHOLESKY
    if constexpr (sizeof(T) == 8) {
      if (!Gpu)
        Gpu = std::make_unique<detail::CusolverCholesky>();
      Gpu->analyze(N, std::move(Off), std::move(Col));
      return;
    }
#endif
    Host.analyze(N, Off, Col);
  }
};

} // namespace solve
} // namespace runtime
} // namespace meshad

#endif // MESHAD_RUNTIME_SOLVE_SPARSECHOLESKY_H
