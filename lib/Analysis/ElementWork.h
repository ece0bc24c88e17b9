//===- Analysis/ElementWork.h - The work of one mesh element ----*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A simple cost estimate of a kernel's body, per element, for the cost
/// model of issue 11: gather by recomputation repeats an element's work once
/// per vertex that gathers from it, so it suits elements with little work
/// (springs); two-phase slots do the work once and pay for the slots, so
/// they suit elements with much work (tets, neo-Hookean).
///
/// Floating-point arithmetic (+, -, *, /, negation, compound assignments)
/// counts one operation each, a math call one call, a call of a user
/// function its body; the body of a loop with a literal trip count counts
/// that many times, that of a grid-stride loop once (one element each
/// iteration). Any other loop has no bound: the element's work is large.
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_ANALYSIS_ELEMENTWORK_H
#define MESHAD_ANALYSIS_ELEMENTWORK_H

#include "IR/IR.h"

#include <string>

namespace meshad {

/// The estimated work of one element of a kernel.
struct ElementWork {
  /// One math call weighs this many operations.
  static constexpr unsigned long long MathCallWeight = 8;
  /// The largest cost of a small element (a 3D spring costs about 20).
  static constexpr unsigned long long SmallCost = 64;

  unsigned long long Operations = 0;
  unsigned long long MathCalls = 0;
  /// False when a loop without a literal trip count (or recursion) runs.
  bool Bounded = true;

  unsigned long long cost() const {
    return Operations + MathCallWeight * MathCalls;
  }
  bool isSmall() const { return Bounded && cost() <= SmallCost; }
  /// "small (12 operations, 1 math call)".
  std::string describe() const;
};

/// Estimates the work of one element of \p Kernel.
ElementWork estimateElementWork(const ir::Function &Kernel);

} // namespace meshad

#endif // MESHAD_ANALYSIS_ELEMENTWORK_H
