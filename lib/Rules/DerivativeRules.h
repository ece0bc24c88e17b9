//===- Rules/DerivativeRules.h - The math derivative rule table --*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Derivative rules for math functions are data: DerivativeRules.def lists,
/// for each function, its double and float spellings and one partial
/// derivative per argument written as a small expression over the arguments
/// x, y, z (first, second, third). The table parses those expressions into IR
/// on demand, so that derivatives of derivatives (Hessians) need no extra
/// rules.
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_RULES_DERIVATIVERULES_H
#define MESHAD_RULES_DERIVATIVERULES_H

#include "IR/IR.h"
#include "llvm/ADT/StringMap.h"

#include <memory>
#include <string>
#include <vector>

namespace meshad {

struct RuleExpr;

/// One row of DerivativeRules.def.
struct MathRule {
  std::string DoubleName; ///< "sin"; empty for float-only intrinsics.
  std::string FloatName;  ///< "sinf" or "__expf"; empty for double-only.
  unsigned Arity = 1;
  /// One partial per argument in the rule language, or empty strings for
  /// non-differentiable functions (floor, ceil...: zero derivative).
  std::vector<std::string> Partials;
  bool isNonDifferentiable() const;
};

/// The derivative rule table (a process-wide singleton built from the .def).
class RuleTable {
public:
  static const RuleTable &get();

  /// Id of the rule for a function spelled \p Name (double, float,
  /// std::- or ::-qualified spelling), or -1 when there is none. Generic
  /// spellings (min, max, abs, see MESHAD_GENERIC_ALIAS in the .def) resolve
  /// only when the caller says that all arguments are \p FloatingArgs.
  int lookup(const std::string &Name, bool FloatingArgs = false) const;
  const MathRule &getRule(int Id) const { return Rules[Id]; }
  unsigned size() const { return Rules.size(); }

  /// A call of rule \p Id at floating type \p Ty: the float spelling at
  /// float type, the double spelling otherwise (the other one where the
  /// wanted one does not exist, as for the float-only intrinsics).
  const ir::Expr *buildCall(ir::Module &M, int Id,
                            std::vector<const ir::Expr *> Args,
                            const ir::Type *Ty) const;

  /// The partial derivative of rule \p Id with respect to argument \p ArgNo,
  /// as IR over \p Args (which should be cheap to duplicate: variables or
  /// literals), at floating type \p Ty. Null for non-differentiable rules.
  const ir::Expr *buildPartial(ir::Module &M, int Id, unsigned ArgNo,
                               const std::vector<const ir::Expr *> &Args,
                               const ir::Type *Ty) const;

  /// The spelling buildCall uses for rule \p Id at type \p Ty.
  const std::string &getSpelling(int Id, const ir::Type *Ty) const;

private:
  RuleTable();
  ~RuleTable();
  RuleTable(const RuleTable &) = delete;
  RuleTable &operator=(const RuleTable &) = delete;

  void addRule(MathRule R);
  void addAlias(const std::string &Generic, const std::string &DoubleName);
  void parseRules();
  void resolveCalls(const MathRule &Owner, RuleExpr &E) const;
  const ir::Expr *instantiate(ir::Module &M, const RuleExpr &E,
                              const std::vector<const ir::Expr *> &Args,
                              const ir::Type *Ty) const;

  std::vector<MathRule> Rules;
  /// Parsed partials: Parsed[Id][ArgNo], empty for non-differentiable rules.
  std::vector<std::vector<std::unique_ptr<RuleExpr>>> Parsed;
  /// Double and float spellings to rule ids.
  llvm::StringMap<int> Names;
  /// Generic spellings (for floating arguments) to rule ids.
  llvm::StringMap<int> Generics;
};

} // namespace meshad

#endif // MESHAD_RULES_DERIVATIVERULES_H
