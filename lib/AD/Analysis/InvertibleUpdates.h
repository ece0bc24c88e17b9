//===- AD/Analysis/InvertibleUpdates.h - Undo instead of tape ---*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Multiplicative recurrences in loops (`T *= 1 - alpha`, `T = T * f`,
/// `T = nextT` with `nextT = T * (1 - alpha)`) that the reverse sweep can
/// undo by the inverse update (`T /= 1 - alpha`) instead of saving the old
/// value on a per-thread tape, when the factor is proven nonzero by an
/// interval bound (`alpha = fmin(0.99, ...)` gives `1 - alpha >= 0.01`).
/// Products and quotients are undone to a relative rounding error; sums are
/// not undone (`acc -= c` cancels catastrophically when acc >> c): they
/// stay taped. Which updates are invertible, and why not, is data
/// (`InvertibleUpdates.cpp`, the table of update forms and the table of
/// function bounds).
///
/// \code
///   InvertibleUpdates U(*Body);
///   std::string Why;
///   if (auto Inv = U.find(LHS, Op, RHS, Why)) // restore: LHS Inv->Undo Factor
///     ...
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_ANALYSIS_INVERTIBLEUPDATES_H
#define MESHAD_ANALYSIS_INVERTIBLEUPDATES_H

#include "IR/IR.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <optional>
#include <string>
#include <vector>

namespace meshad {

/// A closed interval of doubles (infinite ends allowed).
struct ValueRange {
  double Lo, Hi;
  static ValueRange all();
  bool excludesZero() const { return Lo > 0 || Hi < 0; }
};

class InvertibleUpdates {
public:
  explicit InvertibleUpdates(const ir::Stmt &FunctionBody);

  /// How to undo an update: `V Undo Factor` (`T /= 1 - alpha`).
  struct Inverse {
    const ir::Var *Target;
    ir::AssignOp Undo;
    const ir::Expr *Factor;
    /// The locals the factor reads: the reverse sweep must hold their
    /// values at the update (restored or recomputed).
    std::vector<const ir::Var *> Reads;
    std::string Why; ///< The proof that the factor is nonzero.
  };

  /// The inverse of `LHS Op RHS` when it is a multiplicative update of a
  /// local by a factor proven nonzero; otherwise nullopt, and \p WhyNot
  /// says why when the statement has an update's shape (empty otherwise).
  std::optional<Inverse> find(const ir::Expr *LHS, ir::AssignOp Op,
                              const ir::Expr *RHS, std::string &WhyNot) const;

  /// A bound on the values of \p E (locals through their one definition).
  ValueRange bound(const ir::Expr *E, unsigned Depth = 0) const;

private:
  /// The factor F of V in `V * F` or `F * V` (null otherwise).
  const ir::Expr *factorOf(const ir::Var *V, const ir::Expr *Product) const;
  /// True when \p F cannot change between the update and the restore: it
  /// reads no memory, not \p V, and only locals with one definition.
  bool isSteady(const ir::Expr *F, const ir::Var *V,
                std::vector<const ir::Var *> &Reads) const;
  void collect(const ir::Stmt *S, unsigned LoopDepth);

  llvm::DenseMap<const ir::Var *, unsigned> Defs;
  llvm::DenseMap<const ir::Var *, unsigned> LoopDefs;
  llvm::DenseMap<const ir::Var *, const ir::Expr *> Init;
  llvm::SmallPtrSet<const ir::Var *, 8> AddressTaken;
};

} // namespace meshad

#endif // MESHAD_ANALYSIS_INVERTIBLEUPDATES_H
