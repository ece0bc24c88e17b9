//===- GPU/AtomicCombiner.h - One atomic per address ------------*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A thread often adds several contributions to the same adjoint element:
/// `(x[a] - x[b]) * (x[a] - x[b])` reads x[a] twice, so its reverse sweep
/// adds to _d_x[a] twice. Where the ownership analysis keeps atomics
/// (gathers through index arrays) each one costs a round trip to L2, and a
/// plain `+=` to global memory is a load and a store that the compiler
/// cannot merge (it cannot tell that _d_x does not alias x). This pass
/// combines them: an accumulation (atomicAdd, warpAtomicAdd, tileAdd, or a
/// plain += to an element) is sunk to the next one of the same form and
/// element in the same block, and the two become one adding the sum, as
/// long as nothing in between can change the element's address or the
/// value, or reads the memory added to. Adds commute, so accumulations in
/// between only matter through what they read.
///
/// \code
///   combineAtomics(B, Body, IsSweepAdd);   // a gradient kernel's sweep
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_GPU_ATOMICCOMBINER_H
#define MESHAD_GPU_ATOMICCOMBINER_H

#include "IR/Builder.h"

#include "llvm/ADT/STLFunctionalExtras.h"

namespace meshad {

/// Combines the accumulations to the same element of a thread in \p Block
/// and in every block nested in it; with \p Only, just those it accepts
/// (the others still count as what may interfere). Returns how many were
/// removed.
unsigned combineAtomics(
    ir::IRBuilder &B, const ir::BlockStmt *Block,
    llvm::function_ref<bool(const ir::Stmt *)> Only = nullptr);

} // namespace meshad

#endif // MESHAD_GPU_ATOMICCOMBINER_H
