//===- Driver/TextEdits.cpp - Applying and tracking text edits ------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "Driver/TextEdits.h"

#include <algorithm>

using namespace meshad;

void meshad::normalizeEdits(std::vector<TextEdit> &Edits, size_t Size) {
  std::stable_sort(Edits.begin(), Edits.end(),
                   [](const TextEdit &A, const TextEdit &B) {
                     return A.Offset < B.Offset;
                   });
  // Every original byte before Consumed has been kept or removed already.
  size_t Consumed = 0;
  for (TextEdit &E : Edits) {
    size_t Offset = std::clamp<size_t>(E.Offset, Consumed, Size);
    size_t End = std::min<size_t>(size_t(E.Offset) + E.RemoveLength, Size);
    E.Offset = static_cast<unsigned>(Offset);
    E.RemoveLength = static_cast<unsigned>(End > Offset ? End - Offset : 0);
    Consumed = Offset + E.RemoveLength;
  }
}

std::string meshad::applyEdits(llvm::StringRef Original,
                               std::vector<TextEdit> Edits) {
  normalizeEdits(Edits, Original.size());
  size_t Extra = 0;
  for (const TextEdit &E : Edits)
    Extra += E.Text.size();
  std::string Result;
  Result.reserve(Original.size() + Extra);
  size_t Pos = 0;
  for (const TextEdit &E : Edits) {
    Result.append(Original.data() + Pos, E.Offset - Pos);
    Result += E.Text;
    Pos = size_t(E.Offset) + E.RemoveLength;
  }
  Result.append(Original.data() + Pos, Original.size() - Pos);
  return Result;
}

size_t meshad::mapOffset(llvm::ArrayRef<TextEdit> Edits, size_t Size,
                         size_t Offset) {
  std::vector<TextEdit> Sorted(Edits.begin(), Edits.end());
  normalizeEdits(Sorted, Size);
  Offset = std::min(Offset, Size);
  // Bytes gained (inserted minus removed) by the edits before Offset.
  long long Shift = 0;
  for (const TextEdit &E : Sorted) {
    size_t End = size_t(E.Offset) + E.RemoveLength;
    if (Offset >= End && Offset >= E.Offset) {
      Shift += (long long)E.Text.size() - (long long)E.RemoveLength;
      continue;
    }
    if (Offset >= E.Offset) // Inside the removed range.
      return size_t((long long)E.Offset + Shift);
    break;
  }
  return size_t((long long)Offset + Shift);
}

std::optional<size_t> meshad::offsetOfLineColumn(llvm::StringRef Text,
                                                 unsigned Line,
                                                 unsigned Column) {
  if (Line == 0)
    return std::nullopt;
  size_t LineStart = 0;
  for (unsigned L = 1; L < Line; ++L) {
    size_t NewLine = Text.find('\n', LineStart);
    if (NewLine == llvm::StringRef::npos)
      return std::nullopt;
    LineStart = NewLine + 1;
  }
  size_t LineEnd = std::min(Text.find('\n', LineStart), Text.size());
  size_t Col = Column == 0 ? 0 : Column - 1;
  return std::min(LineStart + Col, LineEnd);
}
