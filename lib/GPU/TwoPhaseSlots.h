//===- GPU/TwoPhaseSlots.h - Element adjoints through slots -----*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The two-phase strategy of issue 11 (docs/element-kernels.md) for the
/// gradient of an element kernel: the adds of element t to the adjoint of a
/// mapped array, `atomicAdd(&_d_x[s*v + k], r)` with `v = idx[c*t + j]`,
/// become plain adds to the element's own slot of a buffer the handle owns,
///
/// \code
///   // _slots[s * (c*t + j) + k] += r, phase 1: this kernel
///   meshad::slotAdd<c, s>(_slots, n, t, c * t + j, k, r);
///   // phase 2 (meshad/codegen/SlotSums.h): per vertex v, in the fixed
///   // order of the incidence, _d_x[s*v + k] += sum of its slots
/// \endcode
///
/// No two elements share a slot and one thread runs an element, so the adds
/// need no atomics, and the sums are bitwise reproducible. The handle
/// (meshad::ElementGradient) zeroes the slots before phase 1, so a slot an
/// element adds to twice, or on some paths only, is still right; where each
/// slot is proven to be written once on every path (GPU/SlotStores.h), the
/// adds become plain stores and the handle need not zero the slots.
///
/// The map and the element count n are proven on the primal (ElementMaps.h,
/// ElementCount.h). In the gradient, each add's index must be s*v + k (k
/// free of loaded values) with v a load idx[pos] or a local that holds one
/// there (GPU/VertexDefs.h); pos names the element id t (a variable that
/// is the thread id or a grid-stride counter). meshad::slotAdd checks at
/// run time that t < n, pos in [c*t, c*t + c) and k in [0, s): what the
/// gradient's reordered code does not let the index algebra prove is never
/// trusted. Any other access to the adjoint leaves the kernel atomic.
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_GPU_TWOPHASESLOTS_H
#define MESHAD_GPU_TWOPHASESLOTS_H

#include "IR/Builder.h"

#include <functional>
#include <string>
#include <vector>

namespace meshad {

/// What the primal's element map says about the array to sum through
/// slots (Analysis/ElementMaps.h, proven on the primal kernel).
struct SlotRequest {
  /// Parameter positions in the gradient kernel: the index array and the
  /// adjoint array.
  unsigned IndexParam = 0;
  unsigned AdjointParam = 0;
  long long Arity = 0;
  long long Stride = 0;
  /// The element count n, over the primal's parameters (the gradient's
  /// first parameters are the primal's, in order).
  const ir::Expr *Count = nullptr;
  /// Try plain stores (GPU/SlotStores.h); off for the benchmark's baseline.
  bool TryStores = true;
  /// Count is the bound of a grid-stride loop over the elements (t = gid;
  /// t < n; t += the thread count), so every element below it is one
  /// iteration of one thread, whatever the launch's size.
  bool GridStrideCount = false;
};

/// What the handle of a two-phase gradient kernel needs: the request, and
/// the slot buffer's parameter (the last one). A gather kernel
/// (GPU/ElementGather.h) has the same handle: Gather is set and SlotParam
/// is the first of its incidence's parameters.
struct SlotLayout {
  SlotRequest Request;
  /// Two-phase: every array summed through slots (Request is the first),
  /// one slot parameter each, from SlotParam on, in this order; several
  /// when the kernel reads several selected arrays through element maps,
  /// or one array through several index arrays (one request per map).
  std::vector<SlotRequest> Requests;
  unsigned SlotParam = 0;
  bool Gather = false;
  /// Two-phase: each slot is stored once on every path (meshad::slotStore,
  /// GPU/SlotStores.h), so the handle need not zero the slots; else why
  /// not, and where.
  bool PlainStores = false;
  /// Plain stores in a grid-stride kernel: no zeroing for any launch.
  bool EveryLaunchCovers = false;
  std::string StoresWhyNot;
  clang::SourceLocation StoresWhere;
};

/// Rewrites the gradient kernel \p F of \p Primal: its adds to the
/// adjoints of \p Rs become slot adds (meshad::slotAdd, which checks that
/// an element's slot index is its own), one slot parameter per request, in
/// order (an adjoint of several requests, one per index array, takes each
/// add to the request whose index array its vertex is loaded from).
/// \p FreshName names the slot parameters. Returns false, leaving \p F
/// unchanged, with the reason in \p WhyNot when an access to an adjoint is
/// not such an add.
bool useTwoPhaseSlots(ir::IRBuilder &B, ir::Function &F,
                      const ir::Function &Primal,
                      const std::vector<SlotRequest> &Rs,
                      const std::function<std::string(const std::string &)>
                          &FreshName,
                      SlotLayout &Layout, std::string &WhyNot);

} // namespace meshad

#endif // MESHAD_GPU_TWOPHASESLOTS_H
