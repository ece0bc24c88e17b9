//===- benchmarks/splat/warp.cu - The per-warp sums variant ---------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
//
// meshad's gradient of renderTiles compiled with
// -fplugin-arg-meshad-uniform-sums=warp (the Gaussians' adds summed per warp,
// one atomicAdd per warp and iteration, the reverse loop in step across each
// warp): the variant of session 5, beside bench.cu's per-block sums (the
// default). The kernel is renamed so that it links beside bench.cu's.
//
//===----------------------------------------------------------------------===//

#define SPLAT_RENDER_ONLY
#define renderTiles renderTilesPerWarp
#include "Splat.h"
#include <meshad/Differentiator.h>

void launchPerWarp(dim3 Grid, dim3 Block, int W, int H, const int *Ranges,
                   const int *Ids, const Real *Means, const Real *Conics,
                   const Real *Colours, const Real *Opacities, Real *Image,
                   Real *FinalT, int *Walked, Real *DMeans, Real *DConics,
                   Real *DColours, Real *DOpacities, Real *DImage,
                   Real *DFinalT) {
  static auto Grad = meshad::gradient(
      renderTilesPerWarp, "means, conics, colours, opacities, image, finalT");
  Grad.execute_kernel(Grid, Block, W, H, Ranges, Ids, Means, Conics, Colours,
                      Opacities, Image, FinalT, Walked, DMeans, DConics,
                      DColours, DOpacities, DImage, DFinalT);
}
