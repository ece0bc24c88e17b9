//===- AD/HessianSparseLoopShape.h - Loops of a sparse Hessian --*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The analysis half of meshad::hessian(f, "x", meshad::Sparse): f as
/// declarations and counted loops, then `return a;` (or a sum or
/// difference of such accumulators, `return e + v;`), where every loop only
/// adds terms into the accumulators. Per loop, the entries one iteration
/// reads: each load of x as an affine form over the loop counter and the
/// values of index arrays that f never writes (`x[2*i + 1]`,
/// `x[3*e[2*i] + k]`), each distinct form of each selected array one
/// entry; a load under `if (c)` whose condition reads only the counter,
/// parameters and invariant locals (`if (i + 1 < n)`) is read when c
/// holds (the entry's guard, an `||` over its loads).
///
/// \code
///   SparseLoopShape S;
///   std::string Why;  clang::SourceLocation At;
///   if (!analyzeSparseLoops(M, F, {X, V}, S, At, Why)) error(At, Why);
///   for (const SparseLoop &L : S.Loops) ... L.Entries ...
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_AD_HESSIANSPARSELOOPSHAPE_H
#define MESHAD_AD_HESSIANSPARSELOOPSHAPE_H

#include "Analysis/IndexForms.h"
#include "IR/IR.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace meshad {

/// The largest number of distinct entries one iteration may read (the
/// local Hessian has K*K entries, K lanes).
constexpr unsigned MaxSparseLoopEntries = 32;

/// One entry of an iteration: element Form of selected array Array.
struct SparseEntry {
  unsigned Array = 0;
  ownership::Affine Form;
  /// Read only when Guard holds (an expression of f over the counter,
  /// parameters and invariant locals); null: in every iteration.
  const ir::Expr *Guard = nullptr;
};

/// One loop `for (int i = Lo; i < Hi; ++i)` of the function.
struct SparseLoop {
  const ir::ForStmt *Loop = nullptr;
  ir::Var *Counter = nullptr;
  /// The iterations [Lo, Hi).
  const ir::Expr *Lo = nullptr, *Hi = nullptr;
  /// A nest whose body is one loop `for (int j = InnerLo; j < InnerHi;
  /// ++j)` (a grid's rows and columns, `x[i * m + j]`): the inner loop;
  /// an iteration is a pair (i, j). Null for a single loop.
  const ir::ForStmt *Inner = nullptr;
  ir::Var *InnerCounter = nullptr;
  const ir::Expr *InnerLo = nullptr, *InnerHi = nullptr;
  /// The accumulators the loop adds into.
  std::vector<const ir::Var *> Accs;
  /// The locals declared before the loop that its body reads (never
  /// assigned after their declaration), in declaration order.
  std::vector<ir::Var *> Invariants;
  /// The entries: forms over the counter's atom and Gathered atoms, sorted
  /// by array, then form.
  std::vector<SparseEntry> Entries;
  /// Each load of a selected array in the loop, to its entry.
  std::map<const ir::IndexExpr *, unsigned> Local;

  /// The entries of array \p A: [firstOf(A), firstOf(A) + countOf(A)).
  unsigned firstOf(unsigned A) const;
  unsigned countOf(unsigned A) const;
  /// True when some entry has a guard.
  bool guarded() const;
  /// The statements of one iteration (the inner loop's body in a nest).
  const ir::BlockStmt *body() const;
};

/// The whole function.
struct SparseLoopShape {
  /// The selected arrays, in the spec's order.
  std::vector<const ir::Var *> Arrays;
  /// The declarations outside the loops, in order.
  std::vector<const ir::DeclStmt *> Decls;
  std::vector<SparseLoop> Loops;
  /// Each accumulator the function returns, with its sign (+1 or -1).
  std::map<const ir::Var *, int> Signs;
  /// Evaluates the loads' indices; owns the atoms of the entries' forms.
  std::unique_ptr<ownership::IndexEvaluator> Evaluator;
  /// Each loop's counter atom.
  std::vector<ownership::Atom> CounterAtoms;
  /// The variable of each counter and parameter atom of the entries' forms
  /// (`m` of `i * m + j`).
  std::map<ownership::Atom, ir::Var *> AtomVars;
};

/// Fills \p S for the selected arrays \p Xs of \p F, or returns false
/// with the first problem's location and reason.
bool analyzeSparseLoops(ir::Module &M, const ir::Function &F,
                        const std::vector<const ir::Var *> &Xs,
                        SparseLoopShape &S, clang::SourceLocation &At,
                        std::string &Why);

} // namespace meshad

#endif // MESHAD_AD_HESSIANSPARSELOOPSHAPE_H
