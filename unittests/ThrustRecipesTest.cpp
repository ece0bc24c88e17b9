//===- unittests/ThrustRecipesTest.cpp - The Thrust recipe table ---------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
//
// Rules/ThrustRecipes.def is data: these tests check that every row is
// well formed (the adjoints themselves are checked numerically by the lit
// tests of test/thrust/).
//
//===----------------------------------------------------------------------===//

#include "Rules/ThrustRecipes.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <gtest/gtest.h>

using namespace meshad;

namespace {

std::vector<const ThrustRecipe *> allRows() {
  std::vector<const ThrustRecipe *> Rows;
  llvm::SmallVector<llvm::StringRef, 16> Names;
  std::string List = listThrustPrimitives();
  llvm::StringRef(List).split(Names, ", ");
  for (llvm::StringRef Name : Names)
    for (unsigned N = 1; N <= 8; ++N)
      for (bool User : {false, true})
        if (const ThrustRecipe *R = lookupThrustRecipe(Name, N, User))
          Rows.push_back(R);
  return Rows;
}

TEST(ThrustRecipesTest, RowsAreWellFormed) {
  std::vector<const ThrustRecipe *> Rows = allRows();
  EXPECT_GE(Rows.size(), 16u);
  for (const ThrustRecipe *R : Rows) {
    llvm::StringRef Args(R->Args);
    SCOPED_TRACE(std::string(R->Name) + " " + R->Args);
    EXPECT_EQ(R->role(0), ThrustArg::Policy);
    EXPECT_EQ(Args.count('e'), 1u);
    EXPECT_LE(Args.count('S'), 1u); // The helper returns one adjoint.
    EXPECT_EQ(Args.count('K'), R->hasForwardHelper() ? 1u : 0u);
    EXPECT_EQ(Args.find_first_not_of("eFXLOKMSfxCuN"), llvm::StringRef::npos);
    // A user functor's helper reads the saved inputs (its pullback does),
    // or the indices of counting iterators (the snapshots of what it
    // captures).
    EXPECT_LE(Args.count('u'), 1u);
    EXPECT_TRUE(!Args.contains('u') || Args.contains('X') ||
                Args.contains('N'));
    // Counting iterators go with a user functor that takes the index.
    EXPECT_TRUE(!Args.contains('N') || Args.contains('u'));
    // A constant scalar goes with a maximum or minimum, after a saved input.
    EXPECT_EQ(Args.count('C'), Args.count('x'));
    EXPECT_TRUE(!Args.contains('x') || Args.contains('X'));
    // An end follows the start of its range.
    for (unsigned I = 0; I < R->numArgs(); ++I) {
      if (R->role(I) == ThrustArg::Last) {
        EXPECT_NE(llvm::StringRef("FXOKMN").find(Args[I - 1]),
                  llvm::StringRef::npos);
      }
    }
    EXPECT_NE(Args.find('L'), llvm::StringRef::npos);
    // Reductions return a value and write no range (for_each writes
    // through what its functor captures).
    EXPECT_EQ(R->returnsValue(),
              Args.find_first_of("OKN") == llvm::StringRef::npos);
    EXPECT_TRUE(llvm::StringRef(R->Adjoint).starts_with("meshad::thrust_ad::"));
    llvm::StringRef Tangent(R->Tangent);
    EXPECT_TRUE(Tangent == "same" || Tangent == "fill" ||
                Tangent == "replace" || Tangent == "record" || Tangent.empty());
    // The functor's pushforward replaces a for_each (it writes the values).
    EXPECT_EQ(R->tangentReplaces(), R->iteratesIndices());
    // A primitive whose adjoint needs a recording helper makes it in forward
    // mode too, and permutes the tangents with what it recorded.
    EXPECT_EQ(R->hasForwardHelper(), R->tangentRecords());
    EXPECT_TRUE(!R->tangentRecords() || R->hasTangentHelper());
    llvm::StringRef Helper(R->TangentHelper);
    EXPECT_TRUE(Helper.empty() || Helper.starts_with("meshad::thrust_ad::"));
    // The rows with a user functor or an extremum need the helper.
    if (Args.contains('u') || Args.contains('x'))
      EXPECT_FALSE(Helper.empty());
    // HVPs: the adjoint is linear ("same"), a tangent helper, or none; a
    // user functor's is a helper (its pullback's pushforward passed).
    llvm::StringRef AdjointTangent(R->AdjointTangent);
    EXPECT_TRUE(AdjointTangent == "same" || AdjointTangent.empty() ||
                AdjointTangent.starts_with("meshad::thrust_ad::"));
    EXPECT_EQ(R->adjointIsLinear(), AdjointTangent == "same");
    EXPECT_TRUE(!R->takesUserFunctor() ||
                (R->hasAdjointTangent() && !R->adjointIsLinear()));
    // A nonlinear functor's adjoint reads the inputs it saved (for_each:
    // the captured buffers, snapshotted).
    EXPECT_TRUE(!R->hasAdjointTangent() || R->adjointIsLinear() ||
                Args.contains('X') || R->iteratesIndices());
    // Forward mode over the gradient finds the row again from its
    // adjoint's call.
    std::string Layout = thrustAdjointLayout(*R);
    const ThrustRecipe *Back = lookupThrustAdjoint(R->Adjoint, Layout.size());
    ASSERT_NE(Back, nullptr);
    EXPECT_EQ(thrustAdjointLayout(*Back), Layout);
    EXPECT_EQ(llvm::StringRef(Back->AdjointTangent), AdjointTangent);
  }
}

TEST(ThrustRecipesTest, AdjointLayout) {
  // reduce(first, last, init): (n, seed, _d_first).
  EXPECT_EQ(thrustAdjointLayout(*lookupThrustRecipe("reduce", 4)), "nsI");
  // transform_reduce(first, last, op, init, plus): the saved input last.
  EXPECT_EQ(thrustAdjointLayout(*lookupThrustRecipe("transform_reduce", 6)),
            "nsIffX");
  // Binary transform: both inputs' adjoints, the output's, then the saves.
  EXPECT_EQ(thrustAdjointLayout(*lookupThrustRecipe("transform", 6)),
            "nIIRfXX");
  const ThrustRecipe *Sort = lookupThrustRecipe("sort_by_key", 4);
  EXPECT_EQ(thrustAdjointLayout(*Sort), "nRRP");
  EXPECT_EQ(lookupThrustRecording("meshad::thrust_ad::sortByKeyRecording", 4),
            Sort);
  EXPECT_EQ(lookupThrustRecording("meshad::thrust_ad::gatherAdjoint", 4),
            nullptr);
  EXPECT_EQ(thrustAdjointLayout(*lookupThrustRecipe("gather", 5)), "nMIR");
  // The unary and the binary transform share their adjoint's name.
  EXPECT_EQ(lookupThrustAdjoint("meshad::thrust_ad::transformAdjoint", 5),
            lookupThrustRecipe("transform", 5));
  EXPECT_EQ(lookupThrustAdjoint("meshad::thrust_ad::transformAdjoint", 7),
            lookupThrustRecipe("transform", 6));
  EXPECT_EQ(lookupThrustAdjoint("meshad::thrust_ad::save", 3), nullptr);
}

TEST(ThrustRecipesTest, Lookup) {
  EXPECT_NE(lookupThrustRecipe("reduce", 4), nullptr);
  // reduce with maximum or minimum (a constant init).
  const ThrustRecipe *Extremum = lookupThrustRecipe("reduce", 5);
  ASSERT_NE(Extremum, nullptr);
  EXPECT_EQ(Extremum->role(3), ThrustArg::Constant);
  EXPECT_EQ(Extremum->role(4), ThrustArg::Extremum);
  EXPECT_EQ(lookupThrustRecipe("reduce", 6), nullptr);
  EXPECT_EQ(lookupThrustCall("thrust::exclusive_scan", 5),
            lookupThrustRecipe("exclusive_scan", 5));
  EXPECT_EQ(lookupThrustCall("std::reduce", 4), nullptr);
  EXPECT_TRUE(isKnownThrustFunctor("square"));
  EXPECT_FALSE(isKnownThrustFunctor("maximum"));
  EXPECT_TRUE(isLinearThrustFunctor("minus"));
  EXPECT_FALSE(isLinearThrustFunctor("multiplies"));
  for (llvm::StringRef F : {"plus", "minus", "negate"})
    EXPECT_TRUE(isKnownThrustFunctor(F));
  // for_each over counting iterators with a lambda of the index.
  const ThrustRecipe *ForEach = lookupThrustCall("thrust::for_each", 4, true);
  ASSERT_NE(ForEach, nullptr);
  EXPECT_EQ(ForEach->role(1), ThrustArg::Counting);
  EXPECT_TRUE(ForEach->iteratesIndices());
  EXPECT_TRUE(ForEach->tangentReplaces());
  EXPECT_TRUE(ForEach->hasTangentHelper());
  EXPECT_EQ(lookupThrustCall("thrust::for_each", 4), nullptr);
  // User functors: transform, the unary transform_reduce and for_each.
  const ThrustRecipe *UserMap = lookupThrustCall("thrust::transform", 5, true);
  ASSERT_NE(UserMap, nullptr);
  EXPECT_EQ(UserMap->role(4), ThrustArg::UserFunctor);
  EXPECT_TRUE(UserMap->takesUserFunctor());
  EXPECT_FALSE(lookupThrustRecipe("transform", 5)->takesUserFunctor());
  EXPECT_NE(lookupThrustRecipe("transform_reduce", 6, true), nullptr);
  EXPECT_NE(lookupThrustRecipe("transform", 6, true), nullptr); // binary
  EXPECT_EQ(lookupThrustRecipe("transform_reduce", 7, true), nullptr);
  EXPECT_EQ(lookupThrustRecipe("reduce", 4, true), nullptr);
}

} // namespace
