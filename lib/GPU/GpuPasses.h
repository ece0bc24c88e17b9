//===- GPU/GpuPasses.h - The passes that finish a derivative ----*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The GPU passes that run last on a finished function, one pipeline per
/// kind of generated function (see IR/PassPipeline.h), all appended by one
/// entry point, addLoweringPasses:
/// - every function of reverse mode (gradient or pullback, host or device):
///   lower-accumulations (GPU/ScalarSums sums a gradient kernel's scalar
///   parameters' adjoints per block, GPU/KernelAdjoints decides the
///   ownership, tiles and uniform registers of a kernel's adjoint arrays and
///   places them at the region markers, GPU/SeedResets decides whether the
///   resets of the seeds' last uses wait until after the epilogue, then
///   every Accumulate gets its form, with its remark,
///   and the adds of the reverse sweep to one element are combined,
///   GPU/LowerAccumulations);
/// - then on a gradient kernel of reverse mode: gather-tiles (a stencil's
///   shared-memory tiles become gathers where the kernel allows it,
///   GPU/GatherTiles), then exclusive-adds (adds to adjoints that the kernel
///   never reads become L2 reductions, GPU/ExclusiveAdds);
/// - a composed derivative (meshad::hvp): dead-locals, then
///   lower-accumulations (every Accumulate gets the form the ownership
///   analysis of the finished function decides, GPU/LowerAccumulations);
/// - an element kernel's gradient with an atomic-free strategy (run by the
///   driver after the gradient's own passes): two-phase-slots.
/// A new strategy for the adds of a reverse function's kernel arrays plugs
/// into GPU/KernelAdjoints (the decision per array, what it declares at the
/// markers) and AccumulationPolicy (the form of each add).
///
/// \code
///   LoweringRequest R;
///   R.Reverse = std::move(Adds);            // AccumulationFacts
///   R.Kernel.emplace();                     // a gradient kernel
///   R.Kernel->FirstAdjoint = Primal->getNumParams();  ...
///   PassPipeline Passes(Diags, Verify);
///   addLoweringPasses(Passes, M, Diags, std::move(R));
///   Passes.run(*Gradient, Primal);
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_GPU_GPUPASSES_H
#define MESHAD_GPU_GPUPASSES_H

#include "GPU/GatherTiles.h"
#include "GPU/LowerAccumulations.h"
#include "GPU/TwoPhaseSlots.h"
#include "GPU/SeedResets.h"
#include "IR/PassPipeline.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace meshad {

/// What reverse mode knows about a gradient kernel it built that the
/// finished IR does not say.
struct GradientKernelFacts {
  /// The adjoint parameters are numbered from this on.
  unsigned FirstAdjoint = 0;
  /// The adjoint arrays summed in shared-memory tiles.
  std::vector<GatherTile> Tiles;
  /// Unused names for new locals (the kernel's name scope).
  std::function<std::string(const std::string &)> FreshName;
  /// Called with whether the tiles became gathers, or why not: the remarks
  /// of the tile stores wait for it.
  std::function<void(bool Gathered, const std::string &WhyNot)> TilesDone;
};

/// Appends the passes that finish a gradient kernel described by \p Facts.
void addGradientKernelPasses(PassPipeline &P, ir::Module &M,
                             GradientKernelFacts Facts);

/// What the GPU lowering of one function starts from besides its IR.
struct LoweringRequest {
  /// A function of reverse mode: what reverse mode hands over. None: a
  /// composed derivative, which the finished function alone decides.
  std::optional<AccumulationFacts> Reverse;
  /// A gradient kernel of reverse mode: what its gather-tiles and
  /// exclusive-adds need (its Tiles and TilesDone are filled in).
  std::optional<GradientKernelFacts> Kernel;
  /// A composed derivative: atomics=all, and remarks naming a target by its
  /// entry in UserNames.
  bool ForceAtomics = false;
  std::map<const ir::Var *, std::string> UserNames;
};

/// Appends the passes that finish the derivative \p R describes: its
/// Accumulates lowered (lower-accumulations), after dead-locals for a
/// composed derivative, before the gradient kernel passes for a gradient
/// kernel.
void addLoweringPasses(PassPipeline &P, ir::Module &M, DiagnosticSink &Diags,
                       LoweringRequest R);

/// What the element strategies of issue 11 need of a gradient kernel and
/// report about it.
struct ElementKernelFacts {
  /// The primal kernel, and its element maps to sum through slots (one
  /// slot buffer each).
  const ir::Function *Primal = nullptr;
  std::vector<SlotRequest> Requests;
  /// Called with the slots' layout when the kernel now writes slots, or
  /// null and why not.
  std::function<void(const SlotLayout *Layout, const std::string &WhyNot)>
      Done;
};

/// Appends two-phase-slots (GPU/TwoPhaseSlots): a finished gradient kernel
/// of an element kernel adds to its mapped adjoint through slots.
void addElementKernelPasses(PassPipeline &P, ir::Module &M,
                            ElementKernelFacts Facts);

/// Appends keep-seeds (GPU/SeedResets.h), which runs on a gradient kernel
/// under meshad::KeepSeeds once reverse mode has assembled it, gradient or
/// unlowered (an HVP keeps the seeds too); \p Kept becomes false after its
/// error.
void addKeepSeedsPass(PassPipeline &P, DiagnosticSink &Diags,
                      KeepSeedsFacts Facts, bool &Kept);

} // namespace meshad

#endif // MESHAD_GPU_GPUPASSES_H
