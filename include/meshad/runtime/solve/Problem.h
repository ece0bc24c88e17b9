//===- meshad/runtime/solve/Problem.h - An energy as a sum of terms -*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A problem: an energy over NumVertices * S DOFs (device array X,
/// X[S * v + k]) that is a sum of terms (meshad/runtime/solve/Term.h), with
/// pinned DOFs (Dirichlet conditions). It evaluates the energy (summed in a
/// fixed order: bitwise reproducible), the gradient, the sparse Hessian of
/// all terms in ONE matrix (the union of their patterns: SparseHessian over
/// several index arrays, one slot map per term, built once on first use),
/// and Hessian-vector products. Pinned DOFs get a zero gradient, identity
/// rows and columns in the Hessian, and H v = v there, so that every
/// Newton step leaves them where they are.
///
/// \code
///   using namespace meshad::runtime::solve;
///   Problem<double> P(NumVertices, 3);
///   P.add<Spring>(dEdges, NumEdges, dSpringParams, 2);  // ElementTerm<Spring>
///   P.add<Bending>(dDiamonds, NumDiamonds, dBendParams, 2);
///   P.add<Inertia>(dVertices, NumVertices, dInertiaParams, 4);
///   P.pinVertices({0, N - 1});
///   P.setDeterministic(true);   // optional: bitwise reproducible g and H
///   double E = P.energy(dX);
///   P.gradient(dX, dG);
///   CsrView<double> H = P.hessian(dX);        // PSD-projected, CSR
///   P.hvp(dX, dV, dHv);
///   SolveReport R = newton(P, dX);            // meshad/runtime/solve/Minimize.h
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_RUNTIME_SOLVE_PROBLEM_H
#define MESHAD_RUNTIME_SOLVE_PROBLEM_H

#include "meshad/runtime/solve/LinearSolvers.h"
#include "meshad/runtime/solve/Term.h"

#include <memory>
#include <vector>

namespace meshad {
namespace runtime {
namespace solve {

namespace detail {

/// Rows and columns of pinned DOFs become the identity's.
template <class T>
__global__ void pinCsrKernel(int Rows, const int *Offsets, const int *Columns,
                             const unsigned char *Pinned, T *Values) {
  MESHAD_SOLVE_GRID_STRIDE(Item, Rows) {
    int R = static_cast<int>(Item);
    for (int P = Offsets[R]; P < Offsets[R + 1]; ++P)
      if (Pinned[R] || Pinned[Columns[P]])
        Values[P] = Columns[P] == R ? T(1) : T(0);
  }
}

/// The deterministic gradient: one thread per diagonal block (v, v) adds the
/// gradient slots of its slots (e, a, a), in increasing slot order, to
/// G[S v + k] (a block's other slots, (e, a, b) of a repeated vertex, hold
/// zeros).
template <class T>
__global__ void sumGradientSlotsKernel(int NumBlocks, HessianSlots Slots,
                                       const int *BlockSlots,
                                       const int *Columns, const T *GradSlots,
                                       T *G) {
  MESHAD_SOLVE_GRID_STRIDE(Item, NumBlocks) {
    int B = static_cast<int>(Item), S = Slots.BlockSize, V = Columns[B];
    if (Slots.BlockRows[B] != V)
      continue;
    for (int K = 0; K < S; ++K) {
      T Sum = 0;
      for (int P = Slots.SlotOffsets[B]; P < Slots.SlotOffsets[B + 1]; ++P)
        Sum += GradSlots[static_cast<long>(BlockSlots[P]) * S + K];
      G[static_cast<long>(S) * V + K] += Sum;
    }
  }
}

/// Y[i] = 0 where pinned (or, with From, Y[i] = From[i] there).
template <class T>
__global__ void pinVectorKernel(long N, const unsigned char *Pinned,
                                const T *From, T *Y) {
  MESHAD_SOLVE_GRID_STRIDE(I, N) {
    if (Pinned[I])
      Y[I] = From ? From[I] : T(0);
  }
}

} // namespace detail

/// An energy that is a sum of terms over one DOF vector; see the file
/// comment. Terms are owned; device arrays they read are not.
template <class T = double> class Problem {
public:
  Problem(int NumVertices, int DofsPerVertex)
      : NumVertices(NumVertices), S(DofsPerVertex),
        Pinned(static_cast<long>(NumVertices) * DofsPerVertex) {
    cudaMemset(Pinned.data(), 0, Pinned.size());
  }

  /// Adds a term (its S must be the problem's).
  Term<T> &add(std::unique_ptr<Term<T>> NewTerm) {
    if (NewTerm->dofsPerVertex() != S)
      throw MeshError("problem: a term of " +
                      std::to_string(NewTerm->dofsPerVertex()) +
                      " DOFs per vertex in a problem of " + std::to_string(S));
    Terms.push_back(std::move(NewTerm));
    Hessian.reset(); // the pattern changes
    Linear.reset();
    Direct.reset();
    return *Terms.back();
  }
  /// Adds an ElementTerm<Local, T> over NumElements * Local::Arity indices.
  template <class Local>
  Term<T> &add(const int *DeviceIndices, int NumElements,
               const T *DeviceParams = nullptr, int ParamStride = 0) {
    return add(std::make_unique<ElementTerm<Local, T>>(
        DeviceIndices, NumElements, DeviceParams, ParamStride));
  }

  /// Pins DOFs (indices into X): their gradient is 0, their Hessian rows
  /// and columns the identity's.
  void pin(const std::vector<int> &Dofs) {
    std::vector<unsigned char> Mask(numDofs());
    cudaMemcpy(Mask.data(), Pinned.data(), Mask.size(), cudaMemcpyDeviceToHost);
    for (int D : Dofs) {
      if (D < 0 || D >= numDofs())
        throw MeshError("problem: pinned DOF " + std::to_string(D) +
                        " out of range");
      Mask[D] = 1;
    }
    cudaMemcpy(Pinned.data(), Mask.data(), Mask.size(), cudaMemcpyHostToDevice);
  }
  /// Pins every DOF of the vertices.
  void pinVertices(const std::vector<int> &Vertices) {
    std::vector<int> Dofs;
    for (int V : Vertices)
      for (int K = 0; K < S; ++K)
        Dofs.push_back(S * V + K);
    pin(Dofs);
  }

  int numDofs() const { return NumVertices * S; }
  int numVertices() const { return NumVertices; }
  int dofsPerVertex() const { return S; }
  int numTerms() const { return static_cast<int>(Terms.size()); }
  Term<T> &term(int K) { return *Terms[K]; }
  /// 1 per pinned DOF (device, numDofs() values).
  const unsigned char *pinnedMask() const { return Pinned.data(); }

  /// The energy: the terms' in order (each reproducible bit for bit when
  /// its own is, as ElementTerm's).
  T energy(const T *X) {
    T E = 0;
    for (auto &Tm : Terms)
      E += Tm->energy(X);
    return E;
  }

  /// Deterministic: the gradient and the Hessian bitwise reproducible from
  /// run to run (each element's results into slots of its own, summed in a
  /// fixed order; AssembledTerm's own matrices must be assembled
  /// deterministically too, e.g. the ElementHessian handle's option);
  /// otherwise atomic adds where elements share a vertex (the default,
  /// faster). The energy is reproducible either way (ElementTerm).
  void setDeterministic(bool On) { Deterministic = On; }
  bool deterministic() const { return Deterministic; }

  /// G = the gradient (0 at pinned DOFs).
  void gradient(const T *X, T *G) {
    fill(numDofs(), T(0), G);
    prepareSlots(false);
    for (auto &Tm : Terms)
      Tm->addGradient(X, G);
    finishGradient(G);
    zeroPinned(G);
  }

  /// Assembles the Hessian of all terms (each element's projected to PSD
  /// when \p Project) into one CSR matrix, pinned rows and columns the
  /// identity's; G = the gradient too when not null (same launches). The
  /// view stays valid until the next call or a new term.
  CsrView<T> hessian(const T *X, bool Project = true, T *G = nullptr) {
    SparseHessian<T> &H = matrix();
    H.zero();
    if (G)
      fill(numDofs(), T(0), G);
    prepareSlots(true);
    for (int K = 0; K < numTerms(); ++K)
      Terms[K]->addHessian(X, H.slots(SparseFormat::Csr, K), H.values(),
                           Project, G);
    if (Deterministic)
      H.sumSlots(SparseFormat::Csr);
    if (G) {
      finishGradient(G);
      zeroPinned(G);
    }
    CsrView<T> A = csr();
    if (A.Rows)
      MESHAD_LAUNCH(detail::pinCsrKernel<T>, detail::shapeFor(A.Rows).Blocks,
                    detail::shapeFor(A.Rows).Threads)
      (A.Rows, A.RowOffsets, A.Columns, Pinned.data(), H.values());
    return A;
  }

  /// Out = H V (local Hessians projected when \p Project); pinned DOFs act
  /// as in hessian(): (H V)_i = V_i there, V_i ignored elsewhere.
  void hvp(const T *X, const T *V, T *Out, bool Project = false) {
    long N = numDofs();
    if (Direction.size() < N)
      Direction.resize(N);
    copy(N, V, Direction.data());
    zeroPinned(Direction.data());
    fill(N, T(0), Out);
    for (auto &Tm : Terms)
      Tm->addHvp(X, Direction.data(), Out, Project);
    if (N)
      MESHAD_LAUNCH(detail::pinVectorKernel<T>, detail::shapeFor(N).Blocks,
                    detail::shapeFor(N).Threads)(N, Pinned.data(), V, Out);
  }

  /// V_i = 0 at pinned DOFs.
  void zeroPinned(T *V) const {
    long N = numDofs();
    if (N)
      MESHAD_LAUNCH(detail::pinVectorKernel<T>, detail::shapeFor(N).Blocks,
                    detail::shapeFor(N).Threads)(N, Pinned.data(), nullptr, V);
  }

  /// The global matrix (pattern built on first use): its CSR view holds
  /// the last hessian()'s values.
  SparseHessian<T> &matrix() {
    if (!Hessian) {
      std::vector<ElementList> Lists;
      for (auto &Tm : Terms)
        Lists.push_back(Tm->elements());
      Hessian = std::make_unique<SparseHessian<T>>(Lists, NumVertices, S);
    }
    return *Hessian;
  }
  CsrView<T> csr() {
    SparseHessian<T> &H = matrix();
    return {H.numRows(), H.csrRowOffsets(), H.csrColumns(), H.values(), S};
  }
  /// What pcg keeps across Newton iterations on the global matrix (cuSPARSE
  /// descriptors, preconditioner, CG vectors); made again with the pattern.
  PcgWorkspace<T> &pcgWorkspace() {
    if (!Linear)
      Linear = std::make_unique<PcgWorkspace<T>>();
    return *Linear;
  }
  /// The sparse Cholesky Newton keeps across iterations on the global
  /// matrix (SolveOptions::Linear = Cholesky): its ordering and symbolic
  /// analysis once per pattern; made again with the pattern.
  SparseCholesky<T> &cholesky() {
    if (!Direct)
      Direct = std::make_unique<SparseCholesky<T>>();
    return *Direct;
  }

private:
  bool Deterministic = false;
  DeviceBuffer<T> GradientSlots; ///< Deterministic: S values a slot

  /// Tells every term where its elements' results go: their own slots,
  /// zeroed (Deterministic; the Hessian's too when \p Hessian), or nowhere
  /// special (atomic adds).
  void prepareSlots(bool Hessian) {
    for (int K = 0; K < numTerms(); ++K)
      Terms[K]->setSlots({});
    if (!Deterministic)
      return;
    SparseHessian<T> &H = matrix();
    long Slots = 0;
    for (auto &Tm : Terms)
      Slots += Tm->elements().numSlots();
    if (GradientSlots.size() != Slots * S)
      GradientSlots.resize(Slots * S);
    cudaMemset(GradientSlots.data(), 0, Slots * S * sizeof(T));
    if (Hessian)
      cudaMemset(H.slotValues(), 0, Slots * S * S * sizeof(T));
    for (int K = 0; K < numTerms(); ++K)
      Terms[K]->setSlots({H.slots(SparseFormat::Csr, K), GradientSlots.data(),
                          Hessian ? H.slotValues() : nullptr});
  }
  /// Deterministic: G += the sums of the gradient slots.
  void finishGradient(T *G) {
    if (!Deterministic || !matrix().numBlocks())
      return;
    SparseHessian<T> &H = matrix();
    MESHAD_LAUNCH(detail::sumGradientSlotsKernel<T>,
                  detail::shapeFor(H.numBlocks()).Blocks,
                  detail::shapeFor(H.numBlocks()).Threads)
    (H.numBlocks(), H.slots(), H.blockSlots(), H.bsrColumns(),
     static_cast<const T *>(GradientSlots.data()), G);
  }

  int NumVertices, S;
  std::vector<std::unique_ptr<Term<T>>> Terms;
  DeviceBuffer<unsigned char> Pinned;
  DeviceBuffer<T> Direction;
  std::unique_ptr<SparseHessian<T>> Hessian;
  std::unique_ptr<PcgWorkspace<T>> Linear;
  std::unique_ptr<SparseCholesky<T>> Direct;
};

} // namespace solve
} // namespace runtime
} // namespace meshad

#endif // MESHAD_RUNTIME_SOLVE_PROBLEM_H
