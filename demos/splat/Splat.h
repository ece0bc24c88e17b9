//===- demos/splat/Splat.h - Tile-sorted 2D Gaussian splatting --*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The user's forward rasterizer of 2D Gaussians, plain CUDA + Thrust, no
/// meshad in it (gsplat's structure, in 2D):
///
/// 1. `boundGaussians`: each Gaussian's 3-sigma box in 16 x 16 tiles, from
///    its conic (inverse covariance, packed a, b, c);
/// 2. `emitKeys`: one key (tile << 32 | depth rank) per tile it touches,
///    with the Gaussian's id; `thrust::sort_by_key` sorts them;
/// 3. `tileRanges`: each tile's range [begin, end) in the sorted list;
/// 4. `renderTiles`: one thread per pixel blends its tile's list front to
///    back, `T *= 1 - alpha`, alpha = min(0.99, opacity exp(power)) as
///    gsplat clamps it, Gaussians below alpha 1/255 skipped, and stops when
///    the transmittance would fall below 1e-4 (early termination). It also
///    stores the final T and the number of list entries it walked, which
///    the hand-written backward replays from.
///
/// Layouts (flat arrays): means[2 g], conics[3 g] (a, b, c: power =
/// -0.5 (a dx^2 + c dy^2) - b dx dy), colours[3 g], opacities[g],
/// image[3 (y W + x)] (RGB). `Real` is `SPLAT_REAL` (double by default).
///
/// \code
///   SplatScene<double> S = ...;                    // host arrays
///   SplatLists L = binGaussians(W, H, N, dMeans, dConics, dDepths);
///   MESHAD_LAUNCH(renderTiles, tileGrid(W, H), dim3(16, 16))(W, H, L.Ranges,
///       L.Ids, dMeans, dConics, dColours, dOpacities, dImage, dFinalT, dLast);
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_DEMOS_SPLAT_SPLAT_H
#define MESHAD_DEMOS_SPLAT_SPLAT_H

#include <cmath>
#include <vector>

// MESHAD_LAUNCH: `kernel<<<...>>>`, or a launch on the CPU emulation.
#include <meshad/cpu/Portable.h>

#if !defined(MESHAD_CPU_CUDA)
#include <thrust/device_ptr.h>
#include <thrust/execution_policy.h>
#include <thrust/sort.h>
#else
#include <algorithm>
#include <numeric>
#endif

#ifndef SPLAT_REAL
#define SPLAT_REAL double
#endif
typedef SPLAT_REAL Real;

/// Side of a tile in pixels; blocks of renderTiles are SplatTile^2 threads.
#define SplatTile 16

/// One thread per pixel of a 16 x 16 tile (block (bx, by) is the tile).
/// \p ranges: [begin, end) of each tile in \p ids (the sorted Gaussians).
/// Writes the pixel's colour, its final transmittance and the number of
/// list entries it walked (the backward starts there).
__global__ void renderTiles(int width, int height, const int *ranges,
                            const int *ids, const Real *means,
                            const Real *conics, const Real *colours,
                            const Real *opacities, Real *image, Real *finalT,
                            int *walked) {
  int px = blockIdx.x * SplatTile + threadIdx.x;
  int py = blockIdx.y * SplatTile + threadIdx.y;
  if (px >= width || py >= height)
    return;
  int tile = blockIdx.y * gridDim.x + blockIdx.x;
  int begin = ranges[2 * tile];
  int end = ranges[2 * tile + 1];
  Real T = 1;
  Real r = 0, g = 0, b = 0;
  int stop = end;
  for (int k = begin; k < end; ++k) {
    int id = ids[k];
    Real dx = means[2 * id] - px;
    Real dy = means[2 * id + 1] - py;
    Real power = (Real)-0.5 * (conics[3 * id] * dx * dx +
                               conics[3 * id + 2] * dy * dy) -
                 conics[3 * id + 1] * dx * dy;
    if (power > 0)
      continue;
    Real alpha = fmin((Real)0.99, opacities[id] * exp(power));
    if (alpha < (Real)(1.0 / 255))
      continue;
    Real nextT = T * (1 - alpha);
    if (nextT < (Real)1e-4) {
      stop = k;
      break;
    }
    Real weight = alpha * T;
    r += colours[3 * id] * weight;
    g += colours[3 * id + 1] * weight;
    b += colours[3 * id + 2] * weight;
    T = nextT;
  }
  int pix = py * width + px;
  image[3 * pix] = r;
  image[3 * pix + 1] = g;
  image[3 * pix + 2] = b;
  finalT[pix] = T;
  walked[pix] = stop - begin;
}

#ifndef SPLAT_RENDER_ONLY

/// The grid of renderTiles: one block per tile.
inline dim3 tileGrid(int Width, int Height) {
  return dim3((Width + SplatTile - 1) / SplatTile,
              (Height + SplatTile - 1) / SplatTile);
}

/// Each Gaussian's tile box [x0, x1) x [y0, y1) (its 3-sigma extent from
/// the conic: sigma_x^2 = c / det, sigma_y^2 = a / det) and the number of
/// tiles it touches; 0 for a degenerate conic or a box off the image.
__global__ void boundGaussians(int n, int tilesX, int tilesY,
                               const Real *means, const Real *conics,
                               int *boxes, int *counts) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  Real a = conics[3 * i], b = conics[3 * i + 1], c = conics[3 * i + 2];
  Real det = a * c - b * b;
  int x0 = 0, x1 = 0, y0 = 0, y1 = 0;
  if (det > 0 && a > 0) {
    Real rx = 3 * sqrt(c / det), ry = 3 * sqrt(a / det);
    x0 = max(0, (int)floor((means[2 * i] - rx) / SplatTile));
    x1 = min(tilesX, (int)floor((means[2 * i] + rx) / SplatTile) + 1);
    y0 = max(0, (int)floor((means[2 * i + 1] - ry) / SplatTile));
    y1 = min(tilesY, (int)floor((means[2 * i + 1] + ry) / SplatTile) + 1);
  }
  int Count = x1 > x0 && y1 > y0 ? (x1 - x0) * (y1 - y0) : 0;
  boxes[4 * i] = x0, boxes[4 * i + 1] = x1;
  boxes[4 * i + 2] = y0, boxes[4 * i + 3] = y1;
  counts[i] = Count;
}

/// The keys (tile << 32 | depth rank) and ids of Gaussian i's tiles, at
/// offsets[i] (the exclusive scan of the counts). The depth rank is the
/// Gaussian's index in the depth order (\p depthRank).
__global__ void emitKeys(int n, int tilesX, const int *boxes,
                         const int *offsets, const int *depthRank,
                         unsigned long long *keys, int *ids) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  int o = offsets[i];
  for (int ty = boxes[4 * i + 2]; ty < boxes[4 * i + 3]; ++ty)
    for (int tx = boxes[4 * i]; tx < boxes[4 * i + 1]; ++tx) {
      unsigned long long Tile = (unsigned long long)(ty * tilesX + tx);
      keys[o] = Tile << 32 | (unsigned)depthRank[i];
      ids[o++] = i;
    }
}

/// ranges[2 t] and ranges[2 t + 1]: where tile t's keys begin and end in
/// the sorted keys (the ranges must be zeroed first: empty tiles stay [0, 0)).
__global__ void tileRanges(int m, const unsigned long long *keys,
                           int *ranges) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= m)
    return;
  int Tile = (int)(keys[k] >> 32);
  if (k == 0 || (int)(keys[k - 1] >> 32) != Tile)
    ranges[2 * Tile] = k;
  if (k == m - 1 || (int)(keys[k + 1] >> 32) != Tile)
    ranges[2 * Tile + 1] = k + 1;
}

/// Sorts the (tile, depth) keys with their ids: thrust::sort_by_key on the
/// GPU; the CPU emulation (no Thrust backend for it) sorts on the host.
inline void sortByKey(unsigned long long *Keys, int *Ids, int M) {
#if !defined(MESHAD_CPU_CUDA)
  thrust::sort_by_key(thrust::device, Keys, Keys + M, Ids);
#else
  std::vector<int> Order(M);
  std::iota(Order.begin(), Order.end(), 0);
  std::stable_sort(Order.begin(), Order.end(),
                   [&](int A, int B) { return Keys[A] < Keys[B]; });
  std::vector<unsigned long long> K(M);
  std::vector<int> V(M);
  for (int I = 0; I < M; ++I)
    K[I] = Keys[Order[I]], V[I] = Ids[Order[I]];
  std::copy(K.begin(), K.end(), Keys);
  std::copy(V.begin(), V.end(), Ids);
#endif
}

/// The per-tile sorted lists of a scene on the device.
struct SplatLists {
  int NumTiles = 0, NumEntries = 0;
  int *Ranges = nullptr; ///< 2 per tile
  int *Ids = nullptr;    ///< NumEntries, sorted by (tile, depth)
  void release() {
    cudaFree(Ranges);
    cudaFree(Ids);
    Ranges = Ids = nullptr;
  }
};

/// Bins N Gaussians (device arrays) into the tiles of a Width x Height
/// image; \p DepthRank[i] (host) orders them front to back.
inline SplatLists binGaussians(int Width, int Height, int N,
                               const Real *Means, const Real *Conics,
                               const std::vector<int> &DepthRank) {
  dim3 Grid = tileGrid(Width, Height);
  SplatLists L;
  L.NumTiles = Grid.x * Grid.y;
  int *Boxes, *Counts, *Offsets, *Rank;
  cudaMalloc(&Boxes, 4 * N * sizeof(int));
  cudaMalloc(&Counts, N * sizeof(int));
  cudaMalloc(&Offsets, N * sizeof(int));
  cudaMalloc(&Rank, N * sizeof(int));
  cudaMemcpy(Rank, DepthRank.data(), N * sizeof(int), cudaMemcpyHostToDevice);
  int Threads = 256, Blocks = (N + Threads - 1) / Threads;
  MESHAD_LAUNCH(boundGaussians, Blocks, Threads)
  (N, Grid.x, Grid.y, Means, Conics, Boxes, Counts);
  std::vector<int> C(N), O(N);
  cudaMemcpy(C.data(), Counts, N * sizeof(int), cudaMemcpyDeviceToHost);
  for (int I = 0, Sum = 0; I < N; Sum += C[I], ++I)
    O[I] = Sum;
  L.NumEntries = N ? O[N - 1] + C[N - 1] : 0;
  cudaMemcpy(Offsets, O.data(), N * sizeof(int), cudaMemcpyHostToDevice);
  unsigned long long *Keys;
  cudaMalloc(&Keys, (L.NumEntries + 1) * sizeof(unsigned long long));
  cudaMalloc(&L.Ids, (L.NumEntries + 1) * sizeof(int));
  cudaMalloc(&L.Ranges, 2 * L.NumTiles * sizeof(int));
  cudaMemset(L.Ranges, 0, 2 * L.NumTiles * sizeof(int));
  MESHAD_LAUNCH(emitKeys, Blocks, Threads)
  (N, Grid.x, Boxes, Offsets, Rank, Keys, L.Ids);
  cudaDeviceSynchronize();
  sortByKey(Keys, L.Ids, L.NumEntries);
  if (L.NumEntries)
    MESHAD_LAUNCH(tileRanges, (L.NumEntries + Threads - 1) / Threads, Threads)
    (L.NumEntries, Keys, L.Ranges);
  cudaDeviceSynchronize();
  cudaFree(Keys);
  cudaFree(Boxes);
  cudaFree(Counts);
  cudaFree(Offsets);
  cudaFree(Rank);
  return L;
}

#endif // SPLAT_RENDER_ONLY

#endif // MESHAD_DEMOS_SPLAT_SPLAT_H
