//===- GPU/KernelAdjoints.h - Tiles, registers of kernels -------*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The part of the GPU lowering (pass lower-accumulations) that decides,
/// for a function reverse mode built from a kernel, how each adjoint array
/// of a selected pointer parameter is added to, before its Accumulates are
/// lowered; reverse mode knows none of it:
/// - its ownership class, from the finished function's accesses to the
///   adjoint (its Accumulates), the primal kernel's giving the wording and
///   the decision where the adds' indices are not understood
///   (GPU/AdjointOwnership; MESHAD_THREAD_EXCLUSIVE on the parameter
///   asserts thread-exclusive);
/// - in a gradient, a tile-exclusive array gets a shared-memory tile
///   (meshad/codegen/AdjointTile.h, sized by AccumulationPolicy::tileSlots),
///   declared where the setup ends, zeroed before the forward sweep and
///   written back at the end of the epilogue (the region markers SetupEnd,
///   ForwardBegin, EpilogueEnd, IR/Markers.h), unless its elements are not
///   floating-point scalars or the kernel also writes it (then shared);
/// - in a gradient, the literal element of a read-only floating array that
///   every thread reads (uniform) gets a register, declared with the
///   function's registers (before the adjoints of its __shared__ memory) and
///   reduced per block in the epilogue (meshad::blockReduceAtomicAdd).
/// The decisions go into the AccumulationFacts that configure the policy.
/// (Where the seed resets go, given the epilogue these make, is
/// GPU/SeedResets' placeSeedResets.)
///
/// \code
///   AccumulationFacts Facts = ...;       // with Primal, KernelArrays
///   planKernelAdjoints(M, *Gradient, Facts);
///   placeSeedResets(M, *Gradient, Facts);
///   Facts.configure(Policy);
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_GPU_KERNELADJOINTS_H
#define MESHAD_GPU_KERNELADJOINTS_H

#include "GPU/LowerAccumulations.h"
#include "IR/IR.h"

namespace meshad {

/// Classifies the kernel adjoint arrays of \p F (Facts.KernelArrays, a
/// function reverse mode built from the kernel Facts.Primal), appends the
/// decisions to \p Facts (Ownership, Tiles, UniformElements) and places the
/// declarations, zeroing, reductions and write-backs of the tiles and
/// registers at F's region markers.
void planKernelAdjoints(ir::Module &M, ir::Function &F,
                        AccumulationFacts &Facts);

/// The ownership of \p P that the user asserted (MESHAD_THREAD_EXCLUSIVE),
/// given what the analysis found, \p R.
OwnershipResult assertedExclusive(const ir::Var *P, const OwnershipResult &R);

} // namespace meshad

#endif // MESHAD_GPU_KERNELADJOINTS_H
