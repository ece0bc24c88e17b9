//===- Driver/ElementCostModel.h - Choosing an element strategy -*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The cost model of issue 11 (docs/element-kernels.md): which atomic-free
/// strategy suits the gradient of an element kernel, from one element's
/// work W (Analysis/ElementWork.h), its arity c and the DOFs per vertex s.
/// Per element, in operations:
///
///   gather by recomputation   c * (W + GatherLoad * c * s)
///                             (each of its c vertices recomputes it)
///   two-phase slots           W + SlotTraffic * c * s
///                             (zeroed, stored, read back by the sums)
///   atomics                   W + AtomicAdd * c * s
///
/// The weights (the table in ElementCostModel.cpp) order the kernels
/// measured on an H100 (benchmarks/results/2026-11-24-elements-*.md) as
/// they ran: gather first for springs (W 19) and triangles (W 47),
/// two-phase for neo-Hookean tets (W 100). Atomics are never chosen by
/// default (not bitwise reproducible); the estimate names them when they
/// would be cheaper.
///
/// \code
///   ElementCost C = estimateElementCost(estimateElementWork(K), 2, 3);
///   if (C.Choice == ElementCost::Gather) ...
///   remark(C.describe()); // "element work small (...): gather 50 < ..."
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_DRIVER_ELEMENTCOSTMODEL_H
#define MESHAD_DRIVER_ELEMENTCOSTMODEL_H

#include "Analysis/ElementWork.h"

#include <string>

namespace meshad {

struct ElementCost {
  enum Strategy { Gather, TwoPhase };
  /// Estimated operations per element; unbounded work costs no number.
  unsigned long long GatherCost = 0, TwoPhaseCost = 0, AtomicsCost = 0;
  bool Bounded = true;
  Strategy Choice = TwoPhase;
  ElementWork Work;

  /// "element work small (12 operations, 1 math call), arity 2, stride 3:
  /// gather 50 < two-phase 163 (atomics 55)".
  std::string describe() const;
};

/// The estimate for elements of work \p W, arity \p Arity and \p Stride
/// DOFs per vertex.
ElementCost estimateElementCost(const ElementWork &W, long long Arity,
                                long long Stride);

} // namespace meshad

#endif // MESHAD_DRIVER_ELEMENTCOSTMODEL_H
