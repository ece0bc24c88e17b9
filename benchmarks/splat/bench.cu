//===- benchmarks/splat/bench.cu - Backward passes of the rasterizer ------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
//
// Times the backward pass of demos/splat's renderTiles on a W x H image with
// N random Gaussians (binned with Thrust), one row per variant:
//   handwritten     SplatBackward.h (gsplat style: back-to-front replay from
//                   the stored final T, warp sums, one atomicAdd per warp)
//   meshad          meshad::gradient(renderTiles, ...) (this file): the
//                   reverse loop run in step across each warp, the
//                   Gaussians' adds of an entry summed in one shuffle tree,
//                   one atomicAdd per warp, entry and parameter
//                   (GPU/BlockUniformReduce, the default)
//   meshad-after    the same with meshad::AfterPrimal: the gradient reads
//                   the final T and where each pixel stopped back from the
//                   forward's outputs instead of running its loop again
//                   (AD/Reverse/ForwardFromOutputs), as the hand-written
//                   backward does
//   meshad-warp     the same compiled with
//                   -fplugin-arg-meshad-uniform-sums=warp spelled out
//                   (warp.cu; the default since session 6)
//   meshad-atomics  the same compiled with -fplugin-arg-meshad-atomics=all
//                   (atomics.cu); atomics-after: with meshad::AfterPrimal
// Each: 3 warm-up runs, then the median of --reps runs timed with CUDA
// events around the kernel alone (the seeds and gradients are reset between
// runs, untimed, after the forward). meshad's gradient kernel runs the
// forward sweep again before its reverse sweep (it is the whole
// derivative) unless asked for with meshad::AfterPrimal; the hand-written
// backward reads the forward's stored final T and stop index instead. The
// meshad gradients are compared with the hand-written one (relative L2
// error per array). --export=DIR writes the scene, the lists, the seed and
// the hand-written gradient for splat_torch.py.
//
//   splat-bench [--width=1024] [--height=1024] [--gaussians=100000]
//               [--reps=20] [--export=DIR]
//
// Real is float unless compiled with -DSPLAT_REAL=double.
//
//===----------------------------------------------------------------------===//

#include "Splat.h"
#include "SplatBackward.h"
#include "SplatScene.h"
#include <meshad/Differentiator.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

/// The per-warp gradient (warp.cu): same arguments as renderTiles_grad.
void launchPerWarp(dim3 Grid, dim3 Block, int W, int H, const int *Ranges,
                   const int *Ids, const Real *Means, const Real *Conics,
                   const Real *Colours, const Real *Opacities, Real *Image,
                   Real *FinalT, int *Walked, Real *DMeans, Real *DConics,
                   Real *DColours, Real *DOpacities, Real *DImage,
                   Real *DFinalT);

/// The all-atomics gradient (atomics.cu): same arguments as renderTiles_grad;
/// with meshad::AfterPrimal.
void launchAllAtomicsAfterPrimal(dim3 Grid, dim3 Block, int W, int H,
                                 const int *Ranges, const int *Ids,
                                 const Real *Means, const Real *Conics,
                                 const Real *Colours, const Real *Opacities,
                                 Real *Image, Real *FinalT, int *Walked,
                                 Real *DMeans, Real *DConics, Real *DColours,
                                 Real *DOpacities, Real *DImage, Real *DFinalT);
void launchAllAtomics(dim3 Grid, dim3 Block, int W, int H, const int *Ranges,
                      const int *Ids, const Real *Means, const Real *Conics,
                      const Real *Colours, const Real *Opacities, Real *Image,
                      Real *FinalT, int *Walked, Real *DMeans, Real *DConics,
                      Real *DColours, Real *DOpacities, Real *DImage,
                      Real *DFinalT);

namespace {

struct Options {
  int W = 1024, H = 1024, N = 100000, Reps = 20;
  std::string Export;
};

Options parse(int Argc, char **Argv) {
  Options O;
  for (int I = 1; I < Argc; ++I) {
    std::string A = Argv[I];
    auto Val = [&](const char *Key) -> const char * {
      size_t L = std::strlen(Key);
      return A.compare(0, L, Key) == 0 ? A.c_str() + L : nullptr;
    };
    if (const char *V = Val("--width="))
      O.W = std::atoi(V);
    else if (const char *V = Val("--height="))
      O.H = std::atoi(V);
    else if (const char *V = Val("--gaussians="))
      O.N = std::atoi(V);
    else if (const char *V = Val("--reps="))
      O.Reps = std::atoi(V);
    else if (const char *V = Val("--export="))
      O.Export = V;
    else {
      std::fprintf(stderr, "unknown option %s\n", A.c_str());
      std::exit(2);
    }
  }
  return O;
}

#define CHECK_CUDA(X)                                                          \
  do {                                                                         \
    cudaError_t E = (X);                                                       \
    if (E != cudaSuccess) {                                                    \
      std::fprintf(stderr, "%s: %s\n", #X, cudaGetErrorString(E));             \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

template <class T> T *toDevice(const std::vector<T> &H) {
  T *D;
  CHECK_CUDA(cudaMalloc(&D, H.size() * sizeof(T) + 1));
  CHECK_CUDA(cudaMemcpy(D, H.data(), H.size() * sizeof(T),
                        cudaMemcpyHostToDevice));
  return D;
}

template <class T> std::vector<double> toHost(const T *D, size_t N) {
  std::vector<T> H(N);
  CHECK_CUDA(cudaMemcpy(H.data(), D, N * sizeof(T), cudaMemcpyDeviceToHost));
  return std::vector<double>(H.begin(), H.end());
}

template <class T> void writeFile(const std::string &Path, const T *D,
                                  size_t N) {
  FILE *F = std::fopen(Path.c_str(), "wb");
  if (!F || std::fwrite(D, sizeof(T), N, F) != N) {
    std::fprintf(stderr, "cannot write %s\n", Path.c_str());
    std::exit(1);
  }
  std::fclose(F);
}

/// The device state of one benchmark scene.
struct Scene {
  int W, H, N;
  Real *Means, *Conics, *Colours, *Opacities, *Image, *FinalT;
  int *Walked;
  SplatLists Lists;
  Real *Seed, *DImage, *DFinalT, *D[4];
  size_t Sizes[4];
};

/// Median milliseconds of \p Reps runs of \p Run (after 3 warm-ups);
/// \p Reset runs untimed before each.
template <class R, class F> float timeMedian(int Reps, R &&Reset, F &&Run) {
  cudaEvent_t A, B;
  cudaEventCreate(&A);
  cudaEventCreate(&B);
  std::vector<float> Ms;
  for (int I = 0; I < Reps + 3; ++I) {
    Reset();
    cudaEventRecord(A);
    Run();
    cudaEventRecord(B);
    CHECK_CUDA(cudaEventSynchronize(B));
    float T;
    cudaEventElapsedTime(&T, A, B);
    if (I >= 3)
      Ms.push_back(T);
  }
  CHECK_CUDA(cudaGetLastError());
  std::sort(Ms.begin(), Ms.end());
  return Ms[Ms.size() / 2];
}

void resetGradients(Scene &S) {
  size_t Px = size_t(S.W) * S.H;
  cudaMemcpy(S.DImage, S.Seed, 3 * Px * sizeof(Real),
             cudaMemcpyDeviceToDevice);
  cudaMemset(S.DFinalT, 0, Px * sizeof(Real));
  for (int I = 0; I < 4; ++I)
    cudaMemset(S.D[I], 0, S.Sizes[I] * sizeof(Real));
}

/// Relative L2 error of the four gradients against \p Ref.
double relError(Scene &S, const std::vector<double> (&Ref)[4]) {
  double Num = 0, Den = 0;
  for (int I = 0; I < 4; ++I) {
    std::vector<double> G = toHost(S.D[I], S.Sizes[I]);
    for (size_t J = 0; J < G.size(); ++J)
      Num += (G[J] - Ref[I][J]) * (G[J] - Ref[I][J]),
          Den += Ref[I][J] * Ref[I][J];
  }
  return std::sqrt(Num / std::max(Den, 1e-300));
}

Scene makeDeviceScene(const Options &O) {
  SplatScene H = makeScene(O.N, 0, 0, O.W, O.H, 1.0, 6.0, 0.2, 0.95, 2026);
  Scene S{O.W, O.H, O.N};
  auto Conv = [](const std::vector<double> &V) {
    return toDevice(std::vector<Real>(V.begin(), V.end()));
  };
  S.Means = Conv(H.Means), S.Conics = Conv(H.Conics);
  S.Colours = Conv(H.Colours), S.Opacities = Conv(H.Opacities);
  size_t Px = size_t(O.W) * O.H;
  CHECK_CUDA(cudaMalloc(&S.Image, 3 * Px * sizeof(Real)));
  CHECK_CUDA(cudaMalloc(&S.FinalT, Px * sizeof(Real)));
  CHECK_CUDA(cudaMalloc(&S.Walked, Px * sizeof(int)));
  S.Lists = binGaussians(O.W, O.H, O.N, S.Means, S.Conics, H.DepthRank);
  std::vector<Real> Seed(3 * Px);
  std::srand(7);
  for (Real &V : Seed)
    V = Real(0.5 + std::rand() / (2.0 * RAND_MAX));
  S.Seed = toDevice(Seed);
  CHECK_CUDA(cudaMalloc(&S.DImage, 3 * Px * sizeof(Real)));
  CHECK_CUDA(cudaMalloc(&S.DFinalT, Px * sizeof(Real)));
  size_t Sizes[4] = {2 * size_t(O.N), 3 * size_t(O.N), 3 * size_t(O.N),
                     size_t(O.N)};
  for (int I = 0; I < 4; ++I) {
    S.Sizes[I] = Sizes[I];
    CHECK_CUDA(cudaMalloc(&S.D[I], Sizes[I] * sizeof(Real)));
  }
  return S;
}

void exportScene(Scene &S, const std::string &Dir,
                 const std::vector<double> (&Ref)[4]) {
  size_t Px = size_t(S.W) * S.H;
  auto Put = [&](const char *Name, const std::vector<double> &V) {
    writeFile(Dir + "/" + Name + ".bin", V.data(), V.size());
  };
  Put("means", toHost(S.Means, 2 * S.N));
  Put("conics", toHost(S.Conics, 3 * S.N));
  Put("colours", toHost(S.Colours, 3 * S.N));
  Put("opacities", toHost(S.Opacities, S.N));
  Put("seed", toHost(S.Seed, 3 * Px));
  Put("image", toHost(S.Image, 3 * Px));
  const char *Names[4] = {"dmeans", "dconics", "dcolours", "dopacities"};
  for (int I = 0; I < 4; ++I)
    Put(Names[I], Ref[I]);
  std::vector<int> Ranges(2 * S.Lists.NumTiles), Ids(S.Lists.NumEntries);
  cudaMemcpy(Ranges.data(), S.Lists.Ranges, Ranges.size() * sizeof(int),
             cudaMemcpyDeviceToHost);
  cudaMemcpy(Ids.data(), S.Lists.Ids, Ids.size() * sizeof(int),
             cudaMemcpyDeviceToHost);
  writeFile(Dir + "/ranges.bin", Ranges.data(), Ranges.size());
  writeFile(Dir + "/ids.bin", Ids.data(), Ids.size());
  FILE *F = std::fopen((Dir + "/meta.txt").c_str(), "w");
  std::fprintf(F, "%d %d %d %d %d %s\n", S.W, S.H, S.N, S.Lists.NumTiles,
               S.Lists.NumEntries, sizeof(Real) == 4 ? "float32" : "float64");
  std::fclose(F);
}

} // namespace

int main(int Argc, char **Argv) {
  Options O = parse(Argc, Argv);
  Scene S = makeDeviceScene(O);
  dim3 Grid = tileGrid(O.W, O.H), Block(SplatTile, SplatTile);
  auto Forward = [&] {
    MESHAD_LAUNCH(renderTiles, Grid, Block)
    (O.W, O.H, S.Lists.Ranges, S.Lists.Ids, S.Means, S.Conics, S.Colours,
     S.Opacities, S.Image, S.FinalT, S.Walked);
  };
  float FwdMs = timeMedian(O.Reps, [] {}, Forward);
  auto Reset = [&] {
    resetGradients(S);
    Forward(); // the meshad gradient leaves the image unspecified
  };
  float HandMs = timeMedian(O.Reps, Reset, [&] {
    MESHAD_LAUNCH(splat::renderTilesBackward, Grid, Block)
    (O.W, O.H, S.Lists.Ranges, S.Lists.Ids, S.Means, S.Conics, S.Colours,
        S.Opacities, S.FinalT, S.Walked, S.DImage, S.D[0], S.D[1], S.D[2],
        S.D[3]);
  });
  std::vector<double> Ref[4];
  for (int I = 0; I < 4; ++I)
    Ref[I] = toHost(S.D[I], S.Sizes[I]);
  if (!O.Export.empty())
    exportScene(S, O.Export, Ref);
  auto Grad = meshad::gradient(
      renderTiles, "means, conics, colours, opacities, image, finalT");
  float MeshadMs = timeMedian(O.Reps, Reset, [&] {
    Grad.execute_kernel(Grid, Block, O.W, O.H, S.Lists.Ranges, S.Lists.Ids,
                        S.Means, S.Conics, S.Colours, S.Opacities, S.Image,
                        S.FinalT, S.Walked, S.D[0], S.D[1], S.D[2], S.D[3],
                        S.DImage, S.DFinalT);
  });
  double MeshadErr = relError(S, Ref);
  auto GradAfter =
      meshad::gradient(renderTiles, "means, conics, colours, opacities, "
                                    "image, finalT", meshad::AfterPrimal);
  float AfterMs = timeMedian(O.Reps, Reset, [&] {
    GradAfter.execute_kernel(Grid, Block, O.W, O.H, S.Lists.Ranges,
                             S.Lists.Ids, S.Means, S.Conics, S.Colours,
                             S.Opacities, S.Image, S.FinalT, S.Walked, S.D[0],
                             S.D[1], S.D[2], S.D[3], S.DImage, S.DFinalT);
  });
  double AfterErr = relError(S, Ref);
  float WarpMs = timeMedian(O.Reps, Reset, [&] {
    launchPerWarp(Grid, Block, O.W, O.H, S.Lists.Ranges, S.Lists.Ids, S.Means,
                  S.Conics, S.Colours, S.Opacities, S.Image, S.FinalT,
                  S.Walked, S.D[0], S.D[1], S.D[2], S.D[3], S.DImage,
                  S.DFinalT);
  });
  double WarpErr = relError(S, Ref);
  float AtomicsMs = timeMedian(O.Reps, Reset, [&] {
    launchAllAtomics(Grid, Block, O.W, O.H, S.Lists.Ranges, S.Lists.Ids,
                     S.Means, S.Conics, S.Colours, S.Opacities, S.Image,
                     S.FinalT, S.Walked, S.D[0], S.D[1], S.D[2], S.D[3],
                     S.DImage, S.DFinalT);
  });
  double AtomicsErr = relError(S, Ref);
  float AtomicsAfterMs = timeMedian(O.Reps, Reset, [&] {
    launchAllAtomicsAfterPrimal(Grid, Block, O.W, O.H, S.Lists.Ranges,
                                S.Lists.Ids, S.Means, S.Conics, S.Colours,
                                S.Opacities, S.Image, S.FinalT, S.Walked,
                                S.D[0], S.D[1], S.D[2], S.D[3], S.DImage,
                                S.DFinalT);
  });
  double AtomicsAfterErr = relError(S, Ref);
  const char *Ty = sizeof(Real) == 4 ? "fp32" : "fp64";
  std::printf("# %dx%d, %d Gaussians, %d list entries, %s; forward %.3f ms\n",
              O.W, O.H, O.N, S.Lists.NumEntries, Ty, FwdMs);
  std::printf("%-8s %-5s %-10s %-16s %10s %10s %12s\n", "type", "size",
              "gaussians", "variant", "ms", "vs hand", "rel. error");
  auto Row = [&](const char *Name, float Ms, double Err) {
    std::printf("%-8s %-5d %-10d %-16s %10.3f %9.2fx %12.2e\n", Ty, O.W, O.N,
                Name, Ms, Ms / HandMs, Err);
  };
  Row("handwritten", HandMs, 0.0);
  Row("meshad", MeshadMs, MeshadErr);
  Row("meshad-after", AfterMs, AfterErr);
  Row("meshad-warp", WarpMs, WarpErr);
  Row("meshad-atomics", AtomicsMs, AtomicsErr);
  Row("atomics-after", AtomicsAfterMs, AtomicsAfterErr);
  return 0;
}
