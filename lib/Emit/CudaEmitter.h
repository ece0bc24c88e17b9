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

#include <set>
#include <string>

namespace meshad {

/// Where emitted code stands, which decides how it spells calls of user and
/// generated functions: unqualified ("sq(x)") from the callee's own
/// namespace, fully qualified ("::ns::sq(x)") from another one or where a
/// variable of the same name hides the function.
struct EmitContext {
  /// The namespace of the function being emitted ("" for the global one).
  std::string Namespace;
  /// The names of its parameters and locals.
  std::set<std::string> VarNames;
  /// The context of \p F's body.
  static EmitContext of(const ir::Function &F);
};

/// Prints IR as CUDA C++.
///
/// \code
///   std::string Text = CudaEmitter::emitDefinition(*F);
/// \endcode
class CudaEmitter {
public:
  /// "__device__ double f_darg0(double x, double y) { ... }\n"; with
  /// \p QualifiedName, the name is qualified by the function's namespace
  /// ("ns::f_darg0"), to define it outside of it.
  static std::string emitDefinition(const ir::Function &F,
                                    bool QualifiedName = false);
  /// "__device__ double f_darg0(double x, double y);\n"
  static std::string emitPrototype(const ir::Function &F);
  /// An expression with minimal parentheses, as code in \p Ctx (null: the
  /// global namespace) spells it.
  static std::string emitExpr(const ir::Expr *E,
                              const EmitContext *Ctx = nullptr);
  /// One statement at indentation \p Indent (spaces), newline-terminated.
  static std::string emitStmt(const ir::Stmt *S, unsigned Indent = 0,
                              const EmitContext *Ctx = nullptr);
  /// The name by which code in \p Ctx (null: the global namespace) calls
  /// \p F, with its template arguments ("sq<double>", "::ns::sq<double>").
  static std::string spellCallee(const ir::Function &F,
                                 const EmitContext *Ctx);
  /// The C spelling of a function pointer type for \p F ("double (*)(double)").
  static std::string emitFunctionPointerType(const ir::Function &F);
  /// The parameter declarations of \p F, with names ("int n, double *x").
  static std::string emitParams(const ir::Function &F);
};

} // namespace meshad

#endif // MESHAD_EMIT_CUDAEMITTER_H
