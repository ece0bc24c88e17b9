//===- IR/Verifier.h - Checking that IR is well formed ----------*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The IR verifier: the invariants every pass must keep, checked on one
/// function. The generator runs it after each mode transform and just before
/// emission when asked (-fplugin-arg-meshad-verify, meshad-gen --verify) and
/// always in builds with assertions; a failure is an internal error reported
/// at the function's location, never a crash.
///
/// What is checked:
/// - every expression has a type; operands fit their operator (arithmetic
///   operands are arithmetic, bit operands integral, an index base indexable
///   and the index integral, a dereferenced value a pointer, an arrow member
///   on a pointer); calls of ir::Functions pass one argument per parameter,
///   launches one per kernel parameter, intrinsics the arity of the table
///   (IR/Intrinsics.def). Opaque types (enums, long double, structs the IR
///   does not look into) are accepted wherever an operand type is checked;
/// - an assignment's left-hand side is an lvalue (VarRef, Index, Member,
///   Deref) that is not const; ++/-- have no right-hand side, the others do;
///   return values match a void or non-void return type;
/// - every variable used is a parameter of the function, a global, or a
///   local declared (DeclStmt) in an enclosing scope before the use; each is
///   declared once; no declaration takes a name already declared in the
///   same scope, and no use names a variable that an inner declaration of the
///   same name hides in the emitted C++ (the emitter prints declarations
///   where they are, so C++ scoping applies as written);
/// - break and continue appear only inside loops;
/// - no block barrier (__syncthreads, and runtime helpers that end with one)
///   inside an if or a loop whose condition depends on the thread index. The
///   check is conservative (it reports only what is certain to be
///   divergent-looking): a value depends on the thread index when it reads
///   threadIdx, or a local variable assigned such a value (through variables
///   only: memory and control dependence are not followed). blockIdx is
///   uniform across a block and does not count;
/// - region markers (MarkerStmt) are statements of the function's body, at
///   most one of each region, in order (IR.h);
/// - at VerifyStage::Lowered (what the emitter receives), no
///   AssignOp::Accumulate and no region marker is left.
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_IR_VERIFIER_H
#define MESHAD_IR_VERIFIER_H

#include "IR/IR.h"

#include <string>
#include <vector>

namespace meshad {
namespace ir {

/// Which pipeline point the function has reached.
enum class VerifyStage {
  /// After a mode transform: Accumulate statements may remain.
  Transformed,
  /// After the GPU lowering: the form the emitter receives.
  Lowered,
};

/// Checks \p F (see the file comment). Returns true when it is well formed;
/// otherwise appends one line per problem (at most a few) to \p Errors.
///
/// \code
///   std::string Errors;
///   if (!ir::verifyFunction(*D, ir::VerifyStage::Lowered, Errors))
///     Diags.error(D->getLoc(), "meshad internal error: ... " + Errors);
/// \endcode
bool verifyFunction(const Function &F, VerifyStage Stage, std::string &Errors);

/// The same, one message per problem in \p Problems.
bool verifyFunction(const Function &F, VerifyStage Stage,
                    std::vector<std::string> &Problems);

} // namespace ir
} // namespace meshad

#endif // MESHAD_IR_VERIFIER_H
