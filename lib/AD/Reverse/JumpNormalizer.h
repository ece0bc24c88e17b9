//===- AD/Reverse/JumpNormalizer.h - Structured jumps for reverse --*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Reverse mode replays control flow backwards, which is simple when every
/// break, continue and return ends the path it is on. The normalizer moves
/// the statements that follow a statement that may jump into the paths that
/// fall through:
///
///   if (i >= n) return;          if (i >= n) { return; }
///   y[i] = x[i];           =>    else { y[i] = x[i]; }
///
/// so that afterwards a jump is always the last statement of its block and
/// its enclosing ifs. Code after a jump is dead and dropped. A return inside
/// a loop is reported (not supported in reverse mode yet).
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_TRANSFORM_JUMPNORMALIZER_H
#define MESHAD_TRANSFORM_JUMPNORMALIZER_H

#include "IR/IR.h"
#include "Support/Diagnostics.h"

namespace meshad {

/// Produces a normalized copy of a function body (unchanged statements are
/// shared, not copied).
class JumpNormalizer {
public:
  JumpNormalizer(ir::Module &M, DiagnosticSink &Diags) : M(M), Diags(Diags) {}

  /// The normalized body, or null after reporting errors.
  ir::BlockStmt *normalize(const ir::BlockStmt *Body);

  /// True when every path through \p S ends in a break, continue or return
  /// that leaves S.
  static bool alwaysJumps(const ir::Stmt *S);
  /// True when some path through \p S ends in such a jump.
  static bool mayJump(const ir::Stmt *S);

private:
  ir::BlockStmt *normalizeList(std::vector<const ir::Stmt *> Stmts,
                               unsigned LoopDepth);
  const ir::Stmt *normalizeStmt(const ir::Stmt *S, unsigned LoopDepth);
  ir::BlockStmt *withRest(const ir::BlockStmt *Branch,
                          const std::vector<const ir::Stmt *> &Rest,
                          unsigned LoopDepth);

  ir::Module &M;
  DiagnosticSink &Diags;
  bool Failed = false;
};

} // namespace meshad

#endif // MESHAD_TRANSFORM_JUMPNORMALIZER_H
