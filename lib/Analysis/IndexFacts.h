//===- Analysis/IndexFacts.h - What guards say about indices -----*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The linear facts F >= 0 that hold where an access executes, from the
/// comparisons of its guards (`if (gx < W && gy < H)`, `if (gx >= W)
/// return;`) and from the launch itself (0 <= gid.d < blockDim.d*gridDim.d).
/// Only stable forms make facts: their values are the same at the guard and
/// at the access.
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_ANALYSIS_INDEXFACTS_H
#define MESHAD_ANALYSIS_INDEXFACTS_H

#include "Analysis/IndexForms.h"
#include "GPU/OwnershipAccesses.h"

#include <vector>

namespace meshad {
namespace ownership {

/// The facts known at one access.
class FactSet {
public:
  FactSet(IndexEvaluator &Evaluator, const Guard *Guards);

  /// The largest literal L with A >= L, if any.
  std::optional<long long> lowerBound(const Atom &A) const;
  /// True when A <= Bound follows from one fact.
  bool provesUpper(const Atom &A, const Affine &Bound) const;

private:
  void add(const ir::Expr *Cond, bool Holds);
  void addComparison(const ir::BinaryExpr *B, bool Holds);
  /// Adds L - R + Delta >= 0.
  void addDifference(const Affine &L, const Affine &R, long long Delta);
  /// False when the comparison \p B converts an operand that may be
  /// negative to an unsigned type (then it says nothing about the value).
  bool comparesValues(const ir::BinaryExpr *B, const Affine &L,
                      const Affine &R) const;

  IndexEvaluator &Evaluator;
  std::vector<Affine> Facts;
};

} // namespace ownership
} // namespace meshad

#endif // MESHAD_ANALYSIS_INDEXFACTS_H
