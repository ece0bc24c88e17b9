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
/// why (Driver/ElementCostModel.h). Two-phase slots rewrite the finished
/// gradient kernel (GPU/TwoPhaseSlots), gather by recomputation replaces it
/// by a kernel over the vertices (GPU/ElementGather); both complete the
/// request with a meshad::ElementGradient handle instead of a
/// meshad::Derived one. Where Auto picks the gather (its advantage holds
/// only for a locally numbered mesh, which the index array's contents
/// decide), the request keeps both: the gather kernel and a copy of the
/// gradient rewritten to two-phase slots (<k>_grad_slots), and its handle,
/// meshad::ElementGradientChoice, chooses on the first launch from the
/// numbering (meshad/runtime/NumberingLocality.h). Under Fastest, whose
/// caller allows a nondeterministic gradient, the gather's alternative is
/// the atomic gradient (<k>_..._atomics), chosen on a less local numbering.
///
/// \code
///   ElementStrategies Strategies(M, Diags, Verify, Reverse, Derived);
///   Strategies.finish(Request, *Gradient); // after reverse mode
///   if (const SlotLayout *L = Strategies.layoutOf(Gradient))
///     Text = Strategies.handle(*Gradient, *L, HandleName, Code);
///   // Code: the definitions of Gradient's closure and, when
///   // Strategies.alternativeOf(Gradient), of that kernel's too.
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_DRIVER_ELEMENTSTRATEGY_H
#define MESHAD_DRIVER_ELEMENTSTRATEGY_H

#include "AD/DerivedFunctions.h"
#include "AD/ElementFunctions.h"
#include "GPU/TwoPhaseSlots.h"
#include "Plan/Request.h"
#include "Support/Diagnostics.h"

#include <functional>
#include <map>
#include <set>
#include <string>

namespace meshad {

class ElementStrategies {
public:
  /// The array of a request whose adjoint may go atomic-free.
  struct Choice;
  /// A gather's alternative, chosen at run time: two-phase slots (Auto) or
  /// the atomic gradient (Fastest, no layout).
  struct Alternative {
    ir::Function *Kernel = nullptr;
    SlotLayout Layout;
    bool Atomics = false;
  };

  ElementStrategies(ir::Module &M, DiagnosticSink &Diags, bool Verify,
                    ReverseModeTransformer &Reverse,
                    DerivedFunctionSet &Derived)
      : M(M), Diags(Diags), Verify(Verify), Derived(Derived),
        Extract(M, Reverse, Derived) {}

  /// -fplugin-arg-meshad-atomics=all: the default strategy (Auto) keeps the
  /// atomics, as every other shared adjoint store does; an explicit
  /// ElementStrategy::TwoPhase or Gather still gets it.
  void setForceAtomics(bool Force) { ForceAtomics = Force; }
  /// -fplugin-arg-meshad-element-baseline: no plain slot stores, no
  /// own-part pullbacks (the benchmark's baseline).
  void setBaseline(bool B) { Baseline = B; }
  /// -fplugin-arg-meshad-element-parts=always: own-part pullbacks wherever
  /// they save any work (AD/ElementParts.h), as the tests use them.
  void setAlwaysParts(bool B) { AlwaysParts = B; }
  /// Applies the strategy of \p R to its finished gradient kernel \p D
  /// (once per kernel), with a remark; an error when the request's explicit
  /// strategy does not apply.
  void finish(const DerivativeRequest &R, ir::Function &D);
  /// The layout of \p D when it has a handle of its own (a two-phase or
  /// gather element kernel).
  const SlotLayout *layoutOf(const ir::Function *D) const;
  /// The two-phase or atomic kernel that the handle of the gather \p D may
  /// run instead, chosen at run time; null when D has none.
  ir::Function *alternativeOf(const ir::Function *D) const;
  /// The declaration of the handle \p Name of the element kernel \p D.
  std::string handle(const ir::Function &D, const SlotLayout &L,
                     const std::string &Name, const std::string &Code) const;

private:
  ir::Module &M;
  DiagnosticSink &Diags;
  bool Verify;
  DerivedFunctionSet &Derived;
  ElementExtractor Extract;
  bool ForceAtomics = false;
  bool Baseline = false;
  bool AlwaysParts = false;
  std::set<const ir::Function *> Finished;
  std::map<const ir::Function *, SlotLayout> Layouts;
  /// Why the kernels without slots have none.
  std::map<const ir::Function *, std::string> WhyNots;
  std::map<const ir::Function *, Alternative> Alternatives;

  /// Rewrites \p D into a gather; false with \p WhyNot. \p Parts: what
  /// the gather recomputes per vertex (AD/ElementParts.h).
  bool tryGather(const DerivativeRequest &R, ir::Function &Primal,
                 ir::Function &D, const Choice &C, std::string &WhyNot,
                 std::string &Parts);
  /// Rewrites \p D to use two-phase slots, with the remark \p Why.
  void twoPhase(const DerivativeRequest &R, const ir::Function &Primal,
                ir::Function &D, const Choice &C, const std::string &Why);
  /// Runs the pass two-phase-slots on \p F; \p Done gets its layout or
  /// why not.
  void runSlotsPass(const ir::Function &Primal, ir::Function &F,
                    const Choice &C,
                    std::function<void(const SlotLayout *,
                                       const std::string &)> Done);
  /// The gather of \p D (Auto's or Gather's choice) with its remark, or
  /// the fallback to two-phase slots, or the error of Gather.
  void gather(const DerivativeRequest &R, ir::Function &Primal,
              ir::Function &D, const Choice &C, const std::string &Why);
  /// A copy of the finished gradient kernel \p D named with \p Suffix,
  /// registered beside it.
  ir::Function *copyGradient(ir::Function &Primal, const ir::Function &D,
                             const std::string &Suffix);
  /// Makes \p Slots (a copy of \p D before its gather) two-phase, the
  /// alternative of D's handle; false, the copy dropped, when it cannot be.
  bool addAlternative(const ir::Function &Primal, const ir::Function &D,
                      ir::Function &Slots, const Choice &C);
  /// Records that \p D keeps its atomics; an error when \p R asked for
  /// an atomic-free strategy.
  void report(const DerivativeRequest &R, const ir::Function &Primal,
              const ir::Function &D, const std::string &WhyNot);
};

} // namespace meshad

#endif // MESHAD_DRIVER_ELEMENTSTRATEGY_H
