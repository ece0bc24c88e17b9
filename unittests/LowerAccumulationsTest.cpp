//===- unittests/LowerAccumulationsTest.cpp - Accumulation lowering -------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The lowering of Accumulates into a kernel's scalar results: summed per
/// thread and reduced per block when every thread reaches the end of the
/// kernel, atomics with a remark otherwise; into a stencil's array: a
/// shared-memory tile under the same condition; adds to one element
/// combined; and the lowering of reverse mode's Accumulates as the facts it
/// hands over decide (the per-block sums of scalar parameters' adjoints,
/// tiles, uniform registers, where seed resets go). The kernels come from CUDA snippets whose `+=` into
/// pointer parameters become Accumulates.
///
//===----------------------------------------------------------------------===//

#include "GPU/AccumulationPolicy.h"
#include "GPU/KernelAdjoints.h"
#include "GPU/LowerAccumulations.h"
#include "GPU/ScalarSums.h"
#include "GPU/SeedResets.h"
#include "IR/Builder.h"
#include "IR/Clone.h"
#include "IR/Markers.h"
#include "IR/Verifier.h"
#include "IR/Traversal.h"
#include "OwnershipFixture.h"

namespace {

class LowerAccumulationsTest : public OwnershipTest {
protected:
  /// Lowers kernel k of \p Code with its `+=` into parameters as
  /// Accumulates; false on errors.
  bool lower(llvm::StringRef Code) {
    if (!toAccumulates(Code))
      return false;
    lowerAccumulations(M, *Kernel, *Diags, /*ForceAtomics=*/false, {});
    return !hasAccumulations(*Kernel);
  }

  /// Lowers kernel k of \p Code with its `+=` into parameters as
  /// Accumulates; false on errors.
  bool toAccumulates(llvm::StringRef Code) {
    if (!analyse(Code))
      return false;
    Diags->setRemarksEnabled(true);
    Blocks.push_back(Kernel->getBody());
    forEachStmt(Kernel->getBody(), [&](const Stmt *S) {
      if (const auto *B = llvm::dyn_cast<BlockStmt>(S);
          B && B != Kernel->getBody())
        Blocks.push_back(const_cast<BlockStmt *>(B));
    });
    for (BlockStmt *B : Blocks) {
      std::vector<const Stmt *> Body;
      for (const Stmt *S : B->getBody())
        Body.push_back(toAccumulate(S));
      B->setBody(std::move(Body));
    }
    return true;
  }

  const Stmt *toAccumulate(const Stmt *S) {
    const auto *A = llvm::dyn_cast<AssignStmt>(S);
    if (!A || A->getOp() != AssignOp::AddAssign ||
        llvm::isa<VarRefExpr>(A->getLHS()))
      return S;
    auto *Acc =
        M.create<AssignStmt>(A->getLHS(), AssignOp::Accumulate, A->getRHS());
    Acc->setLoc(A->getLoc());
    return Acc;
  }

  /// The name of the call of the top-level statement \p S, or "".
  static std::string callName(const Stmt *S) {
    const auto *E = llvm::dyn_cast<ExprStmt>(S);
    const auto *C = E ? llvm::dyn_cast<CallExpr>(E->getExpr()) : nullptr;
    return C ? C->getName() : "";
  }

  /// How many calls of \p Prefix... the kernel's statements make.
  unsigned countCalls(llvm::StringRef Prefix) const {
    unsigned N = 0;
    forEachStmt(Kernel->getBody(), [&](const Stmt *S) {
      N += llvm::StringRef(callName(S)).starts_with(Prefix);
    });
    return N;
  }

  /// How many `+=` the kernel's statements make.
  unsigned countPlainAdds() const {
    unsigned N = 0;
    forEachStmt(Kernel->getBody(), [&](const Stmt *S) {
      const auto *A = llvm::dyn_cast<AssignStmt>(S);
      N += A && A->getOp() == AssignOp::AddAssign;
    });
    return N;
  }

  /// The remarks, one per line.
  std::string remarks() const {
    std::string All;
    for (const Diagnostic &D : Diags->getDiagnostics())
      All += D.Message + "\n";
    return All;
  }

  std::vector<BlockStmt *> Blocks;
};

TEST_F(LowerAccumulationsTest, ScalarResultReducedPerBlock) {
  ASSERT_TRUE(lower("__global__ void k(const double *x, double *dk, "
                    "double *dm, int n) {\n"
                    "  for (int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                    "       i < n; i += blockDim.x * gridDim.x) {\n"
                    "    *dk += x[i];\n"
                    "    dm[0] += 2 * x[i];\n"
                    "  }\n"
                    "}\n"));
  const std::vector<const Stmt *> &Body = Kernel->getBody()->getBody();
  ASSERT_GE(Body.size(), 4u);
  EXPECT_EQ(callName(Body[Body.size() - 2]), "meshad::blockReduceAtomicAdd");
  EXPECT_EQ(callName(Body.back()), "meshad::blockReduceAtomicAdd");
  EXPECT_TRUE(llvm::isa<DeclStmt>(Body[0]));
  EXPECT_NE(remarks().find("adjoint store to 'dk': plain += (uniform: every "
                           "thread adds to it; summed in a register"),
            std::string::npos)
      << remarks();
  EXPECT_NE(remarks().find("adjoint store to 'dm': plain += (uniform"),
            std::string::npos)
      << remarks();
}

TEST_F(LowerAccumulationsTest, ReturnKeepsAtomics) {
  ASSERT_TRUE(lower("__global__ void k(const double *x, double *dk, int n) {\n"
                    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                    "  if (i >= n)\n"
                    "    return;\n"
                    "  *dk += x[i];\n"
                    "}\n"));
  for (const Stmt *S : Kernel->getBody()->getBody())
    EXPECT_NE(callName(S), "meshad::blockReduceAtomicAdd");
  EXPECT_NE(remarks().find("not summed per block: the function has a return "
                           "statement"),
            std::string::npos)
      << remarks();
}

TEST_F(LowerAccumulationsTest, ReadResultIsNotAScalarResult) {
  ASSERT_TRUE(lower("__global__ void k(const double *x, double *dk, int n) {\n"
                    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                    "  *dk += x[i % n] * *dk;\n"
                    "}\n"));
  for (const Stmt *S : Kernel->getBody()->getBody())
    EXPECT_NE(callName(S), "meshad::blockReduceAtomicAdd");
}

TEST_F(LowerAccumulationsTest, StraightLineStencilGathered) {
  ASSERT_TRUE(lower("__global__ void k(const double *x, double *dx, int n) {\n"
                    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                    "  if (i > 0 && i < n - 1) {\n"
                    "    dx[i - 1] += x[i];\n"
                    "    dx[i + 1] += x[i] * x[i];\n"
                    "  }\n"
                    "}\n"));
  const std::vector<const Stmt *> &Body = Kernel->getBody()->getBody();
  ASSERT_EQ(Body.size(), 3u);
  EXPECT_EQ(callName(Body[0]), "meshad::requireLaunch1D");
  EXPECT_TRUE(llvm::isa<DeclStmt>(Body[1])); // _threads
  EXPECT_TRUE(llvm::isa<ForStmt>(Body[2]));  // One iteration per element.
  EXPECT_EQ(countCalls("meshad::tile"), 0u);
  EXPECT_EQ(countCalls("atomicAdd"), 0u);
  EXPECT_NE(remarks().find("adjoint store to 'dx': gathered (tile-exclusive: "),
            std::string::npos)
      << remarks();
}

TEST_F(LowerAccumulationsTest, StencilWithALoopSummedInATile) {
  ASSERT_TRUE(lower("__global__ void k(const double *x, double *dx, int n) {\n"
                    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                    "  if (i > 0 && i < n - 1) {\n"
                    "    for (int r = 0; r < 2; ++r) {\n"
                    "      dx[i - 1] += x[i];\n"
                    "      dx[i] += 2 * x[i];\n"
                    "      dx[i + 1] += x[i];\n"
                    "      dx[i] += x[i] * x[i];\n"
                    "    }\n"
                    "  }\n"
                    "}\n"));
  const std::vector<const Stmt *> &Body = Kernel->getBody()->getBody();
  ASSERT_GE(Body.size(), 4u);
  EXPECT_EQ(callName(Body[0]), "meshad::requireLaunch1D");
  const auto *Tile = llvm::dyn_cast<DeclStmt>(Body[1]);
  ASSERT_TRUE(Tile);
  EXPECT_TRUE(Tile->getVar()->isShared());
  EXPECT_EQ(callName(Body[2]), "meshad::tileZero<1, -1, 1>");
  EXPECT_EQ(callName(Body.back()), "meshad::tileWriteBack<1, -1, 1>");
  // The two adds to dx[i] are combined: one tileAdd per offset.
  EXPECT_EQ(countCalls("meshad::tileAdd<1, -1, 1>"), 3u);
  EXPECT_EQ(countCalls("atomicAdd"), 0u);
  EXPECT_NE(remarks().find("adjoint store to 'dx': shared-memory tile "
                           "(tile-exclusive: "),
            std::string::npos)
      << remarks();
  EXPECT_NE(remarks().find("not gathered: the thread's work has a loop"),
            std::string::npos)
      << remarks();
}

TEST_F(LowerAccumulationsTest, TileNeedsEveryThreadAtTheEnd) {
  ASSERT_TRUE(lower("__global__ void k(const double *x, double *dx, int n) {\n"
                    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                    "  if (i <= 0 || i >= n - 1)\n"
                    "    return;\n"
                    "  dx[i - 1] += x[i];\n"
                    "  dx[i + 1] += x[i];\n"
                    "}\n"));
  EXPECT_EQ(countCalls("meshad::tile"), 0u);
  EXPECT_EQ(countCalls("atomicAdd"), 2u);
  EXPECT_NE(remarks().find("atomicAdd (shared: "), std::string::npos)
      << remarks();
  EXPECT_NE(remarks().find("not tiled: the function has a return statement"),
            std::string::npos)
      << remarks();
}

TEST_F(LowerAccumulationsTest, ReadTargetIsNotTiled) {
  ASSERT_TRUE(lower("__global__ void k(const double *x, double *dx, int n) {\n"
                    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                    "  if (i > 0 && i < n - 1) {\n"
                    "    dx[i - 1] += x[i] * dx[i];\n"
                    "    dx[i + 1] += x[i];\n"
                    "  }\n"
                    "}\n"));
  EXPECT_EQ(countCalls("meshad::tile"), 0u);
  EXPECT_NE(remarks().find("not tiled: the function also reads dx or passes "
                           "it on"),
            std::string::npos)
      << remarks();
}

/// Reverse mode's facts for kernel k(x, dx, dp, n): dx shared (atomics),
/// dp private to the thread.
static AccumulationFacts reverseFacts(const Function &K) {
  AccumulationFacts Facts;
  Facts.Target = K.getTarget();
  OwnershipResult Shared;
  Shared.Class = OwnershipClass::Shared;
  Shared.Reason = "as reverse mode found";
  Facts.Ownership.push_back({K.getParam(1), Shared, "x"});
  Facts.ThreadPrivate.push_back(K.getParam(2));
  Facts.PrimalNames[K.getParam(2)] = "p";
  return Facts;
}

static const char *Scatter =
    "__global__ void k(const double *x, double *dx, double *dp, int n) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  dx[i % n] += x[i];\n"
    "  dx[i % n] += 2 * x[i];\n"
    "  dp[0] += x[i];\n"
    "}\n";

TEST_F(LowerAccumulationsTest, ReverseFactsDecideTheForms) {
  ASSERT_TRUE(toAccumulates(Scatter));
  AccumulationFacts Facts = reverseFacts(*Kernel);
  AccumulationPolicy Policy(Kernel->getTarget(), *Diags);
  Facts.configure(Policy);
  lowerReverseAccumulations(M, *Kernel, Policy, Facts);
  EXPECT_FALSE(hasAccumulations(*Kernel));
  // The facts decide, not an analysis of the function: the two adds to
  // dx[i % n] are one atomicAdd; dp[0] is private, a plain +=.
  EXPECT_EQ(countCalls("atomicAdd"), 1u);
  EXPECT_EQ(countPlainAdds(), 1u);
  EXPECT_EQ(countCalls("meshad::requireLaunch"), 0u);
  EXPECT_NE(remarks().find("adjoint store to 'x': atomicAdd (shared: as "
                           "reverse mode found)"),
            std::string::npos)
      << remarks();
  EXPECT_NE(remarks().find("adjoint store to 'p': plain += (its memory is "
                           "private to the thread)"),
            std::string::npos)
      << remarks();
}

/// Puts the region marker \p R before the body's statement \p At.
static void insertMarker(Module &M, Function &F, MarkerStmt::Region R,
                         size_t At) {
  std::vector<const Stmt *> Body = F.getBody()->getBody();
  Body.insert(Body.begin() + At, M.create<MarkerStmt>(R));
  F.getBody()->setBody(std::move(Body));
}

TEST_F(LowerAccumulationsTest, ReverseAddsOutsideTheSweepAreNotCombined) {
  ASSERT_TRUE(toAccumulates(Scatter));
  AccumulationFacts Facts = reverseFacts(*Kernel);
  // The second add to dx[i % n] is the epilogue's.
  insertMarker(M, *Kernel, MarkerStmt::Region::EpilogueBegin, 2);
  AccumulationPolicy Policy(Kernel->getTarget(), *Diags);
  Facts.configure(Policy);
  lowerReverseAccumulations(M, *Kernel, Policy, Facts);
  EXPECT_EQ(countCalls("atomicAdd"), 2u);
  EXPECT_FALSE(hasMarkers(*Kernel));
}

TEST_F(LowerAccumulationsTest, ReverseLaunchCheckAfterTheSetup) {
  ASSERT_TRUE(toAccumulates(Scatter));
  AccumulationFacts Facts = reverseFacts(*Kernel);
  // As if reverse mode had proven dx thread-exclusive for 1D launches.
  Facts.Ownership[0].Result.Class = OwnershipClass::ThreadExclusive;
  Facts.Ownership[0].Result.LaunchDims = 1;
  const Stmt *Setup = Kernel->getBody()->getBody()[0];
  insertMarker(M, *Kernel, MarkerStmt::Region::SetupEnd, 1);
  AccumulationPolicy Policy(Kernel->getTarget(), *Diags);
  Facts.configure(Policy);
  lowerReverseAccumulations(M, *Kernel, Policy, Facts);
  const std::vector<const Stmt *> &Body = Kernel->getBody()->getBody();
  ASSERT_GE(Body.size(), 2u);
  EXPECT_EQ(Body[0], Setup);
  EXPECT_EQ(callName(Body[1]), "meshad::requireLaunch1D");
  EXPECT_EQ(countCalls("atomicAdd"), 0u);
  EXPECT_FALSE(hasMarkers(*Kernel));
}

/// A kernel that adds to the adjoints of its stencil input x (tile-exclusive)
/// and of c[0] (uniform), as if reverse mode had built it from itself.
static const char *StencilAndUniform =
    "__global__ void k(const double *x, const double *c, double *dx,\n"
    "                  double *dc, int n) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  double v = x[i - 1] + x[i + 1] + c[0];\n"
    "  dx[i - 1] += v;\n"
    "  dx[i + 1] += v;\n"
    "  dc[0] += v;\n"
    "}\n";

TEST_F(LowerAccumulationsTest, LoweringDecidesTilesAndRegistersAtTheMarkers) {
  ASSERT_TRUE(toAccumulates(StencilAndUniform));
  using Region = MarkerStmt::Region;
  // [i, SetupEnd, ForwardBegin, v, ReverseBegin, adds, EpilogueBegin,
  //  EpilogueEnd]
  insertMarker(M, *Kernel, Region::SetupEnd, 1);
  insertMarker(M, *Kernel, Region::ForwardBegin, 2);
  insertMarker(M, *Kernel, Region::ReverseBegin, 4);
  insertMarker(M, *Kernel, Region::EpilogueBegin, 8);
  insertMarker(M, *Kernel, Region::EpilogueEnd, 9);
  AccumulationFacts Facts;
  Facts.Target = Kernel->getTarget();
  Facts.Primal = Kernel;
  Facts.Gradient = true;
  Facts.KernelArrays = {{Kernel->getParam(2), Kernel->getParam(0)},
                        {Kernel->getParam(3), Kernel->getParam(1)}};
  Facts.FreshName = [](const std::string &Prefix) { return Prefix; };
  planKernelAdjoints(M, *Kernel, Facts);
  ASSERT_EQ(Facts.Ownership.size(), 2u);
  EXPECT_EQ(Facts.Ownership[0].Result.Class, OwnershipClass::TileExclusive);
  EXPECT_EQ(Facts.Ownership[1].Result.Class, OwnershipClass::Uniform);
  ASSERT_EQ(Facts.Tiles.size(), 1u);
  EXPECT_EQ(Facts.Tiles[0].Tile->getName(), "dx_tile");
  ASSERT_EQ(Facts.UniformElements.size(), 1u);
  EXPECT_EQ(Facts.UniformElements[0].Part->getName(), "dc_0_part");
  // The register, then the tile, where the setup ends; the tile zeroed
  // before the forward sweep; the reduction, then the write-back, last in
  // the epilogue.
  const std::vector<const Stmt *> &Body = Kernel->getBody()->getBody();
  size_t Setup = findMarker(*Kernel->getBody(), Region::SetupEnd);
  size_t Fwd = findMarker(*Kernel->getBody(), Region::ForwardBegin);
  size_t End = findMarker(*Kernel->getBody(), Region::EpilogueEnd);
  ASSERT_EQ(Setup, 3u);
  EXPECT_EQ(llvm::cast<DeclStmt>(Body[1])->getVar()->getName(), "dc_0_part");
  EXPECT_EQ(llvm::cast<DeclStmt>(Body[2])->getVar()->getName(), "dx_tile");
  EXPECT_EQ(Fwd, 5u);
  EXPECT_EQ(callName(Body[4]).rfind("meshad::tileZero", 0), 0u);
  EXPECT_EQ(callName(Body[End - 2]), "meshad::blockReduceAtomicAdd");
  EXPECT_EQ(callName(Body[End - 1]).rfind("meshad::tileWriteBack", 0), 0u);
  AccumulationPolicy Policy(Kernel->getTarget(), *Diags);
  Facts.configure(Policy);
  lowerReverseAccumulations(M, *Kernel, Policy, Facts);
  EXPECT_EQ(countCalls("meshad::tileAdd"), 2u);
  EXPECT_EQ(countCalls("atomicAdd"), 0u);
  EXPECT_EQ(countPlainAdds(), 1u); // dc_0_part += v
  EXPECT_EQ(countCalls("meshad::requireLaunch1D"), 1u);
  std::string Errors;
  EXPECT_TRUE(verifyFunction(*Kernel, VerifyStage::Lowered, Errors)) << Errors;
}

/// Kernel k of \p Code (dy its first parameter, i its first local) as
/// reverse mode leaves it: [i, SetupEnd, a temporary t, the marked reset
/// `dy[i] = 0;`, EpilogueBegin, (a block reduction when \p Barrier),
/// EpilogueEnd]; dy's reset is the seed's last use in \p Facts, those of
/// a gradient.
static const AssignStmt *markReset(Module &M, Function &K, bool Barrier,
                                   AccumulationFacts &Facts) {
  IRBuilder B(M);
  Var *DY = K.getParam(0);
  Var *I = llvm::cast<DeclStmt>(K.getBody()->getBody()[0])->getVar();
  const Type *Ty = M.getTypes().getDouble();
  Var *T = M.createVar("t", Ty);
  AssignStmt *Reset =
      B.assign(B.index(B.ref(DY), B.ref(I)), AssignOp::Assign, B.zero(Ty));
  Reset->setSeedReset();
  std::vector<const Stmt *> Body = K.getBody()->getBody();
  Body.push_back(M.create<MarkerStmt>(MarkerStmt::Region::SetupEnd));
  Body.push_back(B.decl(T, B.zero(Ty)));
  Body.push_back(Reset);
  Body.push_back(M.create<MarkerStmt>(MarkerStmt::Region::EpilogueBegin));
  if (Barrier)
    Body.push_back(M.create<ExprStmt>(M.create<CallExpr>(
        M.getTypes().getVoid(), CallExpr::CalleeKind::Intrinsic,
        "meshad::blockReduceAtomicAdd", -1,
        std::vector<const Expr *>{B.ref(DY), B.ref(T)})));
  Body.push_back(M.create<MarkerStmt>(MarkerStmt::Region::EpilogueEnd));
  K.getBody()->setBody(std::move(Body));
  Facts.Target = K.getTarget();
  Facts.Primal = &K;
  Facts.Gradient = true;
  Facts.NumberedName = [](const std::string &Prefix) { return Prefix + "0"; };
  Facts.LastSeedUses.insert(DY);
  return Reset;
}

static const char *Output =
    "__global__ void k(double *dy, int n) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "}\n";

TEST_F(LowerAccumulationsTest, SeedResetsStayInPlaceWithoutABarrier) {
  ASSERT_TRUE(toAccumulates(Output));
  AccumulationFacts Facts;
  const AssignStmt *Reset = markReset(M, *Kernel, /*Barrier=*/false, Facts);
  std::vector<const Stmt *> Before = Kernel->getBody()->getBody();
  placeSeedResets(M, *Kernel, Facts);
  EXPECT_EQ(Kernel->getBody()->getBody(), Before);
  EXPECT_TRUE(Reset->isSeedReset());
  std::string Errors;
  EXPECT_TRUE(verifyFunction(*Kernel, VerifyStage::Transformed, Errors))
      << Errors;
}

TEST_F(LowerAccumulationsTest, SeedResetsWaitPastAnEpilogueBarrier) {
  ASSERT_TRUE(toAccumulates(Output));
  AccumulationFacts Facts;
  const AssignStmt *Reset = markReset(M, *Kernel, /*Barrier=*/true, Facts);
  placeSeedResets(M, *Kernel, Facts);
  // [i, SetupEnd, t, _z0, _z0 = &dy[i], EpilogueBegin, reduction,
  //  EpilogueEnd, if (_z0) { *_z0 = 0; }]
  const std::vector<const Stmt *> &Body = Kernel->getBody()->getBody();
  ASSERT_EQ(Body.size(), 9u);
  const auto *Decl = llvm::dyn_cast<DeclStmt>(Body[3]);
  ASSERT_NE(Decl, nullptr);
  const Var *Z = Decl->getVar();
  EXPECT_EQ(Z->getName(), "_z0");
  EXPECT_TRUE(Z->getType()->isPointer());
  const auto *Record = llvm::dyn_cast<AssignStmt>(Body[4]);
  ASSERT_NE(Record, nullptr);
  const auto *To = llvm::dyn_cast<VarRefExpr>(Record->getLHS());
  ASSERT_NE(To, nullptr);
  EXPECT_EQ(To->getVar(), Z);
  const auto *Addr = llvm::dyn_cast<UnaryExpr>(Record->getRHS());
  ASSERT_NE(Addr, nullptr);
  EXPECT_EQ(Addr->getOp(), UnaryOp::AddrOf);
  EXPECT_EQ(Addr->getSub(), Reset->getLHS());
  const auto *If = llvm::dyn_cast<IfStmt>(Body[8]);
  ASSERT_NE(If, nullptr);
  const auto *Cond = llvm::dyn_cast<VarRefExpr>(If->getCond());
  ASSERT_NE(Cond, nullptr);
  EXPECT_EQ(Cond->getVar(), Z);
  EXPECT_EQ(findMarker(*Kernel->getBody(), MarkerStmt::Region::EpilogueEnd),
            7u);
  std::string Errors;
  EXPECT_TRUE(verifyFunction(*Kernel, VerifyStage::Transformed, Errors))
      << Errors;
}

TEST_F(LowerAccumulationsTest, SeedResetsWaitAfterTheBodyIsCloned) {
  // The lowering's steps before (GPU/ScalarSums) may copy the body: the
  // facts name the adjoint, not the statement.
  ASSERT_TRUE(toAccumulates(Output));
  AccumulationFacts Facts;
  markReset(M, *Kernel, /*Barrier=*/true, Facts);
  IRCloner C(M);
  Kernel->setBody(C.cloneBlock(Kernel->getBody()));
  placeSeedResets(M, *Kernel, Facts);
  EXPECT_TRUE(llvm::isa<IfStmt>(Kernel->getBody()->getBody().back()));
  EXPECT_EQ(llvm::cast<DeclStmt>(Kernel->getBody()->getBody()[3])
                ->getVar()
                ->getName(),
            "_z0");
}

TEST_F(LowerAccumulationsTest, SeedResetsInPlaceUnderAtomicsAllOrNotLastUse) {
  ASSERT_TRUE(toAccumulates(Output));
  AccumulationFacts Facts;
  markReset(M, *Kernel, /*Barrier=*/true, Facts);
  std::vector<const Stmt *> Before = Kernel->getBody()->getBody();
  Facts.ForceAtomics = true;
  placeSeedResets(M, *Kernel, Facts);
  EXPECT_EQ(Kernel->getBody()->getBody(), Before);
  // A marked reset that reverse mode did not find to be the last use.
  Facts.ForceAtomics = false;
  Facts.LastSeedUses.clear();
  placeSeedResets(M, *Kernel, Facts);
  EXPECT_EQ(Kernel->getBody()->getBody(), Before);
}

/// A gradient kernel as reverse mode writes it for scalar parameters k and
/// m (adjoints dk, dm): the sweep adds to *dk; m is overwritten, so its
/// adjoint is the local copy dm_local, added to *dm in the epilogue.
static const char *Scalars =
    "__global__ void k(const double *x, double *dk, double *dm, int n) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  double dm_local = 0;\n"
    "  double t = x[i];\n"
    "  *dk += t;\n"
    "  dm_local = 0;\n"
    "  dm_local += 2 * t;\n"
    "  *dm += dm_local;\n"
    "}\n";

class ScalarSumsTest : public LowerAccumulationsTest {
protected:
  /// Scalars with its markers and the facts reverse mode hands over.
  void build() {
    ASSERT_TRUE(toAccumulates(Scalars));
    using Region = MarkerStmt::Region;
    // [i, dm_local, SetupEnd, ForwardBegin, t, ReverseBegin, *dk += t,
    //  dm_local = 0, dm_local += 2 * t, EpilogueBegin, *dm += dm_local,
    //  EpilogueEnd]
    insertMarker(M, *Kernel, Region::SetupEnd, 2);
    insertMarker(M, *Kernel, Region::ForwardBegin, 3);
    insertMarker(M, *Kernel, Region::ReverseBegin, 5);
    insertMarker(M, *Kernel, Region::EpilogueBegin, 9);
    insertMarker(M, *Kernel, Region::EpilogueEnd, 11);
    std::string Errors;
    // Reverse mode's output is valid IR before the lowering.
    ASSERT_TRUE(verifyFunction(*Kernel, VerifyStage::Transformed, Errors))
        << Errors;
    Facts.Target = Kernel->getTarget();
    Facts.Primal = Kernel;
    Facts.Gradient = true;
    const Type *Double = M.getTypes().getDouble();
    Facts.KernelScalars = {
        {Kernel->getParam(1), M.createVar("k", Double, Var::Storage::Param)},
        {Kernel->getParam(2), M.createVar("m", Double, Var::Storage::Param)}};
    Facts.FreshName = [](const std::string &Prefix) { return Prefix; };
  }

  /// The name of the variable top-level statement \p I declares, or "".
  std::string declared(size_t I) const {
    const auto *D =
        llvm::dyn_cast<DeclStmt>(Kernel->getBody()->getBody()[I]);
    return D ? D->getVar()->getName() : "";
  }

  AccumulationFacts Facts;
};

TEST_F(ScalarSumsTest, ScalarAdjointsSummedPerBlock) {
  build();
  sumScalarsPerBlock(M, *Kernel, Facts);
  ASSERT_EQ(Facts.BlockSums.size(), 2u);
  EXPECT_EQ(Facts.BlockSums[0].first->getName(), "dk_part");
  EXPECT_EQ(Facts.BlockSums[0].second, "k");
  // The local copy is m's register.
  EXPECT_EQ(Facts.BlockSums[1].first->getName(), "dm_part");
  EXPECT_EQ(Facts.BlockSums[1].second, "m");
  // [i, dk_part, dm_part, SetupEnd, ...]: the registers in parameter order
  // where the setup ends; reduced first in the epilogue, which no longer
  // adds the local copy.
  using Region = MarkerStmt::Region;
  const std::vector<const Stmt *> &Body = Kernel->getBody()->getBody();
  EXPECT_EQ(findMarker(*Kernel->getBody(), Region::SetupEnd), 3u);
  EXPECT_EQ(declared(1), "dk_part");
  EXPECT_EQ(declared(2), "dm_part");
  size_t Begin = findMarker(*Kernel->getBody(), Region::EpilogueBegin);
  size_t End = findMarker(*Kernel->getBody(), Region::EpilogueEnd);
  ASSERT_EQ(End, Begin + 3);
  EXPECT_EQ(callName(Body[Begin + 1]), "meshad::blockReduceAtomicAdd");
  EXPECT_EQ(callName(Body[Begin + 2]), "meshad::blockReduceAtomicAdd");
  AccumulationPolicy Policy(Kernel->getTarget(), *Diags);
  Facts.configure(Policy);
  lowerReverseAccumulations(M, *Kernel, Policy, Facts);
  EXPECT_FALSE(hasAccumulations(*Kernel));
  EXPECT_EQ(countCalls("atomicAdd"), 0u);
  EXPECT_EQ(countPlainAdds(), 2u); // dk_part += t; dm_part += 2 * t
  EXPECT_NE(remarks().find("adjoint store to 'k': plain += (uniform: every "
                           "thread adds to it; summed in a register"),
            std::string::npos)
      << remarks();
  std::string Errors;
  EXPECT_TRUE(verifyFunction(*Kernel, VerifyStage::Lowered, Errors)) << Errors;
}

TEST_F(ScalarSumsTest, AtomicsAllAndPullbacksKeepTheAccumulates) {
  build();
  Facts.ForceAtomics = true;
  size_t Before = Kernel->getBody()->getBody().size();
  sumScalarsPerBlock(M, *Kernel, Facts);
  Facts.ForceAtomics = false;
  Facts.Gradient = false;
  sumScalarsPerBlock(M, *Kernel, Facts);
  EXPECT_TRUE(Facts.BlockSums.empty());
  EXPECT_EQ(Kernel->getBody()->getBody().size(), Before);
}

} // namespace
