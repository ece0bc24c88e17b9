//===- GPU/ScalarSums.h - Per-block sums of scalars' adjoints ---*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The part of the GPU lowering (pass lower-accumulations) that decides how
/// a gradient kernel adds to the adjoints of its scalar parameters; reverse
/// mode knows none of it. Reverse mode writes the target-independent form:
/// the sweep accumulates into the adjoint parameter (`*_d_k += v;`), or,
/// when the kernel overwrites its copy of the parameter, into a local copy
/// (`double _d_k_local = 0;`, reset where the parameter is overwritten) that
/// the epilogue adds to the parameter's adjoint (`*_d_k += _d_k_local;`).
/// Every thread adds to that one value, so in a gradient kernel (unless
/// atomics=all) the lowering sums each in a register of the thread instead
/// (`double _d_k_part = 0;`: the local copy renamed, or a new register that
/// the sweep's adds go to), declared with the function's registers (before
/// the adjoints of its __shared__ memory, at the region marker SetupEnd),
/// and reduces it per block first in the epilogue
/// (`meshad::blockReduceAtomicAdd(_d_k, _d_k_part);`, one atomicAdd per
/// block). The registers go into AccumulationFacts::BlockSums, whose adds
/// the policy keeps plain.
///
/// \code
///   AccumulationFacts Facts = ...;  // Gradient, KernelScalars, FreshName
///   sumScalarsPerBlock(M, *Gradient, Facts);
///   planKernelAdjoints(M, *Gradient, Facts);
///   Facts.configure(Policy);
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_GPU_SCALARSUMS_H
#define MESHAD_GPU_SCALARSUMS_H

#include "GPU/LowerAccumulations.h"
#include "IR/IR.h"

#include <cstddef>

namespace meshad {

/// Sums the adds of gradient kernel \p F to the adjoints of its scalar
/// parameters (Facts.KernelScalars) in registers reduced per block, and
/// appends the registers to Facts.BlockSums. Does nothing for pullbacks,
/// under atomics=all, or for an adjoint that \p F uses otherwise than
/// through `*_d_k` (it keeps its Accumulates).
void sumScalarsPerBlock(ir::Module &M, ir::Function &F,
                        AccumulationFacts &Facts);

/// Where the registers of \p F, a function of reverse mode, end: before the
/// adjoints of its __shared__ memory, which end its setup (the marker
/// SetupEnd; the body's start without one).
size_t registersEnd(const ir::Function &F);

} // namespace meshad

#endif // MESHAD_GPU_SCALARSUMS_H
