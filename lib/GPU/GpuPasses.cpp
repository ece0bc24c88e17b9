//===- GPU/GpuPasses.cpp - The passes that finish a derivative ------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "GPU/GpuPasses.h"
#include "GPU/AccumulationPolicy.h"
#include "GPU/BlockUniformReduce.h"
#include "GPU/ExclusiveAdds.h"
#include "GPU/KernelAdjoints.h"
#include "GPU/LowerAccumulations.h"
#include "GPU/OwnershipCrossCheck.h"
#include "GPU/ScalarSums.h"
#include "IR/Builder.h"
#include "IR/Traversal.h"
#include "Simplify/DeadLocals.h"

#include <memory>
#include <set>

using namespace meshad;

/// Turns the tiles of \p Facts, and those the lowering gave the kernel
/// (\p Lowered, if any), into gathers where the kernel allows it.
static void gatherTileAdjoints(ir::Module &M, ir::Function &F,
                               const GradientKernelFacts &Facts,
                               const AccumulationFacts *Lowered) {
  std::vector<GatherTile> Tiles = Facts.Tiles;
  if (Lowered)
    for (const AccumulationFacts::Tile &T : Lowered->Tiles)
      Tiles.push_back({T.Adjoint, T.Tile, T.Result.TileStride});
  if (Tiles.empty())
    return;
  ir::IRBuilder B(M);
  std::string WhyNot;
  bool Done = gatherTiles(B, F, Tiles, Facts.FreshName, WhyNot);
  if (Done)
    removeDeadLocals(F);
  Facts.TilesDone(Done, WhyNot);
}

/// The gradient kernel passes; \p Lowered: the facts of the lowering that
/// runs before them (its tiles), or null.
static void addKernelPasses(PassPipeline &P, ir::Module &M,
                            GradientKernelFacts Facts,
                            std::shared_ptr<const AccumulationFacts> Lowered) {
  unsigned FirstAdjoint = Facts.FirstAdjoint;
  P.add("gather-tiles",
        [&M, Facts = std::move(Facts), Lowered](ir::Function &F) {
          gatherTileAdjoints(M, F, Facts, Lowered.get());
        })
      .add("exclusive-adds", [&M, FirstAdjoint](ir::Function &F) {
        ir::IRBuilder B(M);
        useExclusiveAdds(B, F, FirstAdjoint);
      });
}

void meshad::addGradientKernelPasses(PassPipeline &P, ir::Module &M,
                                     GradientKernelFacts Facts) {
  addKernelPasses(P, M, std::move(Facts), nullptr);
}

/// lower-accumulations for a function of reverse mode, then, for a
/// gradient kernel, its passes.
static void addReversePasses(PassPipeline &P, ir::Module &M,
                             DiagnosticSink &Diags, AccumulationFacts Adds,
                             std::optional<GradientKernelFacts> Kernel) {
  // The lowering decides the kernel's tiles and registers, which the
  // gradient kernel passes read; they finish the remarks of the tile stores.
  auto Policy = std::make_shared<AccumulationPolicy>(Adds.Target, Diags);
  auto Facts = std::make_shared<AccumulationFacts>(std::move(Adds));
  P.add(
      "lower-accumulations",
      [&M, &Diags, Policy, Facts, IsKernel = Kernel.has_value()](
          ir::Function &F) {
        sumScalarsPerBlock(M, F, *Facts);
        if (Facts->OwnershipCrossCheck)
          crossCheckOwnership(F, *Facts, Diags);
        planKernelAdjoints(M, F, *Facts);
        placeSeedResets(M, F, *Facts);
        // Issue 15: a gradient kernel's block-uniform adds in reverse loops
        // are summed per warp first (GPU/BlockUniformReduce); the others
        // stay Accumulates for the policy.
        if (IsKernel) {
          ir::IRBuilder B(M);
          reduceUniformAdds(B, F, uniformAddTargets(*Facts), Diags);
        }
        Facts->configure(*Policy);
        lowerReverseAccumulations(M, F, *Policy, *Facts);
      },
      ir::VerifyStage::Lowered);
  if (!Kernel)
    return;
  Kernel->TilesDone = [Policy](bool Gathered, const std::string &WhyNot) {
    Policy->finishTileRemarks(Gathered, WhyNot);
  };
  addKernelPasses(P, M, std::move(*Kernel), Facts);
}

void meshad::addLoweringPasses(PassPipeline &P, ir::Module &M,
                               DiagnosticSink &Diags, LoweringRequest R) {
  if (R.Reverse)
    return addReversePasses(P, M, Diags, std::move(*R.Reverse),
                            std::move(R.Kernel));
  P.add("dead-locals", [](ir::Function &F) { removeDeadLocals(F); })
      .add(
          "lower-accumulations",
          [&M, &Diags, ForceAtomics = R.ForceAtomics,
           Names = std::move(R.UserNames)](ir::Function &F) {
            lowerAccumulations(M, F, Diags, ForceAtomics, Names);
          },
          ir::VerifyStage::Lowered);
}

/// A name that no variable of \p F has, from \p Prefix.
static std::string unusedName(const ir::Function &F, const std::string &Prefix) {
  std::set<std::string> Taken;
  for (const ir::Var *P : F.getParams())
    Taken.insert(P->getName());
  ir::forEachStmt(F.getBody(), [&](const ir::Stmt *S) {
    if (const auto *D = llvm::dyn_cast<ir::DeclStmt>(S))
      Taken.insert(D->getVar()->getName());
  });
  std::string Name = Prefix;
  for (unsigned I = 1; Taken.count(Name); ++I)
    Name = Prefix + std::to_string(I);
  return Name;
}

void meshad::addElementKernelPasses(PassPipeline &P, ir::Module &M,
                                    ElementKernelFacts Facts) {
  P.add("two-phase-slots", [&M, Facts = std::move(Facts)](ir::Function &F) {
    ir::IRBuilder B(M);
    SlotLayout Layout;
    std::string WhyNot;
    auto Fresh = [&F](const std::string &Prefix) {
      return unusedName(F, Prefix);
    };
    bool Done = useTwoPhaseSlots(B, F, *Facts.Primal, Facts.Requests, Fresh,
                                 Layout, WhyNot);
    Facts.Done(Done ? &Layout : nullptr, WhyNot);
  });
}

void meshad::addKeepSeedsPass(PassPipeline &P, DiagnosticSink &Diags,
                              KeepSeedsFacts Facts, bool &Kept) {
  P.add("keep-seeds", [&Diags, &Kept, Facts = std::move(Facts)](
                          ir::Function &F) {
    Kept = keepSeeds(F, Facts, Diags);
  });
}
