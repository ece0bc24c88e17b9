//===- GPU/BlockUniformReduce.h - Uniform adjoint adds in loops -*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A strategy of the GPU lowering for adjoint adds in a kernel's reverse
/// loop whose address is the same in every thread at an iteration (issue
/// 15): in the splat rasterizer every pixel of a tile adds to the gradient
/// of the same Gaussian `ids[k]` at iteration k. Atomics there serialize a
/// whole block on one address; a hand-written backward sums per warp first.
///
/// Detection (GPU/BlockUniformity): an Accumulate into an adjoint array
/// parameter whose ownership is uniform or shared, in the body of a counted
/// reverse loop `for (; c > 0; --c)` of the kernel (at the top level, or
/// last in a guard `if (g) { ...; loop }` at the top level, every thread
/// reaching it: the kernel has no return; or so in a branch of a top-level
/// `if` whose condition is block-uniform), not in a nested loop, its index
/// block-uniform at that point: it reads the counter (the same in every
/// lane of the in-step loop below), locals assigned at the body's top level
/// from uniform values, and values uniform in the whole kernel (blockIdx,
/// a tile's range start loaded from a read-only array...). The body must
/// not leave an iteration early (break, continue at its level) nor wait in
/// a barrier or warp collective.
///
/// Lowering: the loop runs in step across each warp (meshad/codegen/WarpStep.h):
/// the thread's trip count `_steps` (0 outside the guard), the warp's
/// largest as the in-step loop's, the original body run only while the
/// step is within the thread's own count; each qualifying add stores its
/// value and its address in registers, and after the body the warp sums
/// them with shuffles, one atomicAdd per warp, iteration and add
/// (meshad::warpUniformAdds: one call per element type, all the
/// iteration's adds in one reduce-scatter tree; the default). With
/// uniform-sums=block the loop runs
/// in step across the whole block instead (meshad::blockMaxSteps), and the
/// warps' sums meet in shared memory after one __syncthreads per iteration,
/// one atomicAdd per block and iteration (meshad::blockUniformAdds): every
/// thread of the block reaches the loop once, since it is at the kernel's
/// top level, or in a branch of an `if` whose condition is block-uniform
/// (every thread takes it alike), and the kernel has no return. The other
/// adds stay Accumulates for the lowering that follows. One remark per add
/// says what it got; a loop with uniform-looking adds that cannot run in
/// step keeps its atomics, and a remark says why (a loop nested in another
/// loop or in a thread-dependent branch: its threads may reach it a
/// different number of times).
///
/// \code
///   UniformAddTargets T;
///   T.Names[DMeans] = "means";            // uniform or shared adjoints
///   reduceUniformAdds(B, *Gradient, T, Diags);
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_GPU_BLOCKUNIFORMREDUCE_H
#define MESHAD_GPU_BLOCKUNIFORMREDUCE_H

#include "IR/Builder.h"
#include "Support/Diagnostics.h"

#include <map>
#include <set>
#include <string>

namespace meshad {

struct AccumulationFacts;

/// The adjoint arrays whose adds may be summed per warp, with the names of
/// their primal parameters (for remarks).
struct UniformAddTargets {
  std::map<const ir::Var *, std::string> Names;
  /// Those of ownership class uniform (every access the same in all threads
  /// at a point), for the remarks on loops that cannot run in step.
  std::set<const ir::Var *> UniformClass;
  /// Sum per warp only, never per block (uniform-sums=warp).
  bool PerWarp = false;
};

/// The uniform or shared adjoint arrays of \p Facts, those without a
/// register for a uniform element.
UniformAddTargets uniformAddTargets(const AccumulationFacts &Facts);

/// Runs the reverse loops of the kernel \p F whose adds into \p Targets
/// are block-uniform in step across each warp and sums those adds per
/// warp; remarks go to \p Diags. Does nothing to other functions.
void reduceUniformAdds(ir::IRBuilder &B, ir::Function &F,
                       const UniformAddTargets &Targets,
                       DiagnosticSink &Diags);

} // namespace meshad

#endif // MESHAD_GPU_BLOCKUNIFORMREDUCE_H
