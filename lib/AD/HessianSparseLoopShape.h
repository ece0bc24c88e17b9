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
/// `x[3*e[2*i] + k]`), each distinct form one entry.
///
/// \code
///   SparseLoopShape S;
///   std::string Why;  clang::SourceLocation At;
///   if (!analyzeSparseLoops(M, F, X, S, At, Why)) error(At, Why);
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
/// pairs' mask has K*K bits).
constexpr unsigned MaxSparseLoopEntries = 8;

/// One loop `for (int i = Lo; i < Hi; ++i)` of the function.
struct SparseLoop {
  const ir::ForStmt *Loop = nullptr;
  ir::Var *Counter = nullptr;
  /// The iterations [Lo, Hi).
  const ir::Expr *Lo = nullptr, *Hi = nullptr;
  /// The accumulators the loop adds into.
  std::vector<const ir::Var *> Accs;
  /// The locals declared before the loop that its body reads (never
  /// assigned after their declaration), in declaration order.
  std::vector<ir::Var *> Invariants;
  /// The index of each entry: a form over the counter's atom and Gathered
  /// atoms, sorted.
  std::vector<ownership::Affine> Entries;
  /// Each load of x in the loop, to its entry.
  std::map<const ir::IndexExpr *, unsigned> Local;
};

/// The whole function.
struct SparseLoopShape {
  /// The declarations outside the loops, in order.
  std::vector<const ir::DeclStmt *> Decls;
  std::vector<SparseLoop> Loops;
  /// Each accumulator the function returns, with its sign (+1 or -1).
  std::map<const ir::Var *, int> Signs;
  /// Evaluates the loads' indices; owns the atoms of the entries' forms.
  std::unique_ptr<ownership::IndexEvaluator> Evaluator;
  /// Each loop's counter atom.
  std::vector<ownership::Atom> CounterAtoms;
};

/// Fills \p S for the selected array \p X of \p F, or returns false with
/// the first problem's location and reason.
bool analyzeSparseLoops(ir::Module &M, const ir::Function &F, const ir::Var *X,
                        SparseLoopShape &S, clang::SourceLocation &At,
                        std::string &Why);

} // namespace meshad

#endif // MESHAD_AD_HESSIANSPARSELOOPSHAPE_H
