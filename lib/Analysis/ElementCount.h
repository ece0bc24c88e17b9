//===- Analysis/ElementCount.h - The element count of a map -----*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The atomic-free strategies of issue 11 need the number of elements n of
/// an element kernel on the host: the incidence of the index array covers
/// elements 0 .. n-1 and the slot buffer holds n * arity * stride values.
/// n is found in the guard that bounds the element id t,
///
/// \code
///   if (t < n) { ... }            if (t >= n) return;
///   for (int t = gid; t < n; t += blockDim.x * gridDim.x) { ... }
/// \endcode
///
/// (also `n > t`, inside `&&`), where n is an expression of the kernel's
/// scalar parameters that the kernel never assigns. It is proven, not
/// guessed: the guard facts at every access of the mapped array must give
/// t <= n - 1 (IndexFacts.h), and a grid-stride counter must not be
/// assigned in its loop's body. No n: no atomic-free strategy, and why.
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_ANALYSIS_ELEMENTCOUNT_H
#define MESHAD_ANALYSIS_ELEMENTCOUNT_H

#include "Analysis/IndexForms.h"
#include "GPU/OwnershipAccesses.h"

#include <string>
#include <vector>

namespace meshad {

/// The number of elements of an element map, or why it is not known.
struct ElementCount {
  /// n, an expression of the kernel's unassigned scalar parameters; null
  /// when there is none (see Reason).
  const ir::Expr *Count = nullptr;
  /// How the kernel bounds t: "guard", "early return" or "grid-stride loop".
  std::string Form;
  std::string Reason;

  /// "n elements (guard)", or "no element count: <why>".
  std::string describe() const;
};

/// The element count of the accesses \p Accesses of one array of \p Kernel
/// whose element id is \p Element (a Gid or GridStride atom of \p Ev).
ElementCount findElementCount(const ir::Function &Kernel,
                              ownership::IndexEvaluator &Ev,
                              const ownership::Atom &Element,
                              const std::vector<ownership::Access> &Accesses);

} // namespace meshad

#endif // MESHAD_ANALYSIS_ELEMENTCOUNT_H
