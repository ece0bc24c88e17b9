//===- Driver/TextEdits.h - Applying and tracking text edits ----*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Helpers around meshad::applyEdits (declared in Driver/Generator.h): the
/// canonical edit order and the mapping of an original offset to its offset
/// in the edited text, which the plugin needs to report diagnostics in the
/// augmented main file.
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_DRIVER_TEXTEDITS_H
#define MESHAD_DRIVER_TEXTEDITS_H

#include "Driver/Generator.h"

#include "llvm/ADT/ArrayRef.h"

#include <optional>

namespace meshad {

/// Sorts \p Edits by offset, keeping the input order of equal offsets, and
/// clamps offsets and removals to a text of \p Size bytes. Removals that
/// overlap an earlier removal are shortened so that every byte is removed at
/// most once.
void normalizeEdits(std::vector<TextEdit> &Edits, size_t Size);

/// Where the byte at \p Offset of the original text lies after applying
/// \p Edits (as applyEdits does). Text inserted at Offset comes before that
/// byte; a removed byte maps to the start of the text that replaced it.
size_t mapOffset(llvm::ArrayRef<TextEdit> Edits, size_t Size, size_t Offset);

/// The byte offset of 1-based \p Line and \p Column in \p Text, or nullopt
/// when the line does not exist. Columns past the end of the line are
/// clamped to the line's end.
std::optional<size_t> offsetOfLineColumn(llvm::StringRef Text, unsigned Line,
                                         unsigned Column);

} // namespace meshad

#endif // MESHAD_DRIVER_TEXTEDITS_H
