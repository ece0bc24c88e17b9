//===- IR/Clone.h - Copying IR with substitutions ----------------*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Deep copies of statements (expressions are immutable and shared where
/// nothing in them changes), with three kinds of substitution: variables
/// (a fresh local per copy, so that copies can sit side by side), whole
/// expressions, and whole statements (replaced or dropped).
///
/// \code
///   ir::IRCloner C(M);
///   C.freshVar(I);                          // each copy declares its own i
///   C.setExprHook([&](const ir::Expr *E) -> const ir::Expr * {
///     return isGid(E) ? Shifted : nullptr;  // null: copy as usual
///   });
///   ir::BlockStmt *Copy = C.cloneBlock(Body);
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_IR_CLONE_H
#define MESHAD_IR_CLONE_H

#include "IR/IR.h"

#include "llvm/ADT/DenseMap.h"

#include <functional>
#include <optional>

namespace meshad {
namespace ir {

class IRCloner {
public:
  /// Returns a replacement for an expression, or null to copy it.
  using ExprHook = std::function<const Expr *(const Expr *)>;
  /// Returns std::nullopt to copy a statement, a replacement, or null to
  /// drop it. A block replacing a statement that is not a block stands for
  /// its statements, which take the place of the original in its block.
  using StmtHook = std::function<std::optional<const Stmt *>(const Stmt *)>;

  explicit IRCloner(Module &M) : M(M) {}

  void setExprHook(ExprHook H) { OnExpr = std::move(H); }
  void setStmtHook(StmtHook H) { OnStmt = std::move(H); }

  /// Makes copies refer to a new variable (same name and type) instead of
  /// \p V, and returns it.
  Var *freshVar(const Var *V);
  /// The variable copies use for \p V.
  Var *mapVar(Var *V) const;

  const Expr *clone(const Expr *E);
  /// The copy of \p S; null when the statement hook dropped it.
  const Stmt *clone(const Stmt *S);
  BlockStmt *cloneBlock(const BlockStmt *B);

private:
  const Expr *cloneUncached(const Expr *E);
  const Expr *cloneCall(const CallExpr *C);
  const Stmt *cloneUnhooked(const Stmt *S);

  Module &M;
  ExprHook OnExpr;
  StmtHook OnStmt;
  llvm::DenseMap<const Var *, Var *> Vars;
};

} // namespace ir
} // namespace meshad

#endif // MESHAD_IR_CLONE_H
