//===- Driver/ElementStrategy.h - Element gradient strategies --*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The choice of how the gradient of an element kernel adds to its mapped
/// adjoint (issue 11, docs/element-kernels.md): the request's
/// meshad::ElementStrategy, else the cost model; the remark says which and
/// why. Two-phase slots rewrite the finished gradient kernel
/// (GPU/TwoPhaseSlots) and complete the request with a
/// meshad::ElementGradient handle instead of a meshad::Derived one.
///
/// \code
///   ElementStrategies Strategies(M, Diags, Verify);
///   Strategies.finish(Request, Derived, *Gradient); // after reverse mode
///   if (const SlotLayout *L = Strategies.layoutOf(Gradient))
///     Text = Strategies.handle(*Gradient, *L, HandleName, Code);
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_DRIVER_ELEMENTSTRATEGY_H
#define MESHAD_DRIVER_ELEMENTSTRATEGY_H

#include "AD/DerivedFunctions.h"
#include "GPU/TwoPhaseSlots.h"
#include "Plan/Request.h"
#include "Support/Diagnostics.h"

#include <map>
#include <set>
#include <string>

namespace meshad {

class ElementStrategies {
public:
  ElementStrategies(ir::Module &M, DiagnosticSink &Diags, bool Verify)
      : M(M), Diags(Diags), Verify(Verify) {}

  /// -fplugin-arg-meshad-atomics=all: the default strategy (Auto) keeps the
  /// atomics, as every other shared adjoint store does; an explicit
  /// ElementStrategy::TwoPhase still gets its slots.
  void setForceAtomics(bool Force) { ForceAtomics = Force; }
  /// Applies the strategy of \p R to its finished gradient kernel \p D, one
  /// of \p Set (once per kernel), with a remark; an error when the
  /// request's explicit strategy does not apply.
  void finish(const DerivativeRequest &R, const DerivedFunctionSet &Set,
              ir::Function &D);
  /// The slots of \p D when it writes them (a two-phase element kernel).
  const SlotLayout *layoutOf(const ir::Function *D) const;
  /// The declaration of the handle \p Name of the two-phase kernel \p D.
  static std::string handle(const ir::Function &D, const SlotLayout &L,
                            const std::string &Name, const std::string &Code);

private:
  ir::Module &M;
  DiagnosticSink &Diags;
  bool Verify;
  bool ForceAtomics = false;
  std::set<const ir::Function *> Finished;
  std::map<const ir::Function *, SlotLayout> Layouts;
  /// Why the kernels without slots have none.
  std::map<const ir::Function *, std::string> WhyNots;
};

} // namespace meshad

#endif // MESHAD_DRIVER_ELEMENTSTRATEGY_H
