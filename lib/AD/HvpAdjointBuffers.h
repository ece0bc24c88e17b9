//===- AD/HvpAdjointBuffers.h - Adjoint buffers in HVPs of host code -*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The first-order adjoint buffers of a Hessian-vector product of host code
/// (the device buffers a gradient allocates for its Thrust calls and
/// copies): the helpers that add into them skip a null adjoint pointer
/// (meshad/codegen/ThrustAdjoint.h, meshad::cuda::adjointMemcpy), so a
/// buffer that the HVP drops, or that nothing reads, is passed as a null
/// pointer there, and its allocation goes.
///
/// \code
///   if (std::optional<const ir::Stmt *> New =
///           withoutBuffersInHelper(M, Cloner, S, Dropped))
///     return New; // S without them, or null: S goes
///   dropUnreadAdjointBuffers(M, H);
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_AD_HVPADJOINTBUFFERS_H
#define MESHAD_AD_HVPADJOINTBUFFERS_H

#include "IR/Clone.h"
#include "IR/IR.h"

#include "llvm/ADT/SmallPtrSet.h"

#include <optional>

namespace meshad {

/// \p S without the buffers \p Vars where it passes them to a helper that
/// skips a null adjoint pointer: a typed nullptr in their place (the
/// helper's other effects, resets of other adjoints, stay), null (the
/// statement goes) when no adjoint pointer is left; its value is dropped
/// with a store into \p Vars. std::nullopt when \p S is no such call or
/// passes none of them. With \p AddsOnly, only where the helper adds into
/// the buffer (where it reads it, the buffer stays, for the caller to
/// report).
std::optional<const ir::Stmt *>
withoutBuffersInHelper(ir::Module &M, ir::IRCloner &C, const ir::Stmt *S,
                       const llvm::SmallPtrSetImpl<const ir::Var *> &Vars,
                       bool AddsOnly = false);

/// Drops the first-order adjoint buffers (locals) of \p F that nothing
/// reads: those only allocated, zeroed, freed, added to by Thrust adjoint
/// helpers and adjointMemcpy, or reset by helpers whose results are such
/// buffers too.
void dropUnreadAdjointBuffers(ir::Module &M, ir::Function &F);

} // namespace meshad

#endif // MESHAD_AD_HVPADJOINTBUFFERS_H
