//===- benchmarks/ownership/patterns.cu - Primal kernels, meshad gradients ===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
//
// The six primal kernels of the ownership benchmark, written as a user would,
// and launchers of their meshad gradients. scripts/gpu/bench.sh compiles this
// file twice with the meshad plugin:
//   -DMESHAD_BENCH_NS=bench_meshad                    meshad's decisions
//   -DMESHAD_BENCH_NS=bench_atomics -fplugin-arg-meshad-atomics=all
//   -DMESHAD_BENCH_NS=bench_meshad_keep -DMESHAD_BENCH_KEEP_SEEDS
//   -DMESHAD_BENCH_NS=bench_atomics_keep -DMESHAD_BENCH_KEEP_SEEDS ...atomics=all
// so that one binary holds all four versions of every gradient kernel (the
// last two leave the output seeds as they are: meshad::KeepSeeds).
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"

#include <meshad/Differentiator.h>

#include <cmath>

#ifndef MESHAD_BENCH_NS
#error "define MESHAD_BENCH_NS (bench_meshad or bench_atomics)"
#endif

namespace MESHAD_BENCH_NS {

// 1. Elementwise map.
__global__ void mapKernel(int n, const double *x, double *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = x[i] * sin(x[i]) + exp(-x[i]);
}

// 2. 1D stencil with three neighbours.
__global__ void stencilKernel(int n, double a, double b, const double *x,
                              double *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0 && i < n - 1)
    y[i] = a * x[i - 1] * x[i] + b * x[i + 1] * x[i + 1] - x[i];
}

// 3. A scalar parameter broadcast to every element.
__global__ void broadcastKernel(int n, double val, const double *x,
                                double *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = val * x[i] + val * val;
}

// 4. An energy summed over the elements.
__global__ void energyKernel(int n, const double *x, double *E) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    double xi = x[i];
    double e = log(1.0 + xi * xi) + 0.5 * xi * xi;
    atomicAdd(&E[0], e);
  }
}

// 5. Gaussian splats blended into an image: every pixel reads every splat's
// parameters (uniform addresses).
__global__ void splatKernel(int W, int H, int K, const double *p,
                            double *img) {
  int px = blockIdx.x * blockDim.x + threadIdx.x;
  int py = blockIdx.y * blockDim.y + threadIdx.y;
  if (px < W && py < H) {
    double acc = 0.0;
    for (int k = 0; k < K; ++k) {
      double dx = px - p[5 * k];
      double dy = py - p[5 * k + 1];
      double s = p[5 * k + 2];
      double w = p[5 * k + 3] * exp(-0.5 * s * s * (dx * dx + dy * dy));
      acc += w * p[5 * k + 4];
    }
    img[py * W + px] = acc;
  }
}

// 6. Spring energy of a mesh, one thread per edge (gathers from vertices).
__global__ void springKernel(int nEdges, const int *edges, const double *rest,
                             const double *x, double *E) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < nEdges) {
    int a = edges[2 * k], b = edges[2 * k + 1];
    double dx = x[3 * a] - x[3 * b];
    double dy = x[3 * a + 1] - x[3 * b + 1];
    double dz = x[3 * a + 2] - x[3 * b + 2];
    double stretch = sqrt(dx * dx + dy * dy + dz * dz) - rest[k];
    atomicAdd(&E[0], 0.5 * stretch * stretch);
  }
}

namespace {

/// Compiled with -DMESHAD_BENCH_KEEP_SEEDS: the output seeds are only read
/// (meshad::KeepSeeds), as in the hand-written gradients.
#if defined(MESHAD_BENCH_KEEP_SEEDS)
constexpr meshad::GradientOption Seeds = meshad::KeepSeeds;
#else
constexpr meshad::GradientOption Seeds = meshad::ResetSeeds;
#endif

dim3 grid1D(int N) { return dim3((N + BlockSize1D - 1) / BlockSize1D); }

void mapGradient(const MapArgs &A) {
  meshad::gradient(mapKernel, "x, y", Seeds)
      .execute_kernel(grid1D(A.N), dim3(BlockSize1D), A.N, A.X, A.Y, A.DX,
                      A.DY);
}

void stencilGradient(const StencilArgs &A) {
  meshad::gradient(stencilKernel, "x, y", Seeds)
      .execute_kernel(grid1D(A.N), dim3(BlockSize1D), A.N, A.A, A.B, A.X,
                      A.Y, A.DX, A.DY);
}

void broadcastGradient(const BroadcastArgs &A) {
  meshad::gradient(broadcastKernel, "val, x, y", Seeds)
      .execute_kernel(grid1D(A.N), dim3(BlockSize1D), A.N, A.Val, A.X, A.Y,
                      A.DVal, A.DX, A.DY);
}

void energyGradient(const EnergyArgs &A) {
  meshad::gradient(energyKernel, "x, E", Seeds)
      .execute_kernel(grid1D(A.N), dim3(BlockSize1D), A.N, A.X, A.E, A.DX,
                      A.DE);
}

void splatGradient(const SplatArgs &A) {
  dim3 Block(SplatTile, SplatTile);
  dim3 Grid((A.W + SplatTile - 1) / SplatTile,
            (A.H + SplatTile - 1) / SplatTile);
  meshad::gradient(splatKernel, "p, img", Seeds)
      .execute_kernel(Grid, Block, A.W, A.H, A.K, A.P, A.Img, A.DP, A.DImg);
}

void springGradient(const SpringArgs &A) {
  meshad::gradient(springKernel, "x, E", Seeds)
      .execute_kernel(grid1D(A.NEdges), dim3(BlockSize1D), A.NEdges, A.Edges,
                      A.Rest, A.X, A.E, A.DX, A.DE);
}

#if !defined(MESHAD_BENCH_ATOMICS_ALL) && !defined(MESHAD_BENCH_KEEP_SEEDS)
// Each request names its strategy as a constant (the plugin reads it).
void springGather(const SpringArgs &A) {
  meshad::gradient(springKernel, "x, E", meshad::ElementStrategy::Gather)
      .execute_kernel(grid1D(A.NEdges), dim3(BlockSize1D), A.NEdges, A.Edges,
                      A.Rest, A.X, A.E, A.DX, A.DE);
}

void springTwoPhase(const SpringArgs &A) {
  meshad::gradient(springKernel, "x, E", meshad::ElementStrategy::TwoPhase)
      .execute_kernel(grid1D(A.NEdges), dim3(BlockSize1D), A.NEdges, A.Edges,
                      A.Rest, A.X, A.E, A.DX, A.DE);
}

void springAtomics(const SpringArgs &A) {
  meshad::gradient(springKernel, "x, E", meshad::ElementStrategy::Atomics)
      .execute_kernel(grid1D(A.NEdges), dim3(BlockSize1D), A.NEdges, A.Edges,
                      A.Rest, A.X, A.E, A.DX, A.DE);
}
#endif

} // namespace

#if !defined(MESHAD_BENCH_ATOMICS_ALL) && !defined(MESHAD_BENCH_KEEP_SEEDS)
const std::vector<SpringStrategy> &springStrategies() {
  static const std::vector<SpringStrategy> All = {
      {"Auto", springGradient},
      {"Gather", springGather},
      {"TwoPhase", springTwoPhase},
      {"Atomics", springAtomics}};
  return All;
}

void springConnectivityChanged() {
  meshad::gradient(springKernel, "x, E", Seeds).connectivity_changed();
  meshad::gradient(springKernel, "x, E", meshad::ElementStrategy::Gather)
      .connectivity_changed();
  meshad::gradient(springKernel, "x, E", meshad::ElementStrategy::TwoPhase)
      .connectivity_changed();
}
#endif

const GradientSet &gradients() {
  static const GradientSet Set = {
#if defined(MESHAD_BENCH_ATOMICS_ALL) && defined(MESHAD_BENCH_KEEP_SEEDS)
      "atomics keep",
#elif defined(MESHAD_BENCH_ATOMICS_ALL)
      "all-atomics",
#elif defined(MESHAD_BENCH_KEEP_SEEDS)
      "meshad keep",
#else
      "meshad",
#endif
      mapGradient,  stencilGradient, broadcastGradient,
      energyGradient, splatGradient, springGradient};
  return Set;
}

} // namespace MESHAD_BENCH_NS
