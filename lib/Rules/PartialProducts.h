//===- Rules/PartialProducts.h - Seeds times partials -----------*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A tangent is a sum of partials times the arguments' tangents, an adjoint
/// contribution a seed times a partial. These helpers build those products
/// and sums from the partials that the rule table instantiates, folded as a
/// careful hand would write them: a partial 1 leaves the seed alone, -1
/// negates it, N / D divides the seed's product by D (`_d_x / y`, not
/// `1 / y * _d_x`), and a sum over one denominator is one quotient
/// (`(_d_x - r * _d_y) / y`).
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_RULES_PARTIALPRODUCTS_H
#define MESHAD_RULES_PARTIALPRODUCTS_H

#include "IR/Builder.h"
#include "Rules/DerivativeRules.h"

namespace meshad {

/// Where the seed goes in its product with a partial.
enum class SeedPlace {
  BeforePartial, ///< `_d_x * y`.
  AfterPartial,  ///< `x * _d_y`, `cos(x) * _d_x`.
  AfterConstant, ///< `_r0 * cos(x)`, but `0.5 * _r0`.
};

/// Where the seed goes in the product with the partial of argument
/// \p ArgNo of \p R: for an operator, in the place of the operand it belongs
/// to (`_d_x * y + x * _d_y`); for a function, after the partial in forward
/// mode (`cos(x) * _d_x`) and first in reverse mode, after a constant
/// (`_r0 * cos(x)`, `0.5 * _r0 / r`).
SeedPlace seedPlace(const MathRule &R, unsigned ArgNo, bool Reverse);

/// \p Seed times \p Partial (null when either is zero), folded.
const ir::Expr *scaleByPartial(ir::IRBuilder &B, const ir::Expr *Seed,
                               const ir::Expr *Partial, SeedPlace Place);

/// \p A + \p C (null is zero), where a negated \p C is subtracted and two
/// quotients over the same denominator D (or over D and D * D) are one.
const ir::Expr *addContributions(ir::IRBuilder &B, const ir::Expr *A,
                                 const ir::Expr *C);

} // namespace meshad

#endif // MESHAD_RULES_PARTIALPRODUCTS_H
