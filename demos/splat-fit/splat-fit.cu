//===- demos/splat-fit/splat-fit.cu - Fit 2D Gaussians to a photo ---------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
//
// Fits N 2D Gaussians (means, conics, colours, opacities) to a photograph
// with Adam (issue 15, item 4). The renderer is the user's tile rasterizer
// of demos/splat (Splat.h: binning, keys sorted by (tile, depth), front-to-
// back blending with early termination); the gradient of the mean squared
// error is meshad's gradient of its per-tile kernel, `meshad::gradient(
// renderTiles, "means, conics, colours, opacities, image, finalT")`, seeded
// with dL/dimage. The lists are binned again every step (the binning is
// piecewise constant: no gradient flows through it).
//
// Writes <out>/target.png, start.png, fit.png, loss.csv and loss.png (the
// loss per step, log scale). With --check it first checks the gradient of
// the loss against central differences in double on a tiny scene.
//
//   splat-fit [--target F.ppm] [--size S] [--gaussians N] [--steps K]
//             [--out DIR] [--check]
//
// Target: demos/splat-fit/astronaut-256.ppm (scikit-image's astronaut.png,
// NASA, public domain; fetch_target.py); --size S box-filters it to S x S.
// CPU emulation (test/splat/splat-fit.cu): a 32 x 32 image; GPU:
// scripts/gpu/demos.sh builds it, `--run` fits the full 256 x 256 image.
//
//===----------------------------------------------------------------------===//

#include "../splat/Splat.h"
#include "../splat/SplatScene.h"
#include "KernelCheck.h"
#include "SplatFit.h"
#include <meshad/Differentiator.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>

namespace mt = meshad::test;
using namespace splatfit;

namespace {

/// The scene's parameters on the device, the forward's outputs and the
/// adjoints, for a W x H target.
struct Fit {
  int W, H, N, Pixels;
  std::vector<double> Target;
  mt::DeviceArray<Real> P[4], D[4];
  mt::DeviceArray<Real> Image, FinalT, DImage, DFinalT;
  mt::DeviceArray<int> Walked;
  SplatLists Lists;
  std::vector<int> Rank;

  Fit(const Picture &T, const SplatScene &S)
      : W(T.W), H(T.H), N(S.N), Pixels(T.W * T.H), Target(T.Rgb),
        P{mt::DeviceArray<Real>(2 * S.N), mt::DeviceArray<Real>(3 * S.N),
          mt::DeviceArray<Real>(3 * S.N), mt::DeviceArray<Real>(S.N)},
        D{mt::DeviceArray<Real>(2 * S.N), mt::DeviceArray<Real>(3 * S.N),
          mt::DeviceArray<Real>(3 * S.N), mt::DeviceArray<Real>(S.N)},
        Image(3 * Pixels), FinalT(Pixels), DImage(3 * Pixels),
        DFinalT(Pixels), Walked(Pixels), Rank(S.DepthRank) {
    const std::vector<double> *Src[4] = {&S.Means, &S.Conics, &S.Colours,
                                         &S.Opacities};
    for (int G = 0; G < 4; ++G)
      for (size_t K = 0; K < Src[G]->size(); ++K)
        P[G][K] = (Real)(*Src[G])[K];
  }
  ~Fit() { Lists.release(); }

  void bin() {
    Lists.release();
    P[0].upload(), P[1].upload();
    Lists = binGaussians(W, H, N, P[0].device(), P[1].device(), Rank);
  }
  /// Renders with the current host parameters and lists; the loss.
  double render() {
    for (auto &A : P)
      A.upload();
    MESHAD_LAUNCH(renderTiles, tileGrid(W, H), dim3(SplatTile, SplatTile))
    (W, H, Lists.Ranges, Lists.Ids, P[0].device(), P[1].device(),
     P[2].device(), P[3].device(), Image.device(), FinalT.device(),
     Walked.device());
    mt::checkLaunch("renderTiles");
    Image.download();
    return meanSquaredError(Image.host(), Target);
  }
  /// The loss's gradient into D (host copies) by meshad's renderTiles_grad.
  template <class Grad> void gradient(Grad &G) {
    for (int K = 0; K < 3 * Pixels; ++K)
      DImage[K] = (Real)(2 * (Image[K] - Target[K]) / (3.0 * Pixels));
    DImage.upload();
    DFinalT.zero();
    for (auto &A : D)
      A.zero();
    G.execute_kernel(tileGrid(W, H), dim3(SplatTile, SplatTile), W, H,
                     Lists.Ranges, Lists.Ids, P[0].device(), P[1].device(),
                     P[2].device(), P[3].device(), Image.device(),
                     FinalT.device(), Walked.device(), D[0].device(),
                     D[1].device(), D[2].device(), D[3].device(),
                     DImage.device(), DFinalT.device());
    mt::checkLaunch("renderTiles_grad");
    for (auto &A : D)
      A.download();
  }
  meshad::render::Image picture() {
    return toImage(Image.host(), W, H);
  }
};

/// meshad's gradient of the loss against central differences of it (the
/// lists fixed) on a tiny scene over a synthetic target.
template <class Grad> void checkGradient(Grad &G) {
  Picture T = gradientPicture(20, 18);
  SplatScene S = makeScene(6, 2, 2, 18, 16, 2.0, 4.0, 0.3, 0.8, 5);
  Fit F(T, S);
  F.bin();
  F.render();
  F.gradient(G);
  const char *Names[4] = {"means", "conics", "colours", "opacities"};
  for (int P = 0; P < 4; ++P) {
    std::vector<double> Ref =
        mt::fdGradient([&] { return F.render(); }, F.P[P].host(),
                       F.P[P].size());
    mt::checkArray(std::string("dL/d") + Names[P], F.D[P].host(), Ref.data(),
                   F.P[P].size());
  }
}

struct Options {
  std::string Target = "demos/splat-fit/astronaut-256.ppm";
  std::string Out = ".";
  int Size = 0, Gaussians = 4096, Steps = 300;
  bool Check = false;
};

Options parse(int Argc, char **Argv) {
  Options O;
  for (int I = 1; I < Argc; ++I) {
    std::string A = Argv[I];
    auto Next = [&] { return I + 1 < Argc ? Argv[++I] : (char *)""; };
    if (A == "--target")
      O.Target = Next();
    else if (A == "--out")
      O.Out = Next();
    else if (A == "--size")
      O.Size = std::atoi(Next());
    else if (A == "--gaussians")
      O.Gaussians = std::atoi(Next());
    else if (A == "--steps")
      O.Steps = std::atoi(Next());
    else if (A == "--check")
      O.Check = true;
  }
  return O;
}

} // namespace

int main(int Argc, char **Argv) {
  Options O = parse(Argc, Argv);
  auto Grad = meshad::gradient(
      renderTiles, "means, conics, colours, opacities, image, finalT");
  if (O.Check)
    checkGradient(Grad);
  Picture T = readPpm(O.Target);
  if (O.Size > 0)
    T = boxFilter(T, O.Size);
  Fit F(T, initialScene(T, O.Gaussians, 1));
  meshad::render::writePng(O.Out + "/target.png", toImage(T.Rgb.data(), T.W, T.H));
  Adam Opt(F.P, rates(T, O.Gaussians));
  std::vector<double> Losses;
  auto Start = std::chrono::steady_clock::now();
  for (int Step = 0; Step <= O.Steps; ++Step) {
    F.bin();
    Losses.push_back(F.render());
    if (Step == 0)
      meshad::render::writePng(O.Out + "/start.png", F.picture());
    if (Step == O.Steps)
      break;
    F.gradient(Grad);
    Opt.step(F.P, F.D);
    project(F.P, T.W, T.H);
    if (Step % 50 == 0)
      std::printf("step %d: loss %.6f\n", Step, Losses.back());
  }
  double Seconds = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - Start)
                       .count();
  meshad::render::writePng(O.Out + "/fit.png", F.picture());
  writeLossCurve(O.Out, Losses);
  double Ratio = Losses.front() / Losses.back();
  std::printf("%dx%d target, %d Gaussians, %d steps in %.2f s: loss %.6f -> "
              "%.6f (%.1fx lower)\n",
              T.W, T.H, F.N, O.Steps, Seconds, Losses.front(), Losses.back(),
              Ratio);
  mt::checkClose("the loss falls at least 4x", Ratio >= 4 ? 1.0 : 0.0, 1.0);
  return mt::summary();
}
