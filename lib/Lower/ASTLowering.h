//===- Lower/ASTLowering.h - Clang AST to meshad IR --------------*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Lowers Clang function definitions into the meshad IR. Anything that cannot
/// be lowered faithfully is reported as an error at its source location and
/// the function is not lowered (lower() returns null). Callees that are user
/// functions with a visible definition are lowered on demand, once each.
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_LOWER_ASTLOWERING_H
#define MESHAD_LOWER_ASTLOWERING_H

#include "IR/IR.h"
#include "Support/Diagnostics.h"

#include "llvm/ADT/DenseMap.h"

namespace clang {
class ASTContext;
class FunctionDecl;
class QualType;
} // namespace clang

namespace meshad {

/// Lowers functions of one translation unit into one ir::Module.
///
/// \code
///   ASTLowering Lower(Ctx, Module, Diags);
///   if (ir::Function *F = Lower.lower(FD)) ...
/// \endcode
class ASTLowering {
public:
  ASTLowering(clang::ASTContext &Ctx, ir::Module &M, DiagnosticSink &Diags);
  ~ASTLowering();

  /// Lowers \p FD (its definition is looked up) and the user functions it
  /// calls. Returns the same ir::Function for repeated calls. Returns null
  /// (after reporting errors) when the function cannot be lowered.
  ir::Function *lower(const clang::FunctionDecl *FD);

  /// Maps a Clang type into the IR type system (never fails: unknown types
  /// become Opaque with their printed spelling).
  const ir::Type *lowerType(clang::QualType T);

  /// The Clang declaration an IR function was lowered from.
  const clang::FunctionDecl *getDecl(const ir::Function *F) const;

  /// The lambdas lowered so far (called from lowered code): their primals
  /// are emitted with the generated code (Lower/LowerFunctors.cpp).
  const std::vector<ir::Function *> &getLambdas() const;

private:
  class Impl;
  std::unique_ptr<Impl> P;
};

} // namespace meshad

#endif // MESHAD_LOWER_ASTLOWERING_H
