//===- AD/Forward/ForwardMode.h - Forward (tangent) mode --------*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Forward mode as an IR-to-IR transformation. Each active variable v gets a
/// tangent _d_v computed just before v's primal update. Two kinds of derived
/// functions are produced:
/// - a request function (f_darg0): the primal's parameters, then one tangent
///   argument per Tangent-seeded parameter; it returns the tangent of the
///   return value (void functions return void and write tangents through
///   their tangent pointers);
/// - a pushforward of a callee (g_pushforward): the primal's parameters, then
///   one tangent per active parameter; it returns a
///   meshad::ValueAndPushforward<T, T> {value, pushforward} when the callee
///   returns a differentiable value.
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_TRANSFORM_FORWARDMODE_H
#define MESHAD_TRANSFORM_FORWARDMODE_H

#include "IR/IR.h"
#include "Support/Diagnostics.h"
#include "AD/DerivedFunctions.h"

#include <string>
#include <vector>

namespace meshad {

/// What one parameter of a derived function receives as its tangent.
struct ParamSeed {
  enum class Kind {
    None,        ///< No tangent: the parameter is a constant.
    Unit,        ///< The selected scalar: tangent 1 (declared locally).
    UnitElement, ///< Element Element of the selected array is 1, others 0.
    Tangent,     ///< An extra tangent parameter _d_p (scalar or pointer).
  };
  Kind K = Kind::None;
  unsigned Element = 0;

  static ParamSeed none() { return {}; }
  static ParamSeed unit() { return {Kind::Unit, 0}; }
  static ParamSeed unitElement(unsigned E) { return {Kind::UnitElement, E}; }
  static ParamSeed tangent() { return {Kind::Tangent, 0}; }
};

/// Generates forward-mode derivatives into a DerivedFunctionSet.
///
/// \code
///   ForwardModeTransformer FM(Module, Diags, Derived);
///   std::vector<ParamSeed> Seeds = {ParamSeed::unit(), ParamSeed::none()};
///   ir::Function *DF = FM.deriveRequest(F, Seeds, "f_darg0");
/// \endcode
class ForwardModeTransformer {
public:
  ForwardModeTransformer(ir::Module &M, DiagnosticSink &Diags,
                         DerivedFunctionSet &Derived)
      : M(M), Diags(Diags), Derived(Derived) {}

  /// Derives the function a request asks for. Returns null after reporting
  /// errors. Pointer parameters that receive active stores get a Tangent seed
  /// automatically (the caller can query the final seeds with
  /// getLastSeeds()).
  ir::Function *deriveRequest(ir::Function *Primal,
                              std::vector<ParamSeed> Seeds,
                              const std::string &Name);

  /// The pushforward of \p Primal where the parameters flagged in \p Active
  /// carry tangents. Shared between callers. Null after errors.
  ir::Function *derivePushforward(ir::Function *Primal,
                                  const std::vector<bool> &Active,
                                  clang::SourceLocation CallLoc);

  /// Seeds actually used by the last deriveRequest (after adding tangents
  /// for written pointer parameters).
  const std::vector<ParamSeed> &getLastSeeds() const { return LastSeeds; }

private:
  ir::Module &M;
  DiagnosticSink &Diags;
  DerivedFunctionSet &Derived;
  std::vector<ParamSeed> LastSeeds;
};

} // namespace meshad

#endif // MESHAD_TRANSFORM_FORWARDMODE_H
