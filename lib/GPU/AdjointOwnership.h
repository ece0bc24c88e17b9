//===- GPU/AdjointOwnership.h - Ownership of a finished function -*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The one classifier of the adjoint arrays that the GPU lowering
/// (lower-accumulations) adds to, for gradients, pullbacks and composed
/// derivatives alike (issue 10, item 2): the ownership analysis runs on the
/// finished, unlowered function's own accesses to the adjoint (its
/// Accumulates). A function reverse mode built also knows its primal:
/// - an adjoint that no Accumulate adds to (an output's seed, only read)
///   has nothing to decide: the primal's result is kept for its remarks;
/// - where the finished function gives the same decision (class, launch
///   shape, tile window, uniform element), the primal's result is taken
///   whole: its reason quotes the user's accesses (x[i - 1], not
///   _d_x[i - 1]) and its element-map facts describe the user's array;
/// - where the finished function's own indices are not understood (a
///   counter the reverse sweep recomputes from a loop count, `k = _cnt0 -
///   1`) but every access to the adjoint is an Accumulate that adds to the
///   adjoint of a read of the parameter (AssignStmt::getPrimalAccess: the
///   add runs where that read ran, in the same thread, at the same
///   element), the primal's classification of the parameter holds for the
///   adds, and is taken;
/// - otherwise the finished function decides; when it is the less precise
///   one, atomics stay and the reason says what the primal would have
///   allowed.
///
/// \code
///   OwnershipAnalysis Finished(F), Primal(*Facts.Primal);
///   OwnershipResult R =
///       classifyAdjoint(Finished, A.Adjoint, &Primal, A.Param);
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_GPU_ADJOINTOWNERSHIP_H
#define MESHAD_GPU_ADJOINTOWNERSHIP_H

#include "GPU/Ownership.h"

namespace meshad {

/// How classifyAdjoint decided.
enum class AdjointOwnershipSource {
  /// The finished function alone (no primal, or the two differ).
  Finished,
  /// The finished function, with the same decision as the primal.
  Agreed,
  /// The primal's reads that the Accumulates record.
  RecordedReads,
  /// The primal: nothing adds to the adjoint (an output's seed).
  NoAdds,
};

/// The ownership of \p Adjoint, an adjoint array of the finished function
/// that \p Finished analyses; \p Primal and \p Param (the primal kernel's
/// analysis and parameter whose adjoint it holds) may be null. \p Source,
/// if given, says how it was decided.
OwnershipResult classifyAdjoint(const OwnershipAnalysis &Finished,
                                const ir::Var *Adjoint,
                                const OwnershipAnalysis *Primal,
                                const ir::Var *Param,
                                AdjointOwnershipSource *Source = nullptr);

/// True when \p A and \p B make the same decision: class, launch shape,
/// tile window, uniform element (not the reason).
bool sameOwnershipDecision(const OwnershipResult &A, const OwnershipResult &B);

/// \p Text with each identifier \p From spelled \p To (an adjoint's name
/// spelled as its parameter's in a reason).
std::string renameIdentifier(const std::string &Text, const std::string &From,
                             const std::string &To);

} // namespace meshad

#endif // MESHAD_GPU_ADJOINTOWNERSHIP_H
