//===- GPU/SeedResets.h - What happens to the seeds of outputs --*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Reverse mode resets the adjoint of each element a kernel stores to (its
/// seed) once the sweep has read it, and marks those stores
/// (AssignStmt::isSeedReset). Under meshad::KeepSeeds the seeds of a
/// gradient kernel's outputs are only read: the pass keep-seeds drops the
/// marked resets of every output for which that is right (the kernel only
/// writes it, once per element: one store on each path, not in a loop, and
/// no two threads store to one element, proven or MESHAD_THREAD_EXCLUSIVE),
/// and reports an error at the output's first store otherwise.
///
/// Otherwise the GPU lowering (lower-accumulations) decides where the
/// resets that are the seed's last use go (placeSeedResets): in a gradient
/// kernel whose epilogue has a block barrier (a block reduction, a tile's
/// write-back), after the epilogue, so that no global store is in flight
/// when the block waits; in place otherwise.
///
/// \code
///   KeepSeedsFacts Facts{Primal, WriteOnly, PathStores, {{DY, Y}}, Loc};
///   PassPipeline P(Diags, Verify);
///   addKeepSeedsPass(P, Diags, std::move(Facts), Failed);
///   ...
///   placeSeedResets(M, *Gradient, Adds);   // in lower-accumulations
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_GPU_SEEDRESETS_H
#define MESHAD_GPU_SEEDRESETS_H

#include "GPU/LowerAccumulations.h"
#include "IR/IR.h"
#include "Support/Diagnostics.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace meshad {

/// What keep-seeds needs to know of the primal kernel, which the reverse
/// sweep no longer shows (the forward sweep leaves write-only stores out).
struct KeepSeedsFacts {
  /// The primal kernel (its accesses decide who stores to an element).
  const ir::Function *Primal = nullptr;
  /// The pointer parameters whose memory the kernel only writes.
  llvm::SmallPtrSet<const ir::Var *, 4> WriteOnly;
  /// The most statements that store to each of them along one path.
  llvm::DenseMap<const ir::Var *, unsigned> PathStores;
  /// The parameter whose adjoint each adjoint variable (a parameter, or a
  /// register or local for a scalar) is.
  llvm::DenseMap<const ir::Var *, const ir::Var *> ParamOfAdjoint;
  /// Where errors go when a store has no location (the request).
  clang::SourceLocation RequestLoc;
};

/// Drops the seed resets of \p F (a gradient kernel) that meshad::KeepSeeds
/// keeps; reports an error (at the first store of the output, in source
/// order) for each output whose seed cannot be kept. False after an error.
bool keepSeeds(ir::Function &F, const KeepSeedsFacts &Facts,
               DiagnosticSink &Diags);

/// Decides where the marked seed resets of the adjoints in
/// Facts.LastSeedUses outside loops go (`_d_y[i] = 0;`, one each, which
/// reverse mode found to be the seed's last use): in a gradient (not under
/// atomics=all) whose epilogue (between the markers EpilogueBegin and
/// EpilogueEnd) calls a block barrier, each records the element's address
/// instead (`_z0 = &_d_y[i];`, the pointer declared null after the sweep's
/// temporaries) and is reset after the marker EpilogueEnd (`if (_z0) {
/// *_z0 = 0; }`, in the order reverse mode made them); else they stay in
/// place.
void placeSeedResets(ir::Module &M, ir::Function &F,
                     const AccumulationFacts &Facts);

} // namespace meshad

#endif // MESHAD_GPU_SEEDRESETS_H
