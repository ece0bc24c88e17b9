//===- Analysis/Ownership.h - Who owns an adjoint element --------*- C++ -*-===//
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
///   a grid-stride loop's counter. Proven for 1D launches (blockDim.y ==
///   blockDim.z == gridDim.y == gridDim.z == 1), which the generated kernel
///   checks at run time.
/// - Uniform: every thread touches the same element (E[0], w[3]).
/// - Shared: anything else (x[i] together with x[i+1], x[i/2], gathers
///   through index arrays, threadIdx.x alone, 2D indices...): atomics stay.
/// The analysis is sound first: when unsure, Shared, with the reason.
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_ANALYSIS_OWNERSHIP_H
#define MESHAD_ANALYSIS_OWNERSHIP_H

#include "IR/IR.h"

#include "llvm/ADT/DenseMap.h"

#include <string>

namespace meshad {

/// How the elements of one array are shared among the threads of a launch.
enum class OwnershipClass { ThreadExclusive, Uniform, Shared };

/// Spelling for remarks: "thread-exclusive", "uniform", "shared".
const char *getOwnershipName(OwnershipClass C);

/// The class of an array and why (for remarks).
struct OwnershipResult {
  OwnershipClass Class = OwnershipClass::Shared;
  /// e.g. "every access is 2*gid + c with c in [0, 2)"; for Shared, the
  /// conflicting accesses ("x[i] and x[i + 1] overlap between neighbouring
  /// threads").
  std::string Reason;
  /// True when the proof assumes a 1D launch (to be checked at run time).
  bool Needs1DLaunch = false;
  /// For Uniform: the element every thread accesses.
  long long UniformIndex = 0;
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

private:
  const ir::Function &Kernel;
  llvm::DenseMap<const ir::Var *, OwnershipResult> Results;
};

} // namespace meshad

#endif // MESHAD_ANALYSIS_OWNERSHIP_H
