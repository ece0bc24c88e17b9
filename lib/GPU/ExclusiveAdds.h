//===- GPU/ExclusiveAdds.h - Adds that need no load -------------*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A plain `_d_x[i] += v` to global memory is a load, an add and a store:
/// the thread waits for the load. Where the ownership analysis proved that
/// no other thread of the launch touches the element, and the gradient
/// kernel never reads the adjoint array back, the add can be issued as a
/// reduction at L2 instead (an atomicAdd whose result is unused, RED on
/// NVIDIA GPUs): fire and forget, no load round trip. Without contention it
/// costs no more than a store, and with one adder per element its result
/// does not depend on scheduling. On an H200 the elementwise gradient of
/// benchmarks/ownership ran 13% faster this way than with load and store.
/// This pass rewrites those adds to meshad::exclusiveAdd (plain += on the
/// CPU emulation). Kernels with a barrier keep their plain adds (a
/// reduction in flight holds the barrier up: the broadcast gradient of the
/// benchmark ran 2.2x slower), and a kernel left without plain stores drops
/// its launch-shape check: atomics are right for any launch shape (only a
/// launch that breaks the proof, with several adders per element, would
/// make the last bits depend on their order).
///
/// \code
///   useExclusiveAdds(B, *Gradient, Primal->getNumParams());
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_GPU_EXCLUSIVEADDS_H
#define MESHAD_GPU_EXCLUSIVEADDS_H

#include "IR/Builder.h"

namespace meshad {

/// Rewrites the `A[i] += v` (and `-=`) of the gradient kernel \p F to
/// floating-point adjoint parameters A (parameters \p FirstAdjoint on) that
/// \p F uses in no other way into meshad::exclusiveAdd(&A[i], v). Returns
/// how many it rewrote.
unsigned useExclusiveAdds(ir::IRBuilder &B, ir::Function &F,
                          unsigned FirstAdjoint);

} // namespace meshad

#endif // MESHAD_GPU_EXCLUSIVEADDS_H
