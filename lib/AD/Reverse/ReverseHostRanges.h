//===- AD/Reverse/ReverseHostRanges.h - What a launch accesses --*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The elements of a device buffer that a launch may access through one of
/// its kernel's pointer parameters, when the kernel's guards bound them:
/// every access is `p[gid.x + c]` under guards that give gid.x < n - d for
/// one unassigned integer parameter n, so the launch reads and writes at
/// most p[0 .. n + max(c + 1 - d)). Host reverse mode (ReverseHost.cpp)
/// then copies that range of the buffer before the launch instead of its
/// whole allocation (the run time clamps it to the allocation); the
/// gradient kernel reads the buffer only where the kernel does.
///
/// \code
///   if (std::optional<LaunchRange> R = launchAccessRange(M, *Launch, I))
///     // snapshotPush(_snapshots, y, <argument R->CountArg> + R->Extra)
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_AD_REVERSE_REVERSEHOSTRANGES_H
#define MESHAD_AD_REVERSE_REVERSEHOSTRANGES_H

#include "IR/IR.h"

#include <optional>

namespace meshad {

/// The elements [0, n + Extra) of a launch's buffer argument, n the
/// launch's argument number CountArg.
struct LaunchRange {
  unsigned CountArg;
  long long Extra;
};

/// The range of the elements that kernel \p L launches may access through
/// its pointer parameter \p I, or nullopt when the analysis does not bound
/// it (an access that is not gid.x + c, a parameter that escapes, a
/// kernel over more than one dimension, no guard against a parameter).
/// \p M holds the references to the kernel's parameters it evaluates.
std::optional<LaunchRange> launchAccessRange(ir::Module &M,
                                             const ir::LaunchStmt &L,
                                             unsigned I);

} // namespace meshad

#endif // MESHAD_AD_REVERSE_REVERSEHOSTRANGES_H
