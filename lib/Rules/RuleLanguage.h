//===- Rules/RuleLanguage.h - Parsed derivative rules -----------*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The small expression language in which DerivativeRules.def and
/// OperatorRules.def write partial derivatives (see the top of
/// DerivativeRules.def): numbers, the arguments x, y, z, the primal result r,
/// + - * /, unary -, comparisons, ?: and calls. A rule is parsed once into a
/// type-free RuleExpr tree, which the rule table instantiates as IR at the
/// floating type of each operation it differentiates.
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_RULES_RULELANGUAGE_H
#define MESHAD_RULES_RULELANGUAGE_H

#include "IR/IR.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace meshad {

/// A node of a parsed rule expression.
struct RuleExpr {
  enum class Kind {
    Number,      ///< A decimal constant (Value).
    Arg,         ///< Argument ArgNo (x = 0, y = 1, z = 2).
    Result,      ///< r: the primal result of the differentiated operation.
    Neg,         ///< -Ops[0].
    Arith,       ///< Ops[0] Op Ops[1] for + - * /.
    Compare,     ///< Ops[0] Op Ops[1] for a comparison (bool-valued).
    Conditional, ///< Ops[0] ? Ops[1] : Ops[2].
    Call,        ///< Callee(Ops...).
  };

  explicit RuleExpr(Kind K) : K(K) {}

  Kind K;
  double Value = 0;
  unsigned ArgNo = 0;
  ir::BinaryOp Op = ir::BinaryOp::Add;
  /// The callee as spelled in the rule, and its rule id once resolved.
  std::string Callee;
  int CalleeId = -1;
  std::vector<std::unique_ptr<RuleExpr>> Ops;
};

/// Parses \p Text, a rule of a function of \p Arity arguments. Checks the
/// syntax, that only the first \p Arity arguments are used (and the result
/// r only where \p AllowResult), and that comparisons appear exactly as ?:
/// conditions. Callees are not resolved.
llvm::Expected<std::unique_ptr<RuleExpr>>
parseRule(const std::string &Text, unsigned Arity, bool AllowResult = false);

/// How often a parsed rule reads each primal value.
struct RuleReads {
  unsigned Args[3] = {0, 0, 0}; ///< Uses of x, y, z.
  unsigned Result = 0;          ///< Uses of r.
  RuleReads &operator+=(const RuleReads &O) {
    for (unsigned I = 0; I < 3; ++I)
      Args[I] += O.Args[I];
    Result += O.Result;
    return *this;
  }
  /// True when evaluating the rule reads argument \p I: directly, or through
  /// a result that is not kept and so is recomputed from the arguments.
  bool readsArg(unsigned I, bool ResultKept) const {
    return Args[I] > 0 || (Result > 0 && !ResultKept);
  }
};

/// Counts the primal values that \p E reads.
RuleReads countReads(const RuleExpr &E);

} // namespace meshad

#endif // MESHAD_RULES_RULELANGUAGE_H
