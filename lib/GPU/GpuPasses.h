//===- GPU/GpuPasses.h - The passes that finish a derivative ----*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The lists of GPU passes, per kind of generated function, that run last
/// on the finished function (see Transform/PassPipeline.h):
/// - a gradient kernel of reverse mode: exclusive-adds (adds to adjoints
///   that the kernel never reads become L2 reductions, GPU/ExclusiveAdds);
/// - a composed derivative (meshad::hvp): dead-locals, then
///   lower-accumulations (every Accumulate gets the form the ownership
///   analysis of the finished function decides, GPU/LowerAccumulations).
///
/// \code
///   PassPipeline Passes(Diags, Verify);
///   addGradientKernelPasses(Passes, M, Primal->getNumParams());
///   Passes.run(*Gradient, Primal);
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_GPU_GPUPASSES_H
#define MESHAD_GPU_GPUPASSES_H

#include "Transform/PassPipeline.h"

#include <map>
#include <string>

namespace meshad {

/// Appends the passes that finish a gradient kernel whose adjoint
/// parameters are numbered \p FirstAdjoint on.
void addGradientKernelPasses(PassPipeline &P, ir::Module &M,
                             unsigned FirstAdjoint);

/// Appends the passes that finish a composed derivative: its Accumulates
/// lowered (all atomic with \p ForceAtomics), remarks naming a target by its
/// entry in \p UserNames.
void addComposedPasses(PassPipeline &P, ir::Module &M, DiagnosticSink &Diags,
                       bool ForceAtomics,
                       std::map<const ir::Var *, std::string> UserNames);

} // namespace meshad

#endif // MESHAD_GPU_GPUPASSES_H
