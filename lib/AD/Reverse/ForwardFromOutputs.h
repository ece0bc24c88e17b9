//===- AD/Reverse/ForwardFromOutputs.h - Loop state read back -*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// meshad::AfterPrimal (issue 15): the caller launches a gradient kernel
/// after its primal, with the same arguments, and what the primal stored
/// is still there. A loop of the forward sweep whose final state the primal
/// stores is then not run again: the gradient reads that state back, as a
/// hand-written backward does (gsplat's final T and last contributor).
///
/// A counted loop `for (int k = b; k < e; ++k)` at the primal's top level
/// qualifies when every value the gradient's forward sweep leaves to the
/// rest of the gradient is one of:
///  - the loop's trip count and its early-exit flag, when the primal
///    stores where it stopped: `walked[pix] = stop - b` after the loop, with
///    `stop` set to `e` before it and to `k` just before its one break;
///    without a break, the trip count is `e - b`;
///  - a floating local (`T`, an undone recurrence) the primal stores
///    unchanged after the loop: `finalT[pix] = T`;
/// the stores' arrays are pointer parameters the primal only writes there
/// (one store each), their indices read locals the loop does not assign
/// and that the gradient assigns after the loop, and the loop in the
/// gradient writes no memory and calls nothing but meshad::checkUndoable.
/// The loop is replaced, after the statements that follow it in its block,
/// by the loads:
///
/// \code
///   T = finalT[pix];
///   _cnt0 = walked[pix];
///   _cond0 = _cnt0 < end - begin;   // it stopped at the break
///   if (_cond0) ++_cnt0; else if (_cnt0 < 0) _cnt0 = 0;
/// \endcode
///
/// and each update the reverse sweep undoes by its inverse (`T /= 1 -
/// alpha`) is preceded by `meshad::checkRestored(T)` (Recurrences.h), which
/// stops the program where the forward sweep's check would have. A remark
/// at the loop says which values were read back, or why the loop runs
/// again.
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_AD_REVERSE_FORWARDFROMOUTPUTS_H
#define MESHAD_AD_REVERSE_FORWARDFROMOUTPUTS_H

#include "IR/Builder.h"
#include "IR/IR.h"
#include "Support/Diagnostics.h"

namespace meshad {

/// Replaces the loops of \p Grad's forward sweep (the gradient of kernel
/// \p Primal, its region markers still in place) whose final state
/// \p Primal stores, as the file comment says; a remark per loop of the
/// primal's top level. Returns the number of loops replaced.
unsigned replayFromOutputs(ir::IRBuilder &B, const ir::Function &Primal,
                           ir::Function &Grad, DiagnosticSink &Diags);

} // namespace meshad

#endif // MESHAD_AD_REVERSE_FORWARDFROMOUTPUTS_H
