//===- GPU/Ownership.h - Who owns an adjoint element ------------*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// In reverse mode, reads that many threads share become adjoint writes that
/// race. The ownership analysis decides, for each array parameter of a kernel
/// (global memory), whether the adjoint stores into it need atomics, by
/// looking at EVERY access to that array in the kernel together: the index
/// expressions, symbolic in threadIdx/blockIdx/blockDim/gridDim, uniform
/// values (unassigned scalar parameters, literals) and loop counters.
///
/// - ThreadExclusive: no two threads of a launch touch the same element, e.g.
///   x[i], x[2*i], x[2*i+1] with i = blockIdx.x*blockDim.x + threadIdx.x, or
///   a grid-stride loop's counter, or an int local whose every assignment
///   is gid + c*T or adds c*T (T = blockDim.x*gridDim.x, c an integer that
///   no thread atom enters: the reverse sweep's i = gid + (_cnt0 - 1)*T),
///   always congruent to gid modulo T, or gy*W + gx in 2D. The index must
///   involve every dimension in which the kernel's threads differ (a kernel
///   that reads threadIdx.y or blockIdx.y anywhere, x[gx] is shared by its
///   y-threads). Proven for launches of that many dimensions (1D:
///   blockDim.y == blockDim.z == gridDim.y == gridDim.z == 1), which the
///   generated kernel checks at run time.
/// - TileExclusive: the threads of one block share elements but the
///   elements of distinct blocks are apart except for a halo at the tile
///   ends: every access is c*gid + d with c > 0 and offsets d in
///   [TileLo, TileHi], TileHi - TileLo >= c (a stencil x[i-1], x[i], x[i+1]).
/// - Uniform: every thread touches the same element at a given point (E[0],
///   w[3], or p[k] with k uniform, e.g. a loop counter with uniform bounds).
/// - Shared: anything else (x[i/2], gathers through index arrays,
///   threadIdx.x alone...): atomics stay.
/// The analysis is sound first: when unsure, Shared, with the reason.
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_ANALYSIS_OWNERSHIP_H
#define MESHAD_ANALYSIS_OWNERSHIP_H

#include "IR/IR.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <string>

namespace meshad {

/// How the elements of one array are shared among the threads of a launch.
enum class OwnershipClass { ThreadExclusive, TileExclusive, Uniform, Shared };

/// Spelling for remarks: "thread-exclusive", "tile-exclusive", "uniform",
/// "shared".
const char *getOwnershipName(OwnershipClass C);

/// The class of an array and why (for remarks).
struct OwnershipResult {
  OwnershipClass Class = OwnershipClass::Shared;
  /// e.g. "every access is 2*gid + c with c in [0, 2)"; for Shared, the
  /// conflicting accesses ("x[i] and x[i + 1] overlap between neighbouring
  /// threads").
  std::string Reason;
  /// The proof assumes that threads differ only in the first LaunchDims
  /// dimensions of the launch (1: blockDim.y/z and gridDim.y/z are 1; 2:
  /// blockDim.z and gridDim.z are 1); 0 when it assumes nothing. The
  /// generated kernel checks it at run time.
  unsigned LaunchDims = 0;
  /// For Uniform: true when every access is the same literal element
  /// UniformIndex; false when the index is uniform but symbolic (p[k]).
  bool HasLiteralIndex = false;
  long long UniformIndex = 0;
  /// For TileExclusive: every access is TileStride*gid + d with d in
  /// [TileLo, TileHi] (gid the 1D global thread id, TileStride > 0).
  long long TileStride = 1;
  long long TileLo = 0;
  long long TileHi = 0;
  /// True when the user asserted the class (MESHAD_OWNED...), not proven.
  bool Asserted = false;
  /// For Shared: true when an index is read from an index array (a
  /// gather); the reason then ends with what ElementMaps.h finds.
  bool ThroughIndexArray = false;
  /// For a gather: every access goes through one element map (ElementMaps.h),
  /// and its element count is known.
  bool HasElementMap = false;
  bool HasElementCount = false;
};

/// Analyses the accesses of one kernel (its primal IR).
///
/// \code
///   OwnershipAnalysis O(*Kernel);
///   OwnershipResult R = O.classify(Kernel->getParam(0));
/// \endcode
class OwnershipAnalysis {
public:
  explicit OwnershipAnalysis(const ir::Function &Kernel);

  /// The class of the array pointer parameter \p Param (Shared for anything
  /// that is not a pointer parameter of the kernel).
  OwnershipResult classify(const ir::Var *Param) const;

  /// In a function of reverse mode: the primal parameter x when every
  /// access to \p Param (an adjoint array, _d_x) is an Accumulate that adds
  /// to the adjoint of a read of x (AssignStmt::getPrimalAccess), at least
  /// one; else null.
  const ir::Var *recordedPrimalOf(const ir::Var *Param) const {
    return RecordedPrimal.lookup(Param);
  }
  /// True when an Accumulate adds to the array parameter \p Param.
  bool isAccumulated(const ir::Var *Param) const {
    return Accumulated.count(Param);
  }

private:
  const ir::Function &Kernel;
  llvm::DenseMap<const ir::Var *, OwnershipResult> Results;
  llvm::DenseMap<const ir::Var *, const ir::Var *> RecordedPrimal;
  llvm::SmallPtrSet<const ir::Var *, 4> Accumulated;
};

} // namespace meshad

#endif // MESHAD_ANALYSIS_OWNERSHIP_H
