//===- unittests/ArgSpecTest.cpp - Argument-spec parsing ------------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "Support/ArgSpec.h"

#include "gtest/gtest.h"

using namespace meshad;

namespace {

std::vector<ArgSpecItem> parseOk(const std::string &Spec) {
  std::string Error;
  auto Items = parseArgSpec(Spec, Error);
  EXPECT_TRUE(Items.has_value()) << Spec << ": " << Error;
  return Items ? *Items : std::vector<ArgSpecItem>();
}

std::string parseError(const std::string &Spec) {
  std::string Error;
  auto Items = parseArgSpec(Spec, Error);
  EXPECT_FALSE(Items.has_value()) << Spec;
  return Error;
}

TEST(ArgSpecTest, EmptyMeansAll) {
  EXPECT_TRUE(parseOk("").empty());
  EXPECT_TRUE(parseOk("   ").empty());
}

TEST(ArgSpecTest, NamesAndNumbers) {
  auto Items = parseOk(" x , y_2,3");
  ASSERT_EQ(Items.size(), 3u);
  EXPECT_EQ(Items[0].Name, "x");
  EXPECT_EQ(Items[0].Number, -1);
  EXPECT_FALSE(Items[0].HasRange);
  EXPECT_EQ(Items[1].Name, "y_2");
  EXPECT_EQ(Items[2].Name, "");
  EXPECT_EQ(Items[2].Number, 3);
}

TEST(ArgSpecTest, ElementsAndRanges) {
  auto Items = parseOk("p[2], q[0:8], _r [ 1 : 3 ]");
  ASSERT_EQ(Items.size(), 3u);
  EXPECT_TRUE(Items[0].HasRange);
  EXPECT_TRUE(Items[0].isElement());
  EXPECT_EQ(Items[0].Begin, 2u);
  EXPECT_EQ(Items[0].End, 3u);
  EXPECT_FALSE(Items[1].isElement());
  EXPECT_EQ(Items[1].Begin, 0u);
  EXPECT_EQ(Items[1].End, 8u);
  EXPECT_EQ(Items[2].Name, "_r");
  EXPECT_EQ(Items[2].Begin, 1u);
  EXPECT_EQ(Items[2].End, 3u);
}

TEST(ArgSpecTest, Errors) {
  EXPECT_NE(parseError("x[").find("element index"), std::string::npos);
  EXPECT_NE(parseError("x[1").find("']'"), std::string::npos);
  EXPECT_NE(parseError("x[3:3]").find("empty range"), std::string::npos);
  EXPECT_NE(parseError("x[4:2]").find("empty range"), std::string::npos);
  EXPECT_NE(parseError("x[1:]").find("end of the range"), std::string::npos);
  EXPECT_NE(parseError("x, x").find("named twice"), std::string::npos);
  EXPECT_NE(parseError("x y").find("unexpected text"), std::string::npos);
  EXPECT_NE(parseError("x,").find("parameter name or number"),
            std::string::npos);
  EXPECT_NE(parseError("*p").find("parameter name or number"),
            std::string::npos);
  EXPECT_NE(parseError("x[99999999999]").find("element index"),
            std::string::npos);
}

} // namespace
