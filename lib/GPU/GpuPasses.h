//===- GPU/GpuPasses.h - The passes that finish a derivative ----*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The lists of GPU passes, per kind of generated function, that run last
/// on the finished function (see IR/PassPipeline.h):
/// - every function of reverse mode (gradient or pullback, host or device):
///   lower-gpu-accumulations (its Accumulates get the forms that the facts
///   reverse mode hands over decide, with their remarks, and the adds of the
///   reverse sweep to one element are combined, GPU/LowerAccumulations);
/// - then on a gradient kernel of reverse mode: gather-tiles (a stencil's
///   shared-memory tiles become gathers where the kernel allows it,
///   GPU/GatherTiles), then exclusive-adds (adds to adjoints that the kernel
///   never reads become L2 reductions, GPU/ExclusiveAdds);
/// - a composed derivative (meshad::hvp): dead-locals, then
///   lower-accumulations (every Accumulate gets the form the ownership
///   analysis of the finished function decides, GPU/LowerAccumulations);
/// - an element kernel's gradient with an atomic-free strategy (run by the
///   driver after the gradient's own passes): two-phase-slots.
///
/// \code
///   AccumulationFacts Adds;  ...            // ownership, tiles, block sums
///   GradientKernelFacts Facts;
///   Facts.FirstAdjoint = Primal->getNumParams();  ...
///   PassPipeline Passes(Diags, Verify);
///   addReversePasses(Passes, M, Diags, std::move(Adds), std::move(Facts));
///   Passes.run(*Gradient, Primal);
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_GPU_GPUPASSES_H
#define MESHAD_GPU_GPUPASSES_H

#include "GPU/GatherTiles.h"
#include "GPU/LowerAccumulations.h"
#include "GPU/TwoPhaseSlots.h"
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

/// Appends the passes that finish a function of reverse mode: its
/// Accumulates lowered as \p Adds decide, then, for a gradient kernel
/// (\p Kernel; its Tiles and TilesDone are filled in from \p Adds), the
/// gradient kernel passes.
void addReversePasses(PassPipeline &P, ir::Module &M, DiagnosticSink &Diags,
                      AccumulationFacts Adds,
                      std::optional<GradientKernelFacts> Kernel);
/// What the element strategies of issue 11 need of a gradient kernel and
/// report about it.
struct ElementKernelFacts {
  /// The primal kernel, and its element map to sum through slots.
  const ir::Function *Primal = nullptr;
  SlotRequest Request;
  /// Called with the slots' layout when the kernel now writes slots, or
  /// null and why not.
  std::function<void(const SlotLayout *Layout, const std::string &WhyNot)>
      Done;
};

/// Appends two-phase-slots (GPU/TwoPhaseSlots): a finished gradient kernel
/// of an element kernel adds to its mapped adjoint through slots.
void addElementKernelPasses(PassPipeline &P, ir::Module &M,
                            ElementKernelFacts Facts);

/// Appends the passes that finish a composed derivative: its Accumulates
/// lowered (all atomic with \p ForceAtomics), remarks naming a target by its
/// entry in \p UserNames.
void addComposedPasses(PassPipeline &P, ir::Module &M, DiagnosticSink &Diags,
                       bool ForceAtomics,
                       std::map<const ir::Var *, std::string> UserNames);

} // namespace meshad

#endif // MESHAD_GPU_GPUPASSES_H
