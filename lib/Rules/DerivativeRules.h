//===- Rules/DerivativeRules.h - The math derivative rule table --*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Derivative rules are data: DerivativeRules.def lists, for each math
/// function, its double and float spellings and one partial derivative per
/// argument written as a small expression over the arguments x, y, z (first,
/// second, third) and the result r; OperatorRules.def does the same for the
/// floating-point arithmetic operators and compound assignments. The table
/// parses those expressions once, knows which primal values each partial
/// reads (for the reverse sweep's needs analysis), and instantiates them as
/// IR on demand, so that derivatives of derivatives (Hessians) need no extra
/// rules.
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_RULES_DERIVATIVERULES_H
#define MESHAD_RULES_DERIVATIVERULES_H

#include "IR/IR.h"
#include "Rules/RuleLanguage.h"
#include "llvm/ADT/StringMap.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace meshad {

/// One row of DerivativeRules.def (a function) or OperatorRules.def (an
/// arithmetic operator).
struct MathRule {
  /// What the rule differentiates.
  enum class Form { Function, Unary, Binary, Assign };

  std::string DoubleName; ///< "sin"; empty for float-only intrinsics.
  std::string FloatName;  ///< "sinf" or "__expf"; empty for double-only.
  unsigned Arity = 1;
  /// One partial per argument in the rule language, or empty strings for
  /// non-differentiable functions (floor, ceil...: zero derivative).
  std::vector<std::string> Partials;
  Form F = Form::Function;
  /// Operators: the ir::UnaryOp, BinaryOp or AssignOp, and its spelling.
  int OpCode = -1;
  std::string Spelling;

  bool isNonDifferentiable() const;
  bool isOperator() const { return F != Form::Function; }
  /// The name in diagnostics of the table: "sin", "__expf", "operator*".
  std::string displayName() const;
};

/// The derivative rule table (a process-wide singleton built from the .def
/// files).
class RuleTable {
public:
  static const RuleTable &get();

  /// Id of the rule for a function spelled \p Name (double, float,
  /// std::- or ::-qualified spelling), or -1 when there is none. Generic
  /// spellings (min, max, abs, see MESHAD_GENERIC_ALIAS in the .def) resolve
  /// only when the caller says that all arguments are \p FloatingArgs.
  int lookup(const std::string &Name, bool FloatingArgs = false) const;
  /// Id of the rule of a floating-point operator, or -1 when it has none
  /// (comparisons, logical and bitwise operators, ++/--, plain `=`).
  int lookupOperator(ir::UnaryOp Op) const;
  int lookupOperator(ir::BinaryOp Op) const;
  int lookupOperator(ir::AssignOp Op) const;
  const MathRule &getRule(int Id) const { return Rules[Id]; }
  unsigned size() const { return Rules.size(); }

  /// A call of rule \p Id at floating type \p Ty: the float spelling at
  /// float type, the double spelling otherwise (the other one where the
  /// wanted one does not exist, as for the float-only intrinsics).
  const ir::Expr *buildCall(ir::Module &M, int Id,
                            std::vector<const ir::Expr *> Args,
                            const ir::Type *Ty) const;
  /// The primal value of rule \p Id over \p Args: the call, or the operator
  /// applied to them (not for assignments).
  const ir::Expr *buildResult(ir::Module &M, int Id,
                              std::vector<const ir::Expr *> Args,
                              const ir::Type *Ty) const;

  /// The partial derivative of rule \p Id with respect to argument \p ArgNo,
  /// as IR over \p Args (which should be cheap to duplicate: variables or
  /// literals), at floating type \p Ty. \p Result is the primal result where
  /// it is at hand (cheap too); without it the partial takes the form that
  /// does without it, or recomputes it from \p Args. Null for
  /// non-differentiable rules.
  const ir::Expr *buildPartial(ir::Module &M, int Id, unsigned ArgNo,
                               const std::vector<const ir::Expr *> &Args,
                               const ir::Type *Ty,
                               const ir::Expr *Result = nullptr) const;

  /// What buildPartial reads for argument \p ArgNo: how often it uses each
  /// argument and the result, in the form it takes when the result is at
  /// hand (\p ResultKept) or not. A use of the result without \p ResultKept
  /// means that the result is recomputed.
  RuleReads getReads(int Id, unsigned ArgNo, bool ResultKept) const;
  /// The same summed over the partials of the arguments in \p ArgMask
  /// (bit I for argument I): what an adjoint or tangent of those reads.
  RuleReads getReadsOf(int Id, unsigned ArgMask, bool ResultKept) const;
  /// True when the partial in \p ArgNo is the constant 1 (`+`, `+=`).
  bool isUnitPartial(int Id, unsigned ArgNo) const;

  /// The spelling buildCall uses for rule \p Id at type \p Ty.
  const std::string &getSpelling(int Id, const ir::Type *Ty) const;

private:
  struct ParsedPartial;

  RuleTable();
  ~RuleTable();
  RuleTable(const RuleTable &) = delete;
  RuleTable &operator=(const RuleTable &) = delete;

  void addRule(MathRule R);
  void addOperator(MathRule::Form F, int OpCode, const char *Spelling,
                   std::vector<std::string> Partials);
  void addAlias(const std::string &Generic, const std::string &DoubleName);
  void parseRules();
  ParsedPartial parsePartial(const MathRule &R, const std::string &Text);
  void resolveCalls(const MathRule &Owner, RuleExpr &E) const;
  const ParsedPartial &partial(int Id, unsigned ArgNo) const;
  const ir::Expr *instantiate(ir::Module &M, const RuleExpr &E,
                              const std::vector<const ir::Expr *> &Args,
                              const ir::Expr *Result,
                              const ir::Type *Ty) const;

  std::vector<MathRule> Rules;
  /// Parsed partials: Parsed[Id][ArgNo], empty for non-differentiable rules.
  std::vector<std::vector<ParsedPartial>> Parsed;
  /// Double and float spellings to rule ids.
  llvm::StringMap<int> Names;
  /// Generic spellings (for floating arguments) to rule ids.
  llvm::StringMap<int> Generics;
  /// (Form, OpCode) of the operators to rule ids.
  std::map<std::pair<MathRule::Form, int>, int> Operators;
};

} // namespace meshad

#endif // MESHAD_RULES_DERIVATIVERULES_H
