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

/// Maps source locations to the file and line that `#line` directives in
/// compiled generated code name, so that diagnostics (and debuggers,
/// compute-sanitizer with -lineinfo) point at the user's construct a
/// generated statement came from.
class SourceLines {
public:
  virtual ~SourceLines() = default;
  /// The file and line of \p Loc; false when it has none.
  virtual bool lookup(clang::SourceLocation Loc, std::string &File,
                      unsigned &Line) const = 0;
};

/// Where emitted code stands, which decides how it spells calls of user and
/// generated functions: unqualified ("sq(x)") from the callee's own
/// namespace, fully qualified ("::ns::sq(x)") from another one or where a
/// variable of the same name hides the function.
struct EmitContext {
  /// The namespace of the function being emitted ("" for the global one).
  std::string Namespace;
  /// The names of its parameters and locals.
  std::set<std::string> VarNames;
  /// Its parameters taken by reference (CudaEmitter::takesByReference).
  std::set<const ir::Var *> RefParams;
  /// Set for compiled text: each statement is preceded by a `#line` naming
  /// its own location, else the innermost enclosing statement's, else
  /// \c FallbackLoc (the function's).
  const SourceLines *Lines = nullptr;
  clang::SourceLocation FallbackLoc;
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
  ///
  /// With \p Lines (the text that is compiled, not the one getCode() shows),
  /// `#line` directives map every line to the user's source: the header to
  /// the function's location, each statement to its construct's.
  static std::string emitDefinition(const ir::Function &F,
                                    bool QualifiedName = false,
                                    const SourceLines *Lines = nullptr);
  /// "__device__ double f_darg0(double x, double y);\n"
  static std::string emitPrototype(const ir::Function &F);
  /// An expression with minimal parentheses, as code in \p Ctx (null: the
  /// global namespace) spells it.
  static std::string emitExpr(const ir::Expr *E,
                              const EmitContext *Ctx = nullptr);
  /// One statement at indentation \p Indent (spaces), newline-terminated.
  static std::string emitStmt(const ir::Stmt *S, unsigned Indent = 0,
                              const EmitContext *Ctx = nullptr);
  /// The statements of \p B, one after another, at \p Indent (a function
  /// body without its braces).
  static std::string emitStmts(const ir::BlockStmt *B, unsigned Indent,
                               const EmitContext *Ctx);
  /// The name by which code in \p Ctx (null: the global namespace) calls
  /// \p F, with its template arguments ("sq<double>", "::ns::sq<double>").
  static std::string spellCallee(const ir::Function &F,
                                 const EmitContext *Ctx);
  /// `#line N "file"` and a newline, the file name escaped.
  static std::string lineDirective(unsigned Line, const std::string &File);
  /// The C spelling of a function pointer type for \p F ("double (*)(double)").
  static std::string emitFunctionPointerType(const ir::Function &F);
  /// True for a parameter that the emitted function takes by reference
  /// (`double &acc`): the IR's pointer of a user's non-const reference
  /// parameter, and its tangent or adjoint. Its uses `acc[0]` and `*acc`
  /// are spelled `acc`, the pointer itself `&acc`, and a call passes the
  /// object (`update(acc, x)`, `update_pushforward(b[i], x, _d_b[i], 1.)`).
  static bool takesByReference(const ir::Var &P) {
    return P.isReferenceParam() && P.getType()->isPointer();
  }
  /// The parameter declarations of \p F ("int n, double *"), named when
  /// \p Named holds the name.
  static std::string emitParams(const ir::Function &F,
                                const std::set<std::string> &Named);
};

} // namespace meshad

#endif // MESHAD_EMIT_CUDAEMITTER_H
