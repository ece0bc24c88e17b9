//===- GPU/GpuPasses.cpp - The passes that finish a derivative ------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "GPU/GpuPasses.h"
#include "GPU/AccumulationPolicy.h"
#include "GPU/ExclusiveAdds.h"
#include "GPU/LowerAccumulations.h"
#include "IR/Builder.h"
#include "Simplify/DeadLocals.h"

using namespace meshad;

/// Turns the tiles of \p Facts into gathers where the kernel allows it.
static void gatherTileAdjoints(ir::Module &M, ir::Function &F,
                               const GradientKernelFacts &Facts) {
  if (Facts.Tiles.empty())
    return;
  ir::IRBuilder B(M);
  std::string WhyNot;
  bool Done = gatherTiles(B, F, Facts.Tiles, Facts.FreshName, WhyNot);
  if (Done)
    removeDeadLocals(F);
  Facts.TilesDone(Done, WhyNot);
}

void meshad::addGradientKernelPasses(PassPipeline &P, ir::Module &M,
                                     GradientKernelFacts Facts) {
  unsigned FirstAdjoint = Facts.FirstAdjoint;
  P.add("gather-tiles",
        [&M, Facts = std::move(Facts)](ir::Function &F) {
          gatherTileAdjoints(M, F, Facts);
        })
      .add("exclusive-adds", [&M, FirstAdjoint](ir::Function &F) {
        ir::IRBuilder B(M);
        useExclusiveAdds(B, F, FirstAdjoint);
      });
}

void meshad::addReversePasses(PassPipeline &P, ir::Module &M,
                              DiagnosticSink &Diags, AccumulationFacts Adds,
                              std::optional<GradientKernelFacts> Kernel) {
  // The gradient kernel passes finish the remarks of the tile stores.
  auto Policy = std::make_shared<AccumulationPolicy>(Adds.Target, Diags);
  Adds.configure(*Policy);
  P.add(
      "lower-gpu-accumulations",
      [&M, Policy, Adds](ir::Function &F) {
        lowerReverseAccumulations(M, F, *Policy, Adds);
      },
      ir::VerifyStage::Lowered);
  if (!Kernel)
    return;
  for (const AccumulationFacts::Tile &T : Adds.Tiles)
    Kernel->Tiles.push_back({T.Adjoint, T.Tile, T.Result.TileStride});
  Kernel->TilesDone = [Policy](bool Gathered, const std::string &WhyNot) {
    Policy->finishTileRemarks(Gathered, WhyNot);
  };
  addGradientKernelPasses(P, M, std::move(*Kernel));
}

void meshad::addComposedPasses(
    PassPipeline &P, ir::Module &M, DiagnosticSink &Diags, bool ForceAtomics,
    std::map<const ir::Var *, std::string> UserNames) {
  P.add("dead-locals", [](ir::Function &F) { removeDeadLocals(F); })
      .add(
          "lower-accumulations",
          [&M, &Diags, ForceAtomics,
           Names = std::move(UserNames)](ir::Function &F) {
            lowerAccumulations(M, F, Diags, ForceAtomics, Names);
          },
          ir::VerifyStage::Lowered);
}
