//===- GPU/SlotStores.h - Plain stores into two-phase slots -----*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Plain slot stores for two-phase element gradients (issue 11,
/// docs/element-kernels.md): when every path of one thread through the
/// gradient kernel writes each slot (j, k) of its element exactly once (or,
/// where t >= n, none), `meshad::slotAdd` (`+=` into slots zeroed by the
/// handle) becomes `meshad::slotStore` (`=`), and the handle skips the
/// memset when its launch covers every element. The proof walks the
/// kernel's integer control flow (Analysis/IntegerPaths.h): loops with
/// known trip counts (the reverse loops' counters `_cnt0` from the forward
/// loops) are unrolled, the element guard `_cond0 = e < n` splits the paths
/// by t < n, branches whose condition is not known fork them (a taped or
/// tested bool follows its value), and each slotAdd's position and
/// component must be constants c*t + j and k there.
///
/// \code
///   SlotStoreProof Proof = proveSlotStores(*Gradient, Request, "x");
///   if (Proof.Proven)
///     useSlotStores(B, *Gradient);
///   else
///     remark(Proof.Where, Proof.WhyNot);  // which slot, which construct
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_GPU_SLOTSTORES_H
#define MESHAD_GPU_SLOTSTORES_H

#include "GPU/TwoPhaseSlots.h"

namespace meshad {

struct SlotStoreProof {
  bool Proven = false;
  /// Why not: "component 0 of local vertex 1 of 'x' is not written on
  /// every path: ..."; Where the construct is (may be invalid).
  std::string WhyNot;
  clang::SourceLocation Where;
  /// A grid-stride kernel: every launch visits every element below the
  /// count, so the slots need no zeroing whatever the launch's size.
  bool EveryLaunchCovers = false;
};

/// Whether each slot of the two-phase gradient kernel \p F (its adds
/// already meshad::slotAdd of \p R) is written once per element on every
/// path; \p Array names the mapped array in the reason. \p Slots: the slot
/// buffer of \p R where the kernel has several (null: every slot add).
SlotStoreProof proveSlotStores(const ir::Function &F, const SlotRequest &R,
                               const std::string &Array,
                               const ir::Var *Slots = nullptr);

/// Replaces \p F's meshad::slotAdd calls by meshad::slotStore.
void useSlotStores(ir::IRBuilder &B, ir::Function &F);

} // namespace meshad

#endif // MESHAD_GPU_SLOTSTORES_H
