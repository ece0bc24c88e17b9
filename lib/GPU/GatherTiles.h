//===- GPU/GatherTiles.h - Stencil adjoints as gathers ----------*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A tile-exclusive adjoint (a stencil: thread t adds to x[t + d] for a few
/// offsets d) can be summed without shared memory or atomics by turning the
/// scatter into a gather: the thread that owns element e runs, for each
/// offset d, the reverse sweep of thread t = e - d (recomputing what that
/// thread computes, which reads neighbouring elements that the cache
/// holds), keeps only the contribution to x[t + d] = x[e], and adds the sum
/// to the adjoint once. This is what a person writes by hand for a stencil
/// gradient. It is exact (the same terms as the scatter, summed in a fixed
/// order: bitwise reproducible) and costs one recomputation per offset, so
/// it is used only when the thread's work is straight-line code, and only
/// when the thread's sweeps have no other effect than those adds (no seed
/// resets: see meshad::KeepSeeds; no atomics, barriers or block sums), and
/// every use of threadIdx.x and blockIdx.x is the global thread id
/// blockIdx.x * blockDim.x + threadIdx.x, which each recomputation replaces
/// by t.
///
/// Elements run from the smallest offset to the last thread plus the largest
/// offset; thread g handles elements g + Lo, g + Lo + T, ... below T + Hi
/// (T threads in the grid), so every element has exactly one owner.
///
/// \code
///   std::string WhyNot;
///   if (!gatherTiles(B, *Gradient, Tiles, FreshName, WhyNot))
///     ...keep the shared-memory tiles...
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_GPU_GATHERTILES_H
#define MESHAD_GPU_GATHERTILES_H

#include "IR/Builder.h"

#include "llvm/ADT/ArrayRef.h"

#include <functional>
#include <string>

namespace meshad {

/// A tile-exclusive adjoint array of a gradient kernel and its shared tile.
struct GatherTile {
  const ir::Var *Adjoint;
  const ir::Var *Tile;
  /// Every access is Stride*gid + d (meshad/AdjointTile.h).
  long long Stride;
};

/// Rewrites the body of the gradient kernel \p F, whose adds to the arrays
/// of \p Tiles are meshad::tileAdd calls, into the gather form. Returns
/// false, leaving \p F unchanged, with the reason in \p WhyNot when the
/// form does not apply. \p FreshName gives unused names for new locals.
bool gatherTiles(ir::IRBuilder &B, ir::Function &F,
                 llvm::ArrayRef<GatherTile> Tiles,
                 const std::function<std::string(const std::string &)> &FreshName,
                 std::string &WhyNot);

} // namespace meshad

#endif // MESHAD_GPU_GATHERTILES_H
