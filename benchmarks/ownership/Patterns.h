//===- benchmarks/ownership/Patterns.h - Gradient launchers -----*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The interface between the benchmark harness (main.cu) and the three
/// implementations of each pattern's gradient kernel:
///   bench_atomics  meshad with every adjoint store atomic (patterns.cu
///                  compiled with -fplugin-arg-meshad-atomics=all),
///   bench_meshad   meshad with its ownership decisions (patterns.cu),
///   bench_hand     hand-written gradients (handwritten.cu).
/// Each launcher enqueues exactly the gradient kernel(s) on the default
/// stream: no allocation, no memset, no synchronisation, so that the harness
/// can time it with CUDA events.
///
/// All buffers are device memory. Adjoints follow meshad's convention: they
/// accumulate (+=) into the input adjoints, and an output array's adjoint is
/// its seed on entry (meshad's kernels leave the adjoint of the output's
/// initial contents in it: zero for overwritten outputs).
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_BENCHMARKS_OWNERSHIP_PATTERNS_H
#define MESHAD_BENCHMARKS_OWNERSHIP_PATTERNS_H

#include <vector>

/// 1. Elementwise map y[i] = x[i] sin x[i] + exp(-x[i]), i < N.
struct MapArgs {
  int N;
  const double *X;
  double *Y, *DX, *DY;
};

/// 2. Stencil y[i] = A x[i-1] x[i] + B x[i+1]^2 - x[i], 0 < i < N-1.
struct StencilArgs {
  int N;
  double A, B;
  const double *X;
  double *Y, *DX, *DY;
};

/// 3. Scalar broadcast y[i] = Val x[i] + Val^2; gradient w.r.t. Val and x.
struct BroadcastArgs {
  int N;
  double Val;
  const double *X;
  double *Y, *DVal, *DX, *DY;
};

/// 4. Energy sum E += log(1 + x[i]^2) + x[i]^2 / 2 (atomicAdd); seed DE[0].
struct EnergyArgs {
  int N;
  const double *X;
  double *E, *DX, *DE;
};

/// 5. Gaussian splat blend on a W x H image with K splats
///    P[5k..5k+4] = (centre x, centre y, inverse scale, opacity, colour):
///    img[py W + px] = sum_k o_k exp(-s_k^2 |(px,py) - c_k|^2 / 2) colour_k.
struct SplatArgs {
  int W, H, K;
  const double *P;
  double *Img, *DP, *DImg;
};

/// 6. Spring energy of a mesh: E += (|x_a - x_b| - Rest[k])^2 / 2 for edge k
///    = (Edges[2k], Edges[2k+1]) over 3D positions X[3v + c]; seed DE[0].
///    VertexOffsets/VertexEdges: the incidence lists (CSR: the edges of
///    vertex v are VertexEdges[VertexOffsets[v] .. VertexOffsets[v+1]))
///    for gathering gradients; meshad's kernels do not use them.
struct SpringArgs {
  int NEdges, NVertices;
  const int *Edges;
  const double *Rest, *X;
  double *E, *DX, *DE;
  const int *VertexOffsets, *VertexEdges;
};

/// One implementation of the six gradients.
struct GradientSet {
  const char *Name;
  void (*Map)(const MapArgs &);
  void (*Stencil)(const StencilArgs &);
  void (*Broadcast)(const BroadcastArgs &);
  void (*Energy)(const EnergyArgs &);
  void (*Splat)(const SplatArgs &);
  void (*Spring)(const SpringArgs &);
};

/// Pattern 6's gradient with one meshad::ElementStrategy asked explicitly
/// (issue 11): which strategy wins depends on the order of the mesh's
/// vertices and edges, which the compile-time cost model cannot see.
struct SpringStrategy {
  const char *Name;
  void (*Spring)(const SpringArgs &);
};

namespace bench_atomics {
const GradientSet &gradients();
} // namespace bench_atomics
namespace bench_meshad {
const GradientSet &gradients();
/// Auto, Gather, TwoPhase, Atomics (meshad's decisions otherwise).
const std::vector<SpringStrategy> &springStrategies();
/// Tells their handles that the mesh changed (a new edge array of the same
/// size is not noticed otherwise: meshad::ElementGradient).
void springConnectivityChanged();
} // namespace bench_meshad
namespace bench_atomics_keep {
const GradientSet &gradients();
} // namespace bench_atomics_keep
namespace bench_meshad_keep {
const GradientSet &gradients();
} // namespace bench_meshad_keep
namespace bench_hand {
const GradientSet &gradients();
} // namespace bench_hand

/// Threads per block of the 1D launches (patterns 1-4 and 6).
constexpr int BlockSize1D = 256;
/// Side of the 2D blocks of the splat (16 x 16 threads).
constexpr int SplatTile = 16;

#endif // MESHAD_BENCHMARKS_OWNERSHIP_PATTERNS_H
