//===- Driver/RequestResolver.h - Requests to derivation jobs ----*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Turns a request (function + spec string) into what a transformer needs:
/// one seed per parameter and the stable name of the generated function.
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_DRIVER_REQUESTRESOLVER_H
#define MESHAD_DRIVER_REQUESTRESOLVER_H

#include "IR/IR.h"
#include "Plan/Request.h"
#include "Support/Diagnostics.h"
#include "AD/Forward/ForwardMode.h"

#include <optional>
#include <string>
#include <vector>

namespace meshad {

/// A forward-mode job: seeds and the generated function's name.
struct ForwardJob {
  std::vector<ParamSeed> Seeds;
  std::string Name;
};

/// A reverse-mode job: which parameters get adjoints, and the name.
struct ReverseJob {
  std::vector<bool> Selected;
  std::string Name;
  /// meshad::KeepSeeds (kernels only).
  bool KeepSeeds = false;
  /// meshad::WithValue.
  bool WithValue = false;
  /// meshad::AfterPrimal (kernels only).
  bool AfterPrimal = false;
};

/// Resolves a gradient request: named parameters (or every differentiable
/// one for an empty spec), whole arrays only.
std::optional<ReverseJob> resolveReverse(const DerivativeRequest &R,
                                         const ir::Function &F,
                                         DiagnosticSink &Diags);

/// Resolves a forward request against its lowered function: exactly one
/// parameter or one element, differentiable, named by name or number.
/// Reports problems at the request and returns std::nullopt.
std::optional<ForwardJob> resolveForward(const DerivativeRequest &R,
                                         const ir::Function &F,
                                         DiagnosticSink &Diags);

} // namespace meshad

#endif // MESHAD_DRIVER_REQUESTRESOLVER_H
