//===- Plan/Request.h - A derivative request ---------------------*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// One request: a function, a mode and the selected independent variables,
/// found either at a meshad::differentiate/gradient/hessian call or on an
/// annotated function definition.
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_PLAN_REQUEST_H
#define MESHAD_PLAN_REQUEST_H

#include "Support/ArgSpec.h"
#include "clang/Basic/SourceLocation.h"

#include <string>
#include <vector>

namespace clang {
class CallExpr;
class FunctionDecl;
} // namespace clang

namespace meshad {

/// Hvp: Hessian-vector products, forward mode over reverse mode.
enum class DiffMode { Forward, Reverse, Hvp, Hessian };

/// Spelling of a mode in messages ("forward", "reverse", "Hessian").
const char *getModeName(DiffMode M);

struct DerivativeRequest {
  DiffMode Mode = DiffMode::Forward;
  /// The primal function (its definition).
  const clang::FunctionDecl *Function = nullptr;
  /// The spec string as written ("x, p[2]").
  std::string Spec;
  std::vector<ArgSpecItem> Items;
  /// The meshad::differentiate(...) call; null for annotation requests.
  const clang::CallExpr *Call = nullptr;
  /// Where to report problems with this request.
  clang::SourceLocation Loc;
  /// meshad::KeepSeeds: the gradient leaves the seeds of write-only kernel
  /// outputs unchanged.
  bool KeepSeeds = false;
  /// meshad::WithValue: the gradient also returns the primal's value and
  /// leaves its outputs.
  bool WithValue = false;
  /// meshad::AfterPrimal: the primal ran before with the same arguments and
  /// its stores are still there (kernels).
  bool AfterPrimal = false;
  /// The option argument, when one was given.
  clang::SourceLocation OptionLoc;
  /// meshad::ElementStrategy (as its enumerator's value: Auto, Gather,
  /// TwoPhase, Atomics, Fastest) and where it was given.
  enum class Strategy { Auto, Gather, TwoPhase, Atomics, Fastest };
  Strategy ElementStrategy = Strategy::Auto;
  /// meshad::Sparse (meshad::HessianOption): the CSR Hessian of a loop.
  bool SparseHessian = false;
  /// meshad::SparseDevice: the same Hessian filled by kernels on the GPU.
  bool SparseDevice = false;
  clang::SourceLocation StrategyLoc;
};

} // namespace meshad

#endif // MESHAD_PLAN_REQUEST_H
