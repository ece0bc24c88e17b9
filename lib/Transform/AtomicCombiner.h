//===- Transform/AtomicCombiner.h - One atomic per address -------*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A thread often adds several contributions to the same adjoint element:
/// `(x[a] - x[b]) * (x[a] - x[b])` reads x[a] twice, so its reverse sweep
/// does atomicAdd(&_d_x[a], ...) twice. Where the ownership analysis keeps
/// atomics (gathers through index arrays), each one costs a round trip to
/// L2. This pass combines them: an atomic add is sunk to the next atomic add
/// of the same callee and address in the same block, and the two become one
/// with the sum of the values, as long as nothing in between can change the
/// address or the value (an assignment to a variable they read, a compound
/// statement, a call, or a memory write when they read memory).
///
/// \code
///   combineAtomics(B, Rev);   // on the reverse sweep of a gradient kernel
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_TRANSFORM_ATOMICCOMBINER_H
#define MESHAD_TRANSFORM_ATOMICCOMBINER_H

#include "IR/Builder.h"

namespace meshad {

/// Combines the atomic adds to the same address of a thread in \p Block and
/// in every block nested in it. Returns how many atomics were removed.
unsigned combineAtomics(ir::IRBuilder &B, const ir::BlockStmt *Block);

} // namespace meshad

#endif // MESHAD_TRANSFORM_ATOMICCOMBINER_H
