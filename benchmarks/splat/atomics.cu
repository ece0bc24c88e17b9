//===- benchmarks/splat/atomics.cu - The all-atomics baseline -------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
//
// meshad's gradient of renderTiles compiled with
// -fplugin-arg-meshad-atomics=all (every shared adjoint store an atomicAdd,
// the ownership analysis off): the baseline of bench.cu, with and without
// meshad::AfterPrimal (the forward sweep not run again). The kernel is
// renamed so that it links beside bench.cu's.
//
//===----------------------------------------------------------------------===//

#define SPLAT_RENDER_ONLY
#define renderTiles renderTilesAllAtomics
#include "Splat.h"
#include <meshad/Differentiator.h>

void launchAllAtomics(dim3 Grid, dim3 Block, int W, int H, const int *Ranges,
                      const int *Ids, const Real *Means, const Real *Conics,
                      const Real *Colours, const Real *Opacities, Real *Image,
                      Real *FinalT, int *Walked, Real *DMeans, Real *DConics,
                      Real *DColours, Real *DOpacities, Real *DImage,
                      Real *DFinalT) {
  static auto Grad = meshad::gradient(
      renderTilesAllAtomics, "means, conics, colours, opacities, image, finalT");
  Grad.execute_kernel(Grid, Block, W, H, Ranges, Ids, Means, Conics, Colours,
                      Opacities, Image, FinalT, Walked, DMeans, DConics,
                      DColours, DOpacities, DImage, DFinalT);
}

void launchAllAtomicsAfterPrimal(dim3 Grid, dim3 Block, int W, int H,
                                 const int *Ranges, const int *Ids,
                                 const Real *Means, const Real *Conics,
                                 const Real *Colours, const Real *Opacities,
                                 Real *Image, Real *FinalT, int *Walked,
                                 Real *DMeans, Real *DConics, Real *DColours,
                                 Real *DOpacities, Real *DImage,
                                 Real *DFinalT) {
  static auto Grad = meshad::gradient(
      renderTilesAllAtomics, "means, conics, colours, opacities, image, finalT",
      meshad::AfterPrimal);
  Grad.execute_kernel(Grid, Block, W, H, Ranges, Ids, Means, Conics, Colours,
                      Opacities, Image, FinalT, Walked, DMeans, DConics,
                      DColours, DOpacities, DImage, DFinalT);
}
