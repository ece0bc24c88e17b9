//===- Plan/RequestPlanner.h - Finding derivative requests -------*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Finds the requests of a translation unit: calls of meshad::differentiate,
/// meshad::gradient and meshad::hessian whose first argument names a function
/// and whose second is a string literal, and function definitions annotated
/// with MESHAD_FORWARD(...) (attribute annotate("meshad.forward:<spec>")).
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_PLAN_REQUESTPLANNER_H
#define MESHAD_PLAN_REQUESTPLANNER_H

#include "Plan/Request.h"
#include "Support/Diagnostics.h"

#include <vector>

namespace clang {
class ASTContext;
} // namespace clang

namespace meshad {

/// Collects the requests of a translation unit, in source order.
class RequestPlanner {
public:
  RequestPlanner(clang::ASTContext &Ctx, DiagnosticSink &Diags)
      : Ctx(Ctx), Diags(Diags) {}
  /// Malformed requests are reported and left out.
  std::vector<DerivativeRequest> plan();

private:
  clang::ASTContext &Ctx;
  DiagnosticSink &Diags;
};

} // namespace meshad

#endif // MESHAD_PLAN_REQUESTPLANNER_H
