//===- unittests/IntrinsicsTest.cpp - Tests of the intrinsic table --------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "IR/Intrinsics.h"
#include "IR/IR.h"

#include "gtest/gtest.h"

#include <set>
#include <string>

using namespace meshad;
using namespace meshad::ir;

namespace {

TEST(IntrinsicsTest, AtomicAdd) {
  const IntrinsicInfo *I = lookupIntrinsic("atomicAdd");
  ASSERT_NE(I, nullptr);
  EXPECT_FALSE(I->IsFamily);
  EXPECT_EQ(I->Arity, 2);
  EXPECT_TRUE(I->isAtomic());
  EXPECT_TRUE(I->accumulates());
  EXPECT_TRUE(I->returnsOld());
  EXPECT_FALSE(I->isPure());
  EXPECT_EQ(I->AddrArg, 0);
  EXPECT_EQ(I->ValueArg, 1);
  EXPECT_TRUE(I->readsArg(0));
  EXPECT_TRUE(I->writesArg(0));
  EXPECT_FALSE(I->writesArg(1));
  EXPECT_EQ(I->Deriv, IntrinsicDeriv::LinearAtomic);
  EXPECT_TRUE(I->onDevice());
  EXPECT_FALSE(I->onHost());
  // Template arguments are not part of the name.
  EXPECT_EQ(lookupIntrinsic("atomicAdd<double>"), I);
}

TEST(IntrinsicsTest, AtomicFamily) {
  const IntrinsicInfo *I = lookupIntrinsic("atomicAnd_block");
  ASSERT_NE(I, nullptr);
  EXPECT_TRUE(I->IsFamily);
  EXPECT_TRUE(I->isAtomic());
  EXPECT_FALSE(I->accumulates());
  EXPECT_EQ(I->Deriv, IntrinsicDeriv::NotDifferentiable);
  EXPECT_EQ(lookupIntrinsic("atomicExch")->Deriv,
            IntrinsicDeriv::NotDifferentiable);
}

TEST(IntrinsicsTest, Barriers) {
  const IntrinsicInfo *S = lookupIntrinsic("__syncthreads");
  ASSERT_NE(S, nullptr);
  EXPECT_TRUE(S->isBarrier());
  EXPECT_TRUE(S->isBlockBarrier());
  EXPECT_EQ(S->Deriv, IntrinsicDeriv::None);
  EXPECT_TRUE(lookupIntrinsic("__syncthreads_count")->isBlockBarrier());
  const IntrinsicInfo *W = lookupIntrinsic("__syncwarp");
  EXPECT_TRUE(W->isBarrier());
  EXPECT_FALSE(W->isBlockBarrier());
  EXPECT_TRUE(W->acceptsArgs(0));
  EXPECT_TRUE(W->acceptsArgs(1));
  // Runtime helpers that end with __syncthreads.
  EXPECT_TRUE(
      lookupIntrinsic("meshad::blockReduceAtomicAdd")->isBlockBarrier());
  EXPECT_TRUE(
      lookupIntrinsic("meshad::tileZero<double, 256>")->isBlockBarrier());
  EXPECT_FALSE(lookupIntrinsic("meshad::tileAdd<0, 1, 2>")->isBarrier());
  EXPECT_FALSE(lookupIntrinsic("__threadfence_block")->isBarrier());
}

TEST(IntrinsicsTest, EffectOnlyCallsCarryNoDerivative) {
  for (const char *Name :
       {"printf", "__syncthreads", "__syncwarp", "__threadfence",
        "__threadfence_block", "__threadfence_system", "__assert_fail",
        "__assertfail", "assert"}) {
    const IntrinsicInfo *I = lookupIntrinsic(Name);
    ASSERT_NE(I, nullptr) << Name;
    EXPECT_EQ(I->Deriv, IntrinsicDeriv::None) << Name;
  }
}

TEST(IntrinsicsTest, PurityMatchesTheFormerPrefixList) {
  // Not pure: what ReverseNeeds' prefix list named.
  for (const char *Name :
       {"atomicAdd", "atomicCAS", "cudaMemcpy", "cudaDeviceSynchronize",
        "__shfl_down_sync", "__ballot_sync", "__any_sync", "__all_sync",
        "__syncthreads", "__syncwarp", "__sync_fetch_and_add", "__activemask",
        "__match_any_sync", "__threadfence", "printf", "meshad::push",
        "meshad::gatherElement", "clock64"})
    EXPECT_FALSE(isPureIntrinsicName(Name)) << Name;
  // Pure: table entries so marked, and names the table does not know.
  for (const char *Name : {"__ldg", "__popc", "make_float3", "make_double2",
                           "meshad::tileFits", "some_opaque_function"})
    EXPECT_TRUE(isPureIntrinsicName(Name)) << Name;
  EXPECT_EQ(lookupIntrinsic("some_opaque_function"), nullptr);
}

TEST(IntrinsicsTest, VectorConstructorsAreLinear) {
  EXPECT_EQ(lookupIntrinsic("make_float3")->Deriv, IntrinsicDeriv::Linear);
  EXPECT_EQ(lookupIntrinsic("make_double4")->Deriv, IntrinsicDeriv::Linear);
}

TEST(IntrinsicsTest, Tapes) {
  const IntrinsicInfo *Push = lookupIntrinsic("meshad::push");
  const IntrinsicInfo *Pop = lookupIntrinsic("meshad::pop");
  ASSERT_TRUE(Push && Pop);
  EXPECT_EQ(Push->Deriv, IntrinsicDeriv::TapePush);
  EXPECT_EQ(Pop->Deriv, IntrinsicDeriv::TapePop);
  EXPECT_TRUE(Push->writesArg(0));
  EXPECT_EQ(Push->ValueArg, 1);
  EXPECT_TRUE(Pop->readsArg(0) && Pop->writesArg(0));
}

TEST(IntrinsicsTest, AdjointAddHelpers) {
  for (const char *Name : {"meshad::atomicAccumulate", "meshad::warpAtomicAdd",
                           "meshad::exclusiveAdd", "meshad::tileAdd"}) {
    const IntrinsicInfo *I = lookupIntrinsic(Name);
    ASSERT_NE(I, nullptr) << Name;
    EXPECT_TRUE(I->accumulates()) << Name;
    ASSERT_GE(I->Arity, 0) << Name;
    EXPECT_EQ(I->ValueArg, I->Arity - 1) << Name;
  }
  EXPECT_EQ(lookupIntrinsic("meshad::tileAdd")->AddrArg, 1);
}

TEST(IntrinsicsTest, HostRuntime) {
  const IntrinsicInfo *Memcpy = lookupIntrinsic("cudaMemcpy");
  ASSERT_NE(Memcpy, nullptr);
  EXPECT_TRUE(Memcpy->writesArg(0));
  EXPECT_TRUE(Memcpy->readsArg(1));
  EXPECT_FALSE(Memcpy->writesArg(1));
  EXPECT_TRUE(Memcpy->onHost());
  EXPECT_FALSE(Memcpy->onDevice());
  EXPECT_TRUE(lookupIntrinsic("cudaGetLastError")->IsFamily);
}

TEST(IntrinsicsTest, LongestFamilyWins) {
  EXPECT_STREQ(lookupIntrinsic("meshad::cuda::adjointMemcpy")->Name,
               "meshad::cuda::");
  EXPECT_STREQ(lookupIntrinsic("meshad::undoRecord")->Name, "meshad::undo");
  EXPECT_STREQ(lookupIntrinsic("meshad::something")->Name, "meshad");
}

TEST(IntrinsicsTest, CallQueries) {
  TypeContext T;
  std::vector<const Expr *> Two = {nullptr, nullptr};
  CallExpr Add(T.getDouble(), CallExpr::CalleeKind::Intrinsic, "atomicAdd", -1,
               Two);
  CallExpr Add1(T.getDouble(), CallExpr::CalleeKind::Intrinsic, "atomicAdd", -1,
                {nullptr});
  CallExpr Math(T.getDouble(), CallExpr::CalleeKind::Math, "atomicAdd", 0, Two);
  EXPECT_TRUE(isIntrinsicDeriv(&Add, IntrinsicDeriv::LinearAtomic));
  EXPECT_TRUE(isIntrinsicWith(&Add, IF_Atomic));
  EXPECT_FALSE(isIntrinsicDeriv(&Add1, IntrinsicDeriv::LinearAtomic));
  EXPECT_EQ(lookupIntrinsic(&Math), nullptr);
}

TEST(IntrinsicsTest, TableIsConsistent) {
  std::set<std::string> Names;
  for (const IntrinsicInfo &I : allIntrinsics()) {
    EXPECT_TRUE(
        Names.insert(std::string(I.Name) + (I.IsFamily ? "*" : "")).second)
        << I.Name;
    if (I.Arity >= 0) {
      EXPECT_LT(I.AddrArg, I.Arity) << I.Name;
      EXPECT_LT(I.ValueArg, I.Arity) << I.Name;
      EXPECT_EQ(I.WritesMask >> I.Arity, 0u) << I.Name;
      EXPECT_EQ(I.ReadsMask >> I.Arity, 0u) << I.Name;
    }
    if (I.accumulates() || I.isAtomic())
      EXPECT_GE(I.AddrArg, 0) << I.Name;
    if (I.isPure())
      EXPECT_EQ(I.WritesMask, 0u) << I.Name;
    EXPECT_NE(I.Availability, 0u) << I.Name;
  }
}

} // namespace
