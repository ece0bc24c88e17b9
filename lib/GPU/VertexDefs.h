//===- GPU/VertexDefs.h - Index loads held by locals ------------*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Which locals of a gradient kernel hold a load from an index array at a
/// given statement: reverse mode hoists declarations and recomputes loads
/// (`a = edges[2 * e];` inside `if (_cond0) {...}`, used in a later
/// `if (_cond0) {...}`; `v_1 = tris[3 * f + j_1];` at the top of a reverse
/// loop), which a single-definition rule does not see. A walk over the
/// structured body in program order: an assignment of a load makes the
/// local known, valid where the conditions of the `if (c)` around it hold
/// (c a bool local assigned once); any other assignment of the local, or of
/// a variable the load reads, forgets it; a local assigned in a loop is
/// unknown at the loop's entry and after it, one assigned in a branch after
/// the if (unless the branch is guarded by such a c). Locals whose address
/// is taken are never known.
///
/// \code
///   VertexDefs Defs(*Gradient, Edges, Adds);
///   const Expr *Load = Defs.loadAt(Add, A);   // edges[2 * e], or null
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_GPU_VERTEXDEFS_H
#define MESHAD_GPU_VERTEXDEFS_H

#include "IR/IR.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <map>
#include <utility>
#include <vector>

namespace meshad {

class VertexDefs {
public:
  /// Walks \p F and records, at each statement of \p At, the locals that
  /// hold a load from \p Index.
  VertexDefs(const ir::Function &F, const ir::Var *Index,
             const llvm::DenseSet<const ir::Stmt *> &At);

  /// The load \p V holds at \p S, or null.
  const ir::Expr *loadAt(const ir::Stmt *S, const ir::Var *V) const;

private:
  /// A condition c or !c on a bool local assigned once.
  using Cond = std::pair<const ir::Var *, bool>;
  struct Known {
    const ir::Expr *Load;
    /// The conditions that held where the load was assigned.
    std::vector<Cond> Guards;
  };
  using State = std::map<const ir::Var *, Known>;

  void walkBlock(const ir::BlockStmt *B, State &S);
  void walkStmt(const ir::Stmt *St, State &S);
  void walkIf(const ir::IfStmt *If, State &S);
  void walkLoop(const ir::Stmt *Init, const ir::BlockStmt *Body,
                const ir::Stmt *Loop, State &S);
  void assign(const ir::Var *V, const ir::Expr *Value, State &S);
  /// Forgets \p V and every load that reads it.
  static void kill(State &S, const ir::Var *V);
  /// The condition \p E is, when it is c or !c for a bool local c.
  std::optional<Cond> condOf(const ir::Expr *E) const;

  const ir::Var *Index;
  const llvm::DenseSet<const ir::Stmt *> &Targets;
  llvm::DenseMap<const ir::Var *, unsigned> DefCount;
  llvm::DenseSet<const ir::Var *> AddressTaken;
  std::vector<Cond> Active;
  std::map<const ir::Stmt *, std::map<const ir::Var *, const ir::Expr *>>
      Recorded;
};

} // namespace meshad

#endif // MESHAD_GPU_VERTEXDEFS_H
