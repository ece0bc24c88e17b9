//===- IR/Markers.h - The regions of a derivative ---------------*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Finding and removing the region markers (ir::MarkerStmt) that reverse
/// mode leaves between the parts of a function it builds, so that the passes
/// after it (the GPU lowering) can place code without its help.
///
/// \code
///   size_t At = ir::findMarker(*F.getBody(),
///                              ir::MarkerStmt::Region::EpilogueBegin);
///   if (At != ir::NoMarker)
///     ... // insert the write-backs after the body's statement At
///   ir::dropMarkers(F); // the lowering consumes them
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_IR_MARKERS_H
#define MESHAD_IR_MARKERS_H

#include "IR/IR.h"

#include <cstddef>

namespace meshad {
namespace ir {

/// What findMarker returns for a region \p Body has no marker of.
constexpr size_t NoMarker = static_cast<size_t>(-1);

/// The index, among \p Body's statements, of its marker of \p R, or
/// NoMarker.
size_t findMarker(const BlockStmt &Body, MarkerStmt::Region R);

/// True when \p F's body has a marker (a function of reverse mode, not
/// lowered yet).
bool hasMarkers(const Function &F);

/// Removes the markers from \p F's body.
void dropMarkers(Function &F);

} // namespace ir
} // namespace meshad

#endif // MESHAD_IR_MARKERS_H
