//===- test/Inputs/SplatTiles.h - Splats over tiles, for tests --*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The scene of the tests whose kernels blend splats over tiles (the splat
/// rasterizer's shape; test/ownership/uniform-adds-*.cu): K splats
/// p = (x, y, opacity) at random over a W x H image, the splat lists of
/// 3 x 3 tiles (tile T lists splat (5k + T) % K for each k with
/// (k + T) % 4 != 0, tile 4 none: Ids[Ranges[2T] .. Ranges[2T + 1])), and
/// random weights of the pixels: the loss is the weighted sum of the image.
///
/// \code
///   meshad::test::SplatTiles S(Rng, 21, 10, 6);
///   auto Loss = [&] { return S.loss(tiles, Grid, Block); };
///   std::vector<double> Expected = fdGradient(Loss, S.P.host(), 3 * S.K);
///   S.gradient([&] { Grad.execute_kernel(Grid, Block, S.W, S.H, ...); });
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_TEST_SPLATTILES_H
#define MESHAD_TEST_SPLATTILES_H

#include "KernelCheck.h"
#include "NumericCheck.h"

namespace meshad {
namespace test {

struct SplatTiles {
  static constexpr int Tiles = 9;
  int W, H, K;
  DeviceArray<int> Ranges, Ids;
  /// The splats, the image, the pixels' weights; the adjoints of P and Img.
  DeviceArray<double> P, Img, Wt, DP, DImg;

  /// Draws the splats, then the weights, from \p Rng.
  SplatTiles(RandomInputs &Rng, int W, int H, int K)
      : W(W), H(H), K(K), Ranges(2 * Tiles), Ids(Tiles * K), P(3 * K),
        Img(W * H), Wt(W * H), DP(3 * K), DImg(W * H) {
    for (int k = 0; k < K; ++k) {
      Rng.fill(&P[3 * k], 1, 0, W);
      Rng.fill(&P[3 * k + 1], 1, 0, H);
      Rng.fill(&P[3 * k + 2], 1, 0.3, 0.9);
    }
    int Used = 0;
    for (int T = 0; T < Tiles; ++T) {
      Ranges[2 * T] = Used;
      for (int k = 0; k < K; ++k)
        if ((k + T) % 4 != 0 && T != 4) // tile 4 is empty
          Ids[Used++] = (k * 5 + T) % K;
      Ranges[2 * T + 1] = Used;
    }
    Ranges.upload();
    Ids.upload();
    Rng.fill(Wt.host(), W * H, -1, 1);
  }

  /// The loss of the image that \p Kernel(W, H, ranges, ids, p, img)
  /// renders on (Grid, Block) from the host values of P.
  template <class Kern> double loss(Kern Kernel, dim3 Grid, dim3 Block) {
    P.upload();
    MESHAD_LAUNCH(Kernel, Grid, Block)(W, H, Ranges.device(), Ids.device(),
                                       P.device(), Img.device());
    Img.download();
    return weightedSum(Wt.host(), Img.host(), W * H);
  }

  /// Seeds the image's adjoint with the weights, zeroes DP, runs \p Launch
  /// (a launch of the gradient kernel) and downloads DP.
  template <class L> void gradient(L &&Launch) {
    for (int I = 0; I < W * H; ++I)
      DImg[I] = Wt[I];
    DImg.upload();
    DP.zero();
    Launch();
    checkLaunch("tiles_grad");
    DP.download();
  }
};

} // namespace test
} // namespace meshad

#endif // MESHAD_TEST_SPLATTILES_H
