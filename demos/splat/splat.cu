//===- demos/splat/splat.cu - Gradients of a tile-sorted rasterizer -------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
//
// Small scenes of 2D Gaussians rendered by the user's rasterizer (Splat.h:
// tiles, keys sorted by (tile, depth), front-to-back blending with early
// termination); the gradient of L = sum_i w_i image_i with respect to the
// means, conics, colours and opacities, by meshad (`meshad::gradient` of
// renderTiles, also with meshad::AfterPrimal: the final T and the stops
// read back from the forward's outputs) and by the hand-written
// gsplat-style backward
// (SplatBackward.h), each against central differences in double of the
// rendering with the tile lists fixed (the binning is piecewise constant).
// The scenes have tiles without Gaussians, a partial tile row, and a stack
// of opaque Gaussians whose pixels terminate early.
//
// Build (CPU emulation):
//   clang++ -x c++ -std=c++20 -include meshad/cpu/CudaOnCpu.h -I include
//     -I test/Inputs -pthread -fplugin=build/lib/libmeshad.so splat.cu
// GPU: scripts/gpu/build.sh (tests.txt lists it).
//
//===----------------------------------------------------------------------===//

#include "KernelCheck.h"
#include "Splat.h"
#include "SplatBackward.h"
#include "SplatScene.h"
#include <meshad/Differentiator.h>

namespace mt = meshad::test;

namespace {

/// A scene on the device with its tile lists and the forward's outputs.
struct Rendered {
  int W, H, N, Pixels;
  mt::DeviceArray<Real> Means, Conics, Colours, Opacities, Image, FinalT;
  mt::DeviceArray<int> Walked;
  SplatLists Lists;

  Rendered(int W, int H, const SplatScene &S)
      : W(W), H(H), N(S.N), Pixels(W * H), Means(2 * S.N),
        Conics(3 * S.N), Colours(3 * S.N), Opacities(S.N),
        Image(3 * W * H), FinalT(W * H), Walked(W * H) {
    std::copy(S.Means.begin(), S.Means.end(), Means.host());
    std::copy(S.Conics.begin(), S.Conics.end(), Conics.host());
    std::copy(S.Colours.begin(), S.Colours.end(), Colours.host());
    std::copy(S.Opacities.begin(), S.Opacities.end(), Opacities.host());
    upload();
    Lists = binGaussians(W, H, N, Means.device(), Conics.device(),
                         S.DepthRank);
  }
  ~Rendered() { Lists.release(); }

  void upload() {
    Means.upload(), Conics.upload(), Colours.upload(), Opacities.upload();
  }
  /// Renders with the current host parameters and the fixed lists.
  void render() {
    upload();
    MESHAD_LAUNCH(renderTiles, tileGrid(W, H), dim3(SplatTile, SplatTile))
    (W, H, Lists.Ranges, Lists.Ids, Means.device(), Conics.device(),
     Colours.device(), Opacities.device(), Image.device(), FinalT.device(),
     Walked.device());
    mt::checkLaunch("renderTiles");
    Image.download(), FinalT.download(), Walked.download();
  }
};

/// The four parameter arrays of a scene, with their names.
struct ParamRef {
  const char *Name;
  mt::DeviceArray<Real> *Array;
};

/// Gradients of the four parameter arrays (host copies, double).
struct Gradients {
  std::vector<double> G[4];
};

Gradients fdReference(Rendered &R, const std::vector<double> &Wts,
                      ParamRef (&P)[4]) {
  auto Loss = [&] {
    R.render();
    return mt::weightedSum(Wts.data(), R.Image.host(), 3 * R.Pixels);
  };
  Gradients Ref;
  for (int I = 0; I < 4; ++I)
    Ref.G[I] = mt::fdGradient(Loss, P[I].Array->host(), P[I].Array->size());
  R.render();
  return Ref;
}

/// Runs \p Backward (adds into the four adjoint arrays given the image
/// seed) and checks its results against \p Ref.
template <class F>
void checkBackward(const char *Who, Rendered &R, const std::vector<double> &Wts,
                   ParamRef (&P)[4], const Gradients &Ref, F &&Backward) {
  mt::DeviceArray<Real> DImage(3 * R.Pixels), DFinalT(R.Pixels);
  mt::DeviceArray<Real> D[4] = {mt::DeviceArray<Real>(2 * R.N),
                                mt::DeviceArray<Real>(3 * R.N),
                                mt::DeviceArray<Real>(3 * R.N),
                                mt::DeviceArray<Real>(R.N)};
  for (int I = 0; I < 3 * R.Pixels; ++I)
    DImage[I] = (Real)Wts[I];
  DImage.upload();
  DFinalT.zero();
  for (auto &A : D)
    A.zero();
  R.render();
  Backward(DImage.device(), DFinalT.device(), D[0].device(), D[1].device(),
           D[2].device(), D[3].device());
  mt::checkLaunch(Who);
  for (int I = 0; I < 4; ++I) {
    D[I].download();
    mt::checkArray(std::string(Who) + " d" + P[I].Name, D[I].host(),
                   Ref.G[I].data(), D[I].size());
  }
}

/// Pixels that stopped early (walked less than their tile's list) and
/// tiles with an empty list.
void describe(Rendered &R) {
  std::vector<int> Ranges(2 * R.Lists.NumTiles);
  cudaMemcpy(Ranges.data(), R.Lists.Ranges, Ranges.size() * sizeof(int),
             cudaMemcpyDeviceToHost);
  int Early = 0, Empty = 0, TilesX = tileGrid(R.W, R.H).x;
  for (int T = 0; T < R.Lists.NumTiles; ++T)
    Empty += Ranges[2 * T] == Ranges[2 * T + 1];
  for (int Y = 0; Y < R.H; ++Y)
    for (int X = 0; X < R.W; ++X) {
      int T = (Y / SplatTile) * TilesX + X / SplatTile;
      Early += R.Walked[Y * R.W + X] < Ranges[2 * T + 1] - Ranges[2 * T];
    }
  std::printf("%dx%d image, %d Gaussians, %d list entries, %d empty tiles, "
              "%d pixels terminated early\n",
              R.W, R.H, R.N, R.Lists.NumEntries, Empty, Early);
  mt::checkClose("some pixels terminate early", Early > 0 ? 1.0 : 0.0, 1.0);
  mt::checkClose("some tiles are empty", Empty > 0 ? 1.0 : 0.0, 1.0);
}

void runScene(int W, int H, const SplatScene &S, std::uint64_t Seed) {
  Rendered R(W, H, S);
  R.render();
  describe(R);
  std::vector<double> Wts(3 * R.Pixels);
  mt::RandomInputs Rng(Seed);
  Rng.fill(Wts.data(), Wts.size(), 0.5, 1.0);
  ParamRef P[4] = {{"means", &R.Means},
                   {"conics", &R.Conics},
                   {"colours", &R.Colours},
                   {"opacities", &R.Opacities}};
  Gradients Ref = fdReference(R, Wts, P);
#ifdef SPLAT_DEBUG_FD
  for (double Hs = 1e-3; Hs > 1e-9; Hs /= 4) {
    double X0 = R.Conics[0];
    auto L = [&](double X) { R.Conics[0] = X; R.render(); return mt::weightedSum(Wts.data(), R.Image.host(), 3 * R.Pixels); };
    double D = (L(X0 + Hs) - L(X0 - Hs)) / (2 * Hs);
    R.Conics[0] = X0;
    std::printf("h %g: %.12g\n", Hs, D);
  }
#endif
  dim3 Grid = tileGrid(W, H), Block(SplatTile, SplatTile);
  checkBackward("hand-written", R, Wts, P, Ref,
                [&](Real *DImage, Real *, Real *DM, Real *DC, Real *DCol,
                    Real *DO) {
                  MESHAD_LAUNCH(splat::renderTilesBackward, Grid, Block)
                  (W, H, R.Lists.Ranges, R.Lists.Ids, R.Means.device(),
                   R.Conics.device(), R.Colours.device(),
                   R.Opacities.device(), R.FinalT.device(),
                   R.Walked.device(), DImage, DM, DC, DCol, DO);
                });
#ifndef SPLAT_HANDWRITTEN_ONLY
  auto Grad = meshad::gradient(
      renderTiles, "means, conics, colours, opacities, image, finalT");
  checkBackward("meshad", R, Wts, P, Ref,
                [&](Real *DImage, Real *DFinalT, Real *DM, Real *DC,
                    Real *DCol, Real *DO) {
                  Grad.execute_kernel(Grid, Block, W, H, R.Lists.Ranges,
                                      R.Lists.Ids, R.Means.device(),
                                      R.Conics.device(), R.Colours.device(),
                                      R.Opacities.device(), R.Image.device(),
                                      R.FinalT.device(), R.Walked.device(),
                                      DM, DC, DCol, DO, DImage, DFinalT);
                });
  // checkBackward renders first: the gradient may read the final T and the
  // stops back instead of running the forward loop again.
  auto After = meshad::gradient(
      renderTiles, "means, conics, colours, opacities, image, finalT",
      meshad::AfterPrimal);
  checkBackward("meshad after primal", R, Wts, P, Ref,
                [&](Real *DImage, Real *DFinalT, Real *DM, Real *DC,
                    Real *DCol, Real *DO) {
                  After.execute_kernel(Grid, Block, W, H, R.Lists.Ranges,
                                       R.Lists.Ids, R.Means.device(),
                                       R.Conics.device(), R.Colours.device(),
                                       R.Opacities.device(), R.Image.device(),
                                       R.FinalT.device(), R.Walked.device(),
                                       DM, DC, DCol, DO, DImage, DFinalT);
                });
#endif
}

} // namespace

int main() {
  // 44 x 24 pixels: 3 x 2 tiles, the last row and column partial.
  // Gaussians in the left half only (the right column of tiles is empty), a
  // stack of opaque ones around (12, 10) whose pixels terminate early.
  SplatScene S = makeScene(10, 2, 2, 22, 22, 2.0, 4.0, 0.3, 0.8, 7);
  for (int I = 0; I < 7; ++I)
    S.add(10 + 0.7 * I, 9 + 0.4 * I, 3.0 + 0.2 * I, 2.5 + 0.2 * I, 0.3 * I,
          0.2 + 0.1 * I, 0.9 - 0.1 * I, 0.5, 0.93 - 0.01 * I);
  S.shuffleDepths(11);
  runScene(44, 24, S, mt::RandomInputs::defaultSeed());
  return mt::summary();
}
