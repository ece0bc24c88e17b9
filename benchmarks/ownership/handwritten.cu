//===- benchmarks/ownership/handwritten.cu - Expert gradient kernels ------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
//
// The gradients of the six benchmark patterns as an expert would write them
// by hand, the baseline for meshad's generated kernels:
// - gathers instead of scatters: each thread owns its output element and
//   reads the seeds it needs (stencil: its neighbours' seeds; mesh: the
//   edges incident to its vertex, through CSR incidence lists built once);
// - a uniform adjoint (a scalar parameter, the splat parameters) is summed
//   in registers, reduced with warp shuffles and per block, then added with
//   one atomicAdd per block;
// - only the gradient is computed: no forward sweep writing the primal's
//   outputs and no zeroing of the output seeds (meshad's kernels do both).
// Compiled without the meshad plugin. Builds as CUDA and under the
// CUDA-on-CPU emulation (meshad/cpu/CudaOnCpu.h).
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"

#if defined(__CUDACC__)
#include <cuda_runtime.h>
#endif
#include <meshad/cpu/Portable.h>

#include <algorithm>
#include <cmath>

namespace bench_hand {
namespace {

constexpr unsigned FullMask = 0xffffffffu;
constexpr int WarpsPerBlock1D = BlockSize1D / 32;
constexpr int SplatThreads = SplatTile * SplatTile;
constexpr int SplatWarps = SplatThreads / 32;
/// Image rows each splat thread handles (amortises the shuffles over
/// several pixels): a block covers SplatTile x (SplatTile * SplatRows).
constexpr int SplatRows = 8;

/// Sums \p V over the 32 lanes of a full warp; every lane gets the total.
__device__ inline double warpSum(double V) {
  for (int Offset = 16; Offset > 0; Offset /= 2)
    V += __shfl_xor_sync(FullMask, V, Offset);
  return V;
}

/// Adds the sum of \p V over the (full, 1D, BlockSize1D-thread) block to
/// \p *Target with one atomicAdd. Every thread of the block calls it.
__device__ inline void blockSumAtomicAdd(double *Target, double V) {
  __shared__ double Partials[WarpsPerBlock1D];
  unsigned Lane = threadIdx.x % 32, Warp = threadIdx.x / 32;
  V = warpSum(V);
  if (Lane == 0)
    Partials[Warp] = V;
  __syncthreads();
  if (Warp == 0) {
    V = Lane < WarpsPerBlock1D ? Partials[Lane] : 0.0;
    V = warpSum(V);
    if (Lane == 0)
      atomicAdd(Target, V);
  }
}

// 1. y = x sin x + exp(-x): dx += dy (sin x + x cos x - exp(-x)).
__global__ void mapGradKernel(int n, const double *x, const double *dy,
                              double *dx) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    double xi = x[i];
    dx[i] += dy[i] * (sin(xi) + xi * cos(xi) - exp(-xi));
  }
}

// 2. y[i] = a x[i-1] x[i] + b x[i+1]^2 - x[i] for 0 < i < n-1: x[i] gathers
// from y[i] (as the centre), y[i+1] (as its left neighbour) and y[i-1] (as
// its right neighbour).
__global__ void stencilGradKernel(int n, double a, double b, const double *x,
                                  const double *dy, double *dx) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  double Acc = 0.0;
  if (i >= 1 && i <= n - 2)
    Acc += (a * x[i - 1] - 1.0) * dy[i];
  if (i + 1 <= n - 2)
    Acc += a * x[i + 1] * dy[i + 1];
  if (i - 1 >= 1)
    Acc += 2.0 * b * x[i] * dy[i - 1];
  dx[i] += Acc;
}

// 3. y = val x + val^2: dx += val dy; dval += sum (x + 2 val) dy.
__global__ void broadcastGradKernel(int n, double val, const double *x,
                                    const double *dy, double *dval,
                                    double *dx) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  double Part = 0.0;
  if (i < n) {
    double G = dy[i];
    dx[i] += val * G;
    Part = (x[i] + 2.0 * val) * G;
  }
  blockSumAtomicAdd(dval, Part);
}

// 4. E += log(1 + x^2) + x^2 / 2: dx += dE (2x / (1 + x^2) + x).
__global__ void energyGradKernel(int n, const double *x, const double *dE,
                                 double *dx) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    double xi = x[i];
    dx[i] += dE[0] * (2.0 * xi / (1.0 + xi * xi) + xi);
  }
}

// 5. Splats. A persistent grid of 16x16-thread blocks walks over image tiles
// of 16 x 128 pixels; for each splat a thread sums its pixels' contributions
// in registers, the warp sums them with shuffles, lane 0 adds them to the
// warp's row of shared memory (no atomics: one writer per row); at the end
// the block sums the rows and adds them with one atomicAdd per parameter.
__global__ void __launch_bounds__(SplatThreads)
    splatGradKernel(int W, int H, int K, const double *p, const double *dimg,
                    double *dp) {
  MESHAD_DYNAMIC_SHARED(double, Rows); // [SplatWarps][5 K]
  const int Tid = threadIdx.y * SplatTile + threadIdx.x;
  const int Lane = Tid % 32, Warp = Tid / 32, P = 5 * K;
  for (int J = Tid; J < SplatWarps * P; J += SplatThreads)
    Rows[J] = 0.0;
  __syncthreads();
  const int TilesX = (W + SplatTile - 1) / SplatTile;
  const int TileH = SplatTile * SplatRows;
  const int Tiles = TilesX * ((H + TileH - 1) / TileH);
  for (int T = blockIdx.x; T < Tiles; T += gridDim.x) {
    const int Px = (T % TilesX) * SplatTile + threadIdx.x;
    const int Py0 = (T / TilesX) * TileH + threadIdx.y;
    double Seed[SplatRows];
    for (int R = 0; R < SplatRows; ++R) {
      int Py = Py0 + R * SplatTile;
      Seed[R] = Px < W && Py < H ? dimg[Py * W + Px] : 0.0;
    }
    for (int k = 0; k < K; ++k) {
      const double Cx = p[5 * k], Cy = p[5 * k + 1], S = p[5 * k + 2],
                   O = p[5 * k + 3], C = p[5 * k + 4];
      double GCx = 0, GCy = 0, GS = 0, GO = 0, GC = 0;
      const double Dx = Px - Cx, S2 = S * S;
      for (int R = 0; R < SplatRows; ++R) {
        double Dy = Py0 + R * SplatTile - Cy;
        double R2 = Dx * Dx + Dy * Dy;
        double G = exp(-0.5 * S2 * R2);
        double Gw = Seed[R] * G;   // dimg * exp(...)
        double Gwoc = Gw * O * C;  // dimg * w * colour
        GC += Gw * O;
        GO += Gw * C;
        GS -= Gwoc * S * R2;
        GCx += Gwoc * S2 * Dx;
        GCy += Gwoc * S2 * Dy;
      }
      GCx = warpSum(GCx);
      GCy = warpSum(GCy);
      GS = warpSum(GS);
      GO = warpSum(GO);
      GC = warpSum(GC);
      if (Lane == 0) {
        double *Row = Rows + Warp * P + 5 * k;
        Row[0] += GCx;
        Row[1] += GCy;
        Row[2] += GS;
        Row[3] += GO;
        Row[4] += GC;
      }
    }
  }
  __syncthreads();
  for (int J = Tid; J < P; J += SplatThreads) {
    double Sum = 0.0;
    for (int Wp = 0; Wp < SplatWarps; ++Wp)
      Sum += Rows[Wp * P + J];
    atomicAdd(&dp[J], Sum);
  }
}

// 6. Springs, one thread per vertex: it walks the edges incident to its
// vertex (CSR), recomputes each edge's force and adds it with its side's
// sign; every edge is thus evaluated twice, and no atomics are needed.
__global__ void springGradKernel(int nVertices, const int *offsets,
                                 const int *incident, const int *edges,
                                 const double *rest, const double *x,
                                 const double *dE, double *dx) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= nVertices)
    return;
  const double Seed = dE[0];
  double G0 = 0, G1 = 0, G2 = 0;
  for (int J = offsets[v]; J < offsets[v + 1]; ++J) {
    int Entry = incident[J];
    int k = Entry >> 1;
    int a = edges[2 * k], b = edges[2 * k + 1];
    double D0 = x[3 * a] - x[3 * b];
    double D1 = x[3 * a + 1] - x[3 * b + 1];
    double D2 = x[3 * a + 2] - x[3 * b + 2];
    double Len = sqrt(D0 * D0 + D1 * D1 + D2 * D2);
    // dE/dx_a = (Len - rest) / Len * (x_a - x_b); dE/dx_b = -dE/dx_a.
    double F = Seed * (Len - rest[k]) / Len;
    if (Entry & 1)
      F = -F;
    G0 += F * D0;
    G1 += F * D1;
    G2 += F * D2;
  }
  dx[3 * v] += G0;
  dx[3 * v + 1] += G1;
  dx[3 * v + 2] += G2;
}

dim3 grid1D(int N) { return dim3((N + BlockSize1D - 1) / BlockSize1D); }

void mapGradient(const MapArgs &A) {
  MESHAD_LAUNCH(mapGradKernel, grid1D(A.N), dim3(BlockSize1D))(A.N, A.X, A.DY,
                                                              A.DX);
}

void stencilGradient(const StencilArgs &A) {
  MESHAD_LAUNCH(stencilGradKernel, grid1D(A.N), dim3(BlockSize1D))(
      A.N, A.A, A.B, A.X, A.DY, A.DX);
}

void broadcastGradient(const BroadcastArgs &A) {
  MESHAD_LAUNCH(broadcastGradKernel, grid1D(A.N), dim3(BlockSize1D))(
      A.N, A.Val, A.X, A.DY, A.DVal, A.DX);
}

void energyGradient(const EnergyArgs &A) {
  MESHAD_LAUNCH(energyGradKernel, grid1D(A.N), dim3(BlockSize1D))(A.N, A.X,
                                                                 A.DE, A.DX);
}

/// Blocks of the persistent splat grid: as many as fit on the device at
/// once (the tiles are spread evenly over them), at most one per tile.
int splatBlocks(int Tiles, size_t SharedBytes) {
  int Resident = 64;
#if !defined(MESHAD_CPU_CUDA)
  int Device = 0, Sms = 0, PerSm = 0;
  cudaGetDevice(&Device);
  cudaDeviceGetAttribute(&Sms, cudaDevAttrMultiProcessorCount, Device);
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&PerSm, splatGradKernel,
                                                SplatThreads, SharedBytes);
  Resident = std::max(1, Sms * PerSm);
#endif
  return std::min(Tiles, Resident);
}

void splatGradient(const SplatArgs &A) {
  size_t SharedBytes = sizeof(double) * SplatWarps * 5 * A.K;
  static size_t Configured = 0;
  if (SharedBytes > Configured) {
    cudaFuncSetAttribute(splatGradKernel,
                         cudaFuncAttributeMaxDynamicSharedMemorySize,
                         static_cast<int>(SharedBytes));
    Configured = SharedBytes;
  }
  int TileH = SplatTile * SplatRows;
  int Tiles = ((A.W + SplatTile - 1) / SplatTile) * ((A.H + TileH - 1) / TileH);
  // The occupancy query once per problem shape, outside the timed runs.
  static int Blocks = 0, BlocksForTiles = -1;
  static size_t BlocksForShared = 0;
  if (BlocksForTiles != Tiles || BlocksForShared != SharedBytes) {
    Blocks = splatBlocks(Tiles, SharedBytes);
    BlocksForTiles = Tiles;
    BlocksForShared = SharedBytes;
  }
  MESHAD_LAUNCH(splatGradKernel, dim3(Blocks), dim3(SplatTile, SplatTile),
                SharedBytes, 0)(A.W, A.H, A.K, A.P, A.DImg, A.DP);
}

void springGradient(const SpringArgs &A) {
  MESHAD_LAUNCH(springGradKernel, grid1D(A.NVertices), dim3(BlockSize1D))(
      A.NVertices, A.VertexOffsets, A.VertexEdges, A.Edges, A.Rest, A.X, A.DE,
      A.DX);
}

} // namespace

const GradientSet &gradients() {
  static const GradientSet Set = {"hand-written",    mapGradient,
                                  stencilGradient,   broadcastGradient,
                                  energyGradient,    splatGradient,
                                  springGradient};
  return Set;
}

} // namespace bench_hand
