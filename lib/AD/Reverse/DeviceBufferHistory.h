//===- AD/Reverse/DeviceBufferHistory.h - Writes to device buffers -*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Where host code writes the memory of its device buffers, for the reverse
/// sweep of kernel launches. The gradient of a launch k<<<...>>>(y) runs
/// after the whole forward sweep; when it reads y and y was overwritten by
/// the launch itself or by anything after it (a later launch, a copy, a
/// later iteration of a loop around it), y must first be put back as it was
/// before the launch. ReverseHost.cpp does that from a device copy taken
/// before the launch (meshad::cuda::DeviceSnapshots).
///
/// \code
///   DeviceBufferHistory H(*Primal, *Body, *Activity);
///   if (H.writtenFrom(Launch, Root)) // snapshot Root before the launch
///     ...
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_AD_REVERSE_DEVICEBUFFERHISTORY_H
#define MESHAD_AD_REVERSE_DEVICEBUFFERHISTORY_H

#include "AD/Analysis/Activity.h"
#include "IR/IR.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <vector>

namespace meshad {

/// The writes a host function's statements make to memory, in program
/// order, by buffer (alias class of ActivityAnalysis).
class DeviceBufferHistory {
public:
  /// \p Body is \p F's normalized body.
  DeviceBufferHistory(const ir::Function &F, const ir::BlockStmt &Body,
                      const ActivityAnalysis &Activity);

  /// True when the memory of \p Root's buffer may be written by \p L
  /// itself, by a statement after it, or by any statement of a loop around
  /// it (a later iteration).
  bool writtenFrom(const ir::LaunchStmt *L, const ir::Var *Root) const;

  /// True when the buffer may be memory the caller sees (a parameter, or
  /// a pointer aliasing one).
  bool callerVisible(const ir::Var *Root) const;

  /// True when some launch may need a snapshot: a kernel reads a buffer
  /// that is written from that launch on (computed from the primal
  /// kernels; the gradient kernels read at most what they read).
  bool anyCandidate() const { return !Candidates.empty(); }

  /// True when kernel \p K may write the memory of its parameter \p I
  /// (stores, atomics, or letting it escape: a call, a pointer copy).
  static bool kernelMayWrite(const ir::Function &K, unsigned I);
  /// True when \p F's body reads the memory of its parameter \p I (any use
  /// but the target of a store, `+=` or an atomic whose result is unused).
  static bool readsParam(const ir::Function &F, unsigned I);

private:
  void walk(const ir::Stmt *S, int LoopStart);
  void recordWrites(const ir::Stmt *S, unsigned Index);
  void recordWrite(const ir::Expr *Target, unsigned Index);
  const ir::Var *leader(const ir::Var *V) const;

  const ActivityAnalysis &Activity;
  /// (statement index, buffer) per write.
  std::vector<std::pair<unsigned, const ir::Var *>> Writes;
  /// Per launch: the first index whose writes it must see (its own, or
  /// the start of the outermost loop around it).
  llvm::DenseMap<const ir::LaunchStmt *, unsigned> From;
  llvm::SmallPtrSet<const ir::Var *, 8> FromParams, Candidates;
  std::vector<const ir::LaunchStmt *> Launches;
  unsigned Next = 0;
};

} // namespace meshad

#endif // MESHAD_AD_REVERSE_DEVICEBUFFERHISTORY_H
