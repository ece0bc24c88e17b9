//===- Driver/ElementCostModel.cpp - Choosing an element strategy ---------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "Driver/ElementCostModel.h"

#include <algorithm>
#include <cmath>
#include <vector>

using namespace meshad;

namespace {
/// The weights of the model: Recompute per operation of the element's
/// work, the others per local DOF (a value of one vertex component of one
/// element).
struct CostWeights {
  /// The element's work, run again by each vertex that gathers from it
  /// (its pullback; the other strategies run it once, weight 1).
  double Recompute;
  /// A DOF gathered again for a recomputation (mostly a cache hit in mesh
  /// order).
  double GatherLoad;
  /// A slot's traffic: zeroed, added to by the element, read by the sums.
  double SlotTraffic;
  /// An atomicAdd into the adjoint (rarely contended in mesh order).
  double AtomicAdd;
};

/// Fitted (session 8) to the generated kernels of benchmarks/elements on an
/// H100 after session 7's gather (the whole pullback unless its parts save
/// a quarter, the local gradient in registers; fp64, ms at V = 1M,
/// benchmarks/results/2026-11-25-session7-h100.md, "after this session's
/// changes"): springs (W 19, c 2, s 3) gather 0.068, atomics 0.181,
/// two-phase 0.270; symmetric Dirichlet triangles (W 47, c 3, s 3) atomics
/// 0.164, gather 0.214, two-phase 0.265; neo-Hookean tets (W 100, c 4,
/// s 3) atomics 0.239, two-phase 0.455, gather 0.570. Among weights of
/// this form (Recompute in steps of 1/8, the others of 1/2 and 1), these
/// keep the three estimates of each energy in the measured order with the
/// widest margins (at least 1.37x between neighbours) and, among those,
/// the atomics' ratio to two-phase closest to the measured one (0.49-0.56
/// for 0.52-0.67). The gathered DOFs cost nothing measurable: in mesh
/// order they are cache hits, and the local gradient stays in registers.
constexpr CostWeights Weights = {/*Recompute=*/1.5, /*GatherLoad=*/0,
                                 /*SlotTraffic=*/28, /*AtomicAdd=*/12};

unsigned long long rounded(double Cost) {
  return static_cast<unsigned long long>(std::llround(Cost));
}
} // namespace

ElementCost meshad::estimateElementCost(const ElementWork &W, long long Arity,
                                        long long Stride, bool AllowAtomics) {
  return estimateElementCost(W, {{Arity, Stride}}, AllowAtomics);
}

ElementCost
meshad::estimateElementCost(const ElementWork &W,
                            const std::vector<ElementMapShape> &Maps,
                            bool AllowAtomics) {
  ElementCost C;
  C.Work = W;
  C.Bounded = W.Bounded;
  C.AtomicsAllowed = AllowAtomics;
  double Local = 0, Gathered = 0, Arity = 0;
  for (const ElementMapShape &Map : Maps) {
    Local += static_cast<double>(Map.Arity * Map.Stride);
    Gathered += static_cast<double>(Map.Arity * Map.Arity * Map.Stride);
    Arity = std::max(Arity, static_cast<double>(Map.Arity));
  }
  double Cost = static_cast<double>(W.cost());
  C.GatherCost = rounded(Arity * Weights.Recompute * Cost +
                         Weights.GatherLoad * Gathered);
  C.TwoPhaseCost = rounded(Cost + Weights.SlotTraffic * Local);
  C.AtomicsCost = rounded(Cost + Weights.AtomicAdd * Local);
  C.Choice = C.Bounded && C.GatherCost < C.TwoPhaseCost ? ElementCost::Gather
                                                        : ElementCost::TwoPhase;
  if (AllowAtomics && C.AtomicsCost < C.cost(C.Choice))
    C.Choice = ElementCost::Atomics;
  return C;
}

unsigned long long ElementCost::cost(Strategy S) const {
  return S == Gather ? GatherCost : S == TwoPhase ? TwoPhaseCost : AtomicsCost;
}

/// "gather 72 < two-phase 116", "atomics 146 < two-phase 191 < gather 239":
/// the estimates of \p Shown, the choice first, then in increasing order.
static std::string ordered(const ElementCost &C,
                           std::vector<ElementCost::Strategy> Shown) {
  static const char *const Names[] = {"gather", "two-phase", "atomics"};
  std::stable_sort(Shown.begin(), Shown.end(), [&](auto A, auto B) {
    return (A == C.Choice) > (B == C.Choice) ||
           ((A == C.Choice) == (B == C.Choice) && C.cost(A) < C.cost(B));
  });
  std::string S = "estimated ";
  for (size_t I = 0; I < Shown.size(); ++I) {
    if (I)
      S += C.cost(Shown[I - 1]) < C.cost(Shown[I]) ? " < " : " <= ";
    S += std::string(Names[Shown[I]]) + " " + std::to_string(C.cost(Shown[I]));
  }
  return S + " operations per element";
}

std::string ElementCost::describe() const {
  std::string S = "element work " + Work.describe() + ": ";
  if (!Bounded) {
    S += "recomputing it per vertex could cost any amount";
    return AtomicsAllowed ? S + "; " + ordered(*this, {TwoPhase, Atomics}) : S;
  }
  if (AtomicsAllowed)
    return S + ordered(*this, {Gather, TwoPhase, Atomics});
  S += ordered(*this, {Gather, TwoPhase});
  if (AtomicsCost < cost(Choice))
    S += " (atomics " + std::to_string(AtomicsCost) +
         ", not bitwise reproducible: ElementStrategy::Fastest or Atomics)";
  return S;
}
