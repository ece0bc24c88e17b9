//===- unittests/TextEditsTest.cpp - applyEdits and offset mapping --------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "Driver/TextEdits.h"

#include "gtest/gtest.h"

using namespace meshad;

namespace {

TextEdit insert(unsigned Offset, std::string Text) {
  return TextEdit{Offset, 0, std::move(Text)};
}

TextEdit replace(unsigned Offset, unsigned Length, std::string Text) {
  return TextEdit{Offset, Length, std::move(Text)};
}

TEST(ApplyEditsTest, NoEditsKeepsText) {
  EXPECT_EQ(applyEdits("abc\ndef\n", {}), "abc\ndef\n");
  EXPECT_EQ(applyEdits("", {}), "");
}

TEST(ApplyEditsTest, InsertsAtStartMiddleAndEnd) {
  EXPECT_EQ(applyEdits("abcdef", {insert(0, "<"), insert(3, "|"),
                                  insert(6, ">")}),
            "<abc|def>");
}

TEST(ApplyEditsTest, AnyInputOrder) {
  EXPECT_EQ(applyEdits("abcdef", {insert(6, ">"), insert(0, "<"),
                                  insert(3, "|")}),
            "<abc|def>");
}

TEST(ApplyEditsTest, EqualOffsetsKeepInputOrder) {
  EXPECT_EQ(applyEdits("ab", {insert(1, "1"), insert(2, "x"), insert(1, "2"),
                              insert(1, "3")}),
            "a123bx");
}

TEST(ApplyEditsTest, RemoveLengthIsHonoured) {
  EXPECT_EQ(applyEdits("int f(x);", {replace(6, 1, "double y")}),
            "int f(double y);");
  EXPECT_EQ(applyEdits("abcdef", {replace(1, 2, "")}), "adef");
}

TEST(ApplyEditsTest, InsertBeforeRemovalAtSameOffset) {
  EXPECT_EQ(applyEdits("abcdef", {insert(2, "+"), replace(2, 2, "X")}),
            "ab+Xef");
}

TEST(ApplyEditsTest, OffsetsPastTheEndAreClamped) {
  // Ordered by the offset asked for, then clamped.
  EXPECT_EQ(applyEdits("abc", {insert(100, "!"), insert(3, "?")}), "abc?!");
  EXPECT_EQ(applyEdits("abc", {replace(2, 50, "Z")}), "abZ");
  EXPECT_EQ(applyEdits("", {insert(7, "x")}), "x");
}

TEST(ApplyEditsTest, OverlappingRemovalsRemoveEachByteOnce) {
  EXPECT_EQ(applyEdits("abcdef", {replace(1, 3, "X"), replace(2, 3, "Y")}),
            "aXYf");
}

TEST(MapOffsetTest, ShiftsByTextInsertedBefore) {
  std::vector<TextEdit> Edits = {insert(2, "123"), replace(4, 2, "Z")};
  std::string Text = "abcdefgh";
  std::string New = applyEdits(Text, Edits);
  ASSERT_EQ(New, "ab123cdZgh");
  EXPECT_EQ(mapOffset(Edits, Text.size(), 0), 0u);
  EXPECT_EQ(mapOffset(Edits, Text.size(), 1), 1u);
  // Text inserted at an offset comes before the byte there.
  EXPECT_EQ(New[mapOffset(Edits, Text.size(), 2)], 'c');
  EXPECT_EQ(New[mapOffset(Edits, Text.size(), 3)], 'd');
  // Removed bytes map to their replacement.
  EXPECT_EQ(New[mapOffset(Edits, Text.size(), 4)], 'Z');
  EXPECT_EQ(New[mapOffset(Edits, Text.size(), 5)], 'Z');
  EXPECT_EQ(New[mapOffset(Edits, Text.size(), 6)], 'g');
  EXPECT_EQ(mapOffset(Edits, Text.size(), 8), New.size());
}

TEST(MapOffsetTest, EveryKeptByteMapsToItself) {
  std::string Text = "line one\nline two\nline three\n";
  std::vector<TextEdit> Edits = {insert(9, "#line 1 \"gen\"\nint g;\n"),
                                 insert(0, "// head\n"),
                                 insert(Text.size(), "// tail\n")};
  std::string New = applyEdits(Text, Edits);
  for (size_t I = 0; I < Text.size(); ++I)
    EXPECT_EQ(New[mapOffset(Edits, Text.size(), I)], Text[I]) << I;
}

TEST(OffsetOfLineColumnTest, FindsLinesAndClampsColumns) {
  llvm::StringRef Text = "ab\ncde\n\nf";
  EXPECT_EQ(offsetOfLineColumn(Text, 1, 1), 0u);
  EXPECT_EQ(offsetOfLineColumn(Text, 2, 3), 5u);
  EXPECT_EQ(offsetOfLineColumn(Text, 2, 99), 6u);
  EXPECT_EQ(offsetOfLineColumn(Text, 3, 1), 7u);
  EXPECT_EQ(offsetOfLineColumn(Text, 4, 1), 8u);
  EXPECT_EQ(offsetOfLineColumn(Text, 5, 1), std::nullopt);
  EXPECT_EQ(offsetOfLineColumn(Text, 0, 1), std::nullopt);
}

} // namespace
