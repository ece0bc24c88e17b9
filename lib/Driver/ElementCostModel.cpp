//===- Driver/ElementCostModel.cpp - Choosing an element strategy ---------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "Driver/ElementCostModel.h"

using namespace meshad;

namespace {
/// The weights of the model, in operations per local DOF (a value of one
/// vertex component of one element).
struct CostWeights {
  /// A DOF gathered again for a recomputation (mostly a cache hit).
  unsigned long long GatherLoad;
  /// A slot's traffic: zeroed, stored by the element, read by the sums.
  unsigned long long SlotTraffic;
  /// An atomicAdd into the adjoint (rarely contended in mesh order).
  unsigned long long AtomicAdd;
};

/// Chosen so that the model orders the H100 measurements of
/// benchmarks/elements (springs W 19, triangles W 47, tets W 100) as the
/// hand-written kernels ran; a first guess to refine with the generated
/// gather's own measurements.
constexpr CostWeights Weights = {/*GatherLoad=*/1, /*SlotTraffic=*/24,
                                 /*AtomicAdd=*/6};
} // namespace

ElementCost meshad::estimateElementCost(const ElementWork &W, long long Arity,
                                        long long Stride) {
  ElementCost C;
  C.Work = W;
  C.Bounded = W.Bounded;
  unsigned long long Local = static_cast<unsigned long long>(Arity * Stride);
  unsigned long long Cost = W.cost();
  C.GatherCost = Arity * (Cost + Weights.GatherLoad * Local);
  C.TwoPhaseCost = Cost + Weights.SlotTraffic * Local;
  C.AtomicsCost = Cost + Weights.AtomicAdd * Local;
  C.Choice = C.Bounded && C.GatherCost < C.TwoPhaseCost ? ElementCost::Gather
                                                  : ElementCost::TwoPhase;
  return C;
}

std::string ElementCost::describe() const {
  std::string S = "element work " + Work.describe();
  if (!Bounded)
    return S + ": recomputing it per vertex could cost any amount";
  S += ": estimated gather " + std::to_string(GatherCost) +
       (Choice == Gather ? " < " : " >= ") + "two-phase " +
       std::to_string(TwoPhaseCost) + " operations per element";
  unsigned long long Best = Choice == Gather ? GatherCost : TwoPhaseCost;
  if (AtomicsCost < Best)
    S += " (atomics " + std::to_string(AtomicsCost) +
         ", not bitwise reproducible: ElementStrategy::Atomics)";
  return S;
}
