//===- Driver/ElementCostModel.h - Choosing an element strategy -*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The cost model of issue 11 (docs/element-kernels.md): which strategy
/// suits the gradient of an element kernel, from one element's work W
/// (Analysis/ElementWork.h), its arity c and the DOFs per vertex s (the
/// element's c * s local DOFs). Per element, in operations:
///
///   gather by recomputation   c * (Recompute * W + GatherLoad * c * s)
///                             (each of its c vertices runs its pullback)
///   two-phase slots           W + SlotTraffic * c * s
///                             (zeroed, added to, read back by the sums)
///   atomics                   W + AtomicAdd * c * s
///
/// The weights (the table in ElementCostModel.cpp: Recompute 3/2,
/// GatherLoad 0, SlotTraffic 28, AtomicAdd 12) are fitted to the generated
/// kernels of benchmarks/elements on an H100 after session 7's gather
/// (fp64, V = 1M, benchmarks/results/2026-11-25-session7-h100.md) and
/// order all three strategies of its three energies as they ran: springs
/// (W 19) gather < atomics < two-phase; symmetric Dirichlet triangles
/// (W 47) atomics < gather < two-phase; neo-Hookean tets (W 100) atomics <
/// two-phase < gather. The model assumes a mesh in a locality-preserving
/// order (neighbouring elements and vertices close in memory, as a mesh
/// file, a subdivision or a grid gives): in a shuffled numbering every
/// gathered read is a cache miss, and the gather's c-fold reads cost most
/// (benchmarks/ownership, "strategies"). So where Auto picks the gather,
/// the handle confirms it at run time from the numbering of the index
/// array (meshad/runtime/NumberingLocality.h, Driver/ElementStrategy.h).
///
/// Atomics are not bitwise reproducible: the model chooses them only when
/// asked to (ElementStrategy::Fastest); otherwise the estimate names them
/// when they would be cheapest.
///
/// \code
///   ElementCost C = estimateElementCost(estimateElementWork(K), 2, 3);
///   if (C.Choice == ElementCost::Gather) ...
///   remark(C.describe()); // "element work small (...): estimated gather
///                         //  57 < two-phase 187 operations per element"
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_DRIVER_ELEMENTCOSTMODEL_H
#define MESHAD_DRIVER_ELEMENTCOSTMODEL_H

#include "Analysis/ElementWork.h"

#include <string>
#include <vector>

namespace meshad {

struct ElementCost {
  enum Strategy { Gather, TwoPhase, Atomics };
  /// Estimated operations per element; unbounded work costs no number.
  unsigned long long GatherCost = 0, TwoPhaseCost = 0, AtomicsCost = 0;
  bool Bounded = true;
  /// Whether atomics could be chosen (not bitwise reproducible).
  bool AtomicsAllowed = false;
  Strategy Choice = TwoPhase;
  ElementWork Work;

  /// The estimate of \p S.
  unsigned long long cost(Strategy S) const;
  /// "element work small (12 operations, 1 math call): estimated gather
  /// 72 < two-phase 116 operations per element"; with atomics allowed, the
  /// three estimates in increasing order.
  std::string describe() const;
};

/// The estimate for elements of work \p W, arity \p Arity and \p Stride
/// DOFs per vertex: the cheaper atomic-free strategy, or the cheapest of
/// the three when \p AllowAtomics.
ElementCost estimateElementCost(const ElementWork &W, long long Arity,
                                long long Stride, bool AllowAtomics = false);

/// One element map of a kernel: its arity and the DOFs per vertex of the
/// array read through it.
struct ElementMapShape {
  long long Arity, Stride;
};

/// The estimate for a kernel of work \p W that reads several arrays, or
/// one array through several index arrays (\p Maps, one per (array, index
/// array)): the slots and atomics of every map's c * s local DOFs, the
/// gather run by the vertices of the largest arity (an extrapolation of the
/// one-map weights: no such kernel has been measured). One map: as above.
ElementCost estimateElementCost(const ElementWork &W,
                                const std::vector<ElementMapShape> &Maps,
                                bool AllowAtomics = false);

} // namespace meshad

#endif // MESHAD_DRIVER_ELEMENTCOSTMODEL_H
