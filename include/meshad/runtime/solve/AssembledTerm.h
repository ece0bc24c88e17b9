//===- meshad/runtime/solve/AssembledTerm.h - A term with its own matrix -*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A term whose Hessian is assembled into a sparse matrix of its own, over
/// its one index array: the handle of `meshad::hessian(kernel, "x")`
/// (meshad/ElementHessian.h, issue 12), which launches the user's element
/// kernel turned into energy + gradient + Hessian in one launch, or any
/// code that fills a SparseHessian<T>. Its blocks are added into the
/// problem's matrix through a map computed once (own block -> the global
/// block of the same element slot: both patterns come from the same slots,
/// so the map is exact and one-to-one), with plain adds and no search at
/// run time.
///
/// \code
///   using namespace meshad::runtime::solve;
///   auto h = meshad::hessian(springs, "x");          // ElementHessian handle
///   AssembledTerm<double>::Callbacks C;
///   C.Elements = {dEdges, NumEdges, 2};
///   C.Dofs = 3;
///   C.Energy = [&](const double *X) { ... h's energy ... };
///   C.AddGradient = [&](const double *X, double *G) { ... };
///   C.Assemble = [&](const double *X, bool Project, double *G)
///       -> const meshad::runtime::SparseHessian<double> & {
///     h.set_options({.ProjectPsd = Project});
///     h.execute_kernel(Grid, Block, NumEdges, dEdges, X, nullptr, G);
///     return h.matrix();
///   };
///   C.Format = meshad::runtime::SparseFormat::Bsr;   // where h writes values
///   P.add(std::make_unique<AssembledTerm<double>>(C));
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_RUNTIME_SOLVE_ASSEMBLEDTERM_H
#define MESHAD_RUNTIME_SOLVE_ASSEMBLEDTERM_H

#include "meshad/runtime/solve/Term.h"

#include <functional>
#include <vector>

namespace meshad {
namespace runtime {
namespace solve {

namespace detail {

/// Global values += the own matrix's blocks, through Map (own block ->
/// global block): one thread per own block, no two to one global block.
template <class T>
__global__ void mergeBlocksKernel(int NumBlocks, const int *Map,
                                  HessianSlots Own, const T *OwnValues,
                                  HessianSlots Global, T *Values) {
  MESHAD_SOLVE_GRID_STRIDE(Item, NumBlocks) {
    int B = static_cast<int>(Item), S = Own.BlockSize;
    for (int I = 0; I < S; ++I)
      for (int J = 0; J < S; ++J)
        Values[Global.position(Map[B], I, J)] +=
            OwnValues[Own.position(B, I, J)];
  }
}

/// Deterministic problems: each own block into the global per-slot values
/// at its first slot (SlotMap: own block -> global slot), which the problem
/// sums in a fixed order; plain stores, one thread per own block.
template <class T>
__global__ void storeBlocksKernel(int NumBlocks, const int *SlotMap,
                                  HessianSlots Own, const T *OwnValues,
                                  T *SlotValues) {
  MESHAD_SOLVE_GRID_STRIDE(Item, NumBlocks) {
    int B = static_cast<int>(Item), S = Own.BlockSize;
    T *To = SlotValues + static_cast<long>(SlotMap[B]) * S * S;
    for (int I = 0; I < S; ++I)
      for (int J = 0; J < S; ++J)
        To[I * S + J] = OwnValues[Own.position(B, I, J)];
  }
}

/// Out += H V over the own matrix's blocks (block b couples vertices
/// BlockRows[b] and Columns[b]).
template <class T>
__global__ void blockMultiplyKernel(int NumBlocks, HessianSlots Own,
                                    const int *Columns, const T *Values,
                                    const T *V, T *Out) {
  MESHAD_SOLVE_GRID_STRIDE(Item, NumBlocks) {
    int B = static_cast<int>(Item), S = Own.BlockSize;
    long Row = static_cast<long>(S) * Own.BlockRows[B],
         Col = static_cast<long>(S) * Columns[B];
    for (int I = 0; I < S; ++I) {
      T Acc = 0;
      for (int J = 0; J < S; ++J)
        Acc += Values[Own.position(B, I, J)] * V[Col + J];
      atomicAdd(Out + Row + I, Acc);
    }
  }
}

} // namespace detail

/// A term over callbacks whose Hessian comes in a matrix of its own.
template <class T> class AssembledTerm : public Term<T> {
public:
  struct Callbacks {
    ElementList Elements; ///< the index array the own matrix was built on
    int Dofs = 0;         ///< DOFs per vertex
    std::function<T(const T *X)> Energy;
    std::function<void(const T *X, T *G)> AddGradient; ///< G += gradient
    /// Fills the own matrix at X (element Hessians projected when Project;
    /// G += gradient when not null) and returns it.
    std::function<const SparseHessian<T> &(const T *X, bool Project, T *G)>
        Assemble;
    SparseFormat Format = SparseFormat::Bsr; ///< where Assemble writes
  };

  explicit AssembledTerm(Callbacks C) : C(std::move(C)) {}

  ElementList elements() const override { return C.Elements; }
  int dofsPerVertex() const override { return C.Dofs; }
  T energy(const T *X) override { return C.Energy(X); }
  void addGradient(const T *X, T *G) override { C.AddGradient(X, G); }

  void addHessian(const T *X, const HessianSlots &Slots, T *Values,
                  bool Project, T *G) override {
    const SparseHessian<T> &Own = C.Assemble(X, Project, G);
    if (!Own.numBlocks())
      return;
    buildMap(Own, Slots);
    if (this->Targets.HessianValues) {
      MESHAD_LAUNCH(detail::storeBlocksKernel<T>,
                    detail::shapeFor(Own.numBlocks()).Blocks,
                    detail::shapeFor(Own.numBlocks()).Threads)
      (Own.numBlocks(), SlotMap.data(), Own.slots(C.Format), Own.values(),
       this->Targets.HessianValues);
      return;
    }
    MESHAD_LAUNCH(detail::mergeBlocksKernel<T>,
                  detail::shapeFor(Own.numBlocks()).Blocks,
                  detail::shapeFor(Own.numBlocks()).Threads)
    (Own.numBlocks(), Map.data(), Own.slots(C.Format), Own.values(), Slots,
     Values);
  }

  /// Out += H V through the own matrix (assembled at X; projected when
  /// \p Project).
  void addHvp(const T *X, const T *V, T *Out, bool Project) override {
    const SparseHessian<T> &Own = C.Assemble(X, Project, nullptr);
    if (!Own.numBlocks())
      return;
    MESHAD_LAUNCH(detail::blockMultiplyKernel<T>,
                  detail::shapeFor(Own.numBlocks()).Blocks,
                  detail::shapeFor(Own.numBlocks()).Threads)
    (Own.numBlocks(), Own.slots(C.Format), Own.bsrColumns(), Own.values(), V,
     Out);
  }

private:
  Callbacks C;
  DeviceBuffer<int> Map;     ///< own block -> global block
  DeviceBuffer<int> SlotMap; ///< own block -> its first slot, global
  const int *MappedOwn = nullptr, *MappedGlobal = nullptr;

  /// Once per own pattern: each own block's first slot, looked up in the
  /// global slot map at the list's base.
  void buildMap(const SparseHessian<T> &Own, const HessianSlots &Global) {
    const int *OwnSlots = Own.slots().SlotBlocks;
    if (MappedOwn == OwnSlots && MappedGlobal == Global.SlotBlocks)
      return; // the same patterns as last time
    HessianPatternArrays P = Own.toHost();
    long NumSlots = static_cast<long>(P.BlockSlots.size());
    std::vector<int> GlobalBlocks(NumSlots), M(Own.numBlocks()),
        First(Own.numBlocks());
    cudaMemcpy(GlobalBlocks.data(), Global.SlotBlocks + Global.SlotBase,
               NumSlots * sizeof(int), cudaMemcpyDeviceToHost);
    for (int B = 0; B < Own.numBlocks(); ++B) {
      First[B] = Global.SlotBase + P.BlockSlots[P.SlotOffsets[B]];
      M[B] = GlobalBlocks[P.BlockSlots[P.SlotOffsets[B]]];
    }
    Map.upload(M);
    SlotMap.upload(First);
    MappedOwn = OwnSlots;
    MappedGlobal = Global.SlotBlocks;
  }
};

} // namespace solve
} // namespace runtime
} // namespace meshad

#endif // MESHAD_RUNTIME_SOLVE_ASSEMBLEDTERM_H
