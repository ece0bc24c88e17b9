//===- AD/ElementParts.h - One local vertex's part of a pullback -*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Own-part-only recomputation for the gather of element gradients (issue
/// 11, docs/element-kernels.md): vertex v of a gather kernel needs only its
/// own local vertex j's part of the element's local gradient. Per local
/// vertex j, `<k>_element_grad_<j>` is a copy of the element's pullback
/// `<k>_element_grad` (AD/ElementFunctions.h) seeded as before but without
/// the adds into the other vertices' components (each add's local index is
/// known on every path, Analysis/IntegerPaths.h, and none lies in j's
/// range), and then without the work only those adds read (dead locals and
/// local adjoint arrays, then the simplifier). The gather kernel calls the
/// one of its vertex's slot (GPU/ElementGather.h).
///
/// The parts are used only when they save at least MinSavedPercent of the
/// whole pullback's work on average (operations executed on the costliest
/// path, a math call 8): a warp's lanes diverge on their local vertex and
/// run several parts, so a small saving costs time (springs, triangles and
/// tets save 11-17% and keep the one pullback; element-parts=always forces
/// the parts, as the tests do).
///
/// \code
///   ElementParts Parts;
///   if (deriveElementParts(M, Derived, *Kernel, E, Parts))
///     ... E.Parts[j] is <k>_element_grad_<j>; Parts.describe() ...
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_AD_ELEMENTPARTS_H
#define MESHAD_AD_ELEMENTPARTS_H

#include "AD/ElementFunctions.h"

#include <string>
#include <vector>

namespace meshad {

/// The operation counts of an element's pullback and of its parts.
struct ElementParts {
  unsigned long long Whole = 0;
  /// Per local vertex; empty when not counted.
  std::vector<unsigned long long> Parts;
  /// Why no parts were made (empty when they were).
  std::string WhyNot;

  /// "own part only: 41, 41, 35, 29 of 52 operations per local vertex", or
  /// "whole pullback recomputed (...why...)".
  std::string describe() const;
};

/// The least average saving of the parts, in percent of the whole
/// pullback's operations, for which the gather uses them.
constexpr unsigned MinSavedPercent = 25;

/// Sets \p E.Parts to the pullbacks of each local vertex's part of the
/// element kernel \p K's pullback (made once per kernel), when they save
/// enough work (or, with \p Always, any work); fills \p Out with the
/// counts either way. Returns whether the parts are used.
bool deriveElementParts(ir::Module &M, DerivedFunctionSet &Derived,
                        ir::Function &K, ElementFunctions &E,
                        ElementParts &Out, bool Always = false);

} // namespace meshad

#endif // MESHAD_AD_ELEMENTPARTS_H
