//===- Emit/CudaEmitter.h - IR to CUDA C++ text ------------------*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Prints IR functions as CUDA C++ source: readable (user names, two-space
/// indentation, minimal parentheses), deterministic, and compilable by clang
/// and nvcc alike. What is emitted is exactly what the plugin compiles.
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_EMIT_CUDAEMITTER_H
#define MESHAD_EMIT_CUDAEMITTER_H

#include "IR/IR.h"

#include <string>

namespace meshad {

/// Prints IR as CUDA C++.
///
/// \code
///   std::string Text = CudaEmitter::emitDefinition(*F);
/// \endcode
class CudaEmitter {
public:
  /// "__device__ double f_darg0(double x, double y) { ... }\n"
  static std::string emitDefinition(const ir::Function &F);
  /// "__device__ double f_darg0(double x, double y);\n"
  static std::string emitPrototype(const ir::Function &F);
  /// An expression with minimal parentheses.
  static std::string emitExpr(const ir::Expr *E);
  /// One statement at indentation \p Indent (spaces), newline-terminated.
  static std::string emitStmt(const ir::Stmt *S, unsigned Indent = 0);
  /// The C spelling of a function pointer type for \p F ("double (*)(double)").
  static std::string emitFunctionPointerType(const ir::Function &F);
};

} // namespace meshad

#endif // MESHAD_EMIT_CUDAEMITTER_H
