//===- IR/Traversal.h - Walking IR statements and expressions ----*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Generic walks over the IR for analyses that look at every statement or
/// expression of a function.
///
/// \code
///   ir::forEachStmt(F.getBody(), [&](const ir::Stmt *S) {
///     for (const ir::Expr *E : ir::ownExprs(S))
///       ir::forEachExpr(E, [&](const ir::Expr *Sub) { ... });
///   });
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_IR_TRAVERSAL_H
#define MESHAD_IR_TRAVERSAL_H

#include "IR/IR.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

namespace meshad {
namespace ir {

/// The direct operands of \p E.
llvm::SmallVector<const Expr *, 4> operands(const Expr *E);

/// The expressions \p S evaluates itself (not those of nested statements).
llvm::SmallVector<const Expr *, 4> ownExprs(const Stmt *S);

/// Calls \p F on \p S and on every statement nested in it, outermost first.
void forEachStmt(const Stmt *S, llvm::function_ref<void(const Stmt *)> F);

/// Calls \p F on \p E and all its subexpressions, outermost first.
void forEachExpr(const Expr *E, llvm::function_ref<void(const Expr *)> F);

} // namespace ir
} // namespace meshad

#endif // MESHAD_IR_TRAVERSAL_H
