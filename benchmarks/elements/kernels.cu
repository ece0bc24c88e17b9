//===- benchmarks/elements/kernels.cu - Element kernels, meshad's gradients ===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The element kernels as a user writes them (one thread per element, the
/// element's vertices read through the index array, the energy added to E[0]
/// with atomicAdd; the formulas of Energies.h written out), and their
/// gradients with respect to the positions by meshad::gradient(kernel,
/// "x, E"). The only file of the benchmark compiled with the plugin.
///
//===----------------------------------------------------------------------===//

#include "Elements.h"

#include <meshad/Differentiator.h>

#include <cstdio>
#include <string>

namespace elements {
#if defined(ELEMENTS_BASELINE)
// The same kernels compiled again with -fplugin-arg-meshad-element-baseline
// (scripts/gpu/elements-bench.sh): their two-phase gradients zero and add to
// the slots, their gathers recompute the whole local gradient per vertex.
namespace baseline {
#endif

__global__ void springKernel(int nEdges, const int *edges, const double *rest,
                             const double *x, double *E) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < nEdges) {
    int a = edges[2 * t], b = edges[2 * t + 1];
    double dx = x[3 * a] - x[3 * b];
    double dy = x[3 * a + 1] - x[3 * b + 1];
    double dz = x[3 * a + 2] - x[3 * b + 2];
    double stretch = sqrt(dx * dx + dy * dy + dz * dz) - rest[t];
    atomicAdd(&E[0], 0.5 * stretch * stretch);
  }
}

__global__ void dirichletKernel(int nTris, const int *tris,
                                const double *restInv, const double *area,
                                const double *x, double *E) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < nTris) {
    int a = tris[3 * t], b = tris[3 * t + 1], c = tris[3 * t + 2];
    const double *m = restInv + 4 * t;
    double e1x = x[3 * b] - x[3 * a], e2x = x[3 * c] - x[3 * a];
    double e1y = x[3 * b + 1] - x[3 * a + 1], e2y = x[3 * c + 1] - x[3 * a + 1];
    double e1z = x[3 * b + 2] - x[3 * a + 2], e2z = x[3 * c + 2] - x[3 * a + 2];
    double j0x = e1x * m[0] + e2x * m[2], j1x = e1x * m[1] + e2x * m[3];
    double j0y = e1y * m[0] + e2y * m[2], j1y = e1y * m[1] + e2y * m[3];
    double j0z = e1z * m[0] + e2z * m[2], j1z = e1z * m[1] + e2z * m[3];
    double g00 = j0x * j0x + j0y * j0y + j0z * j0z;
    double g01 = j0x * j1x + j0y * j1y + j0z * j1z;
    double g11 = j1x * j1x + j1y * j1y + j1z * j1z;
    double tr = g00 + g11;
    double det = g00 * g11 - g01 * g01;
    atomicAdd(&E[0], area[t] * tr * (1.0 + 1.0 / det));
  }
}

__global__ void neoHookeanKernel(int nTets, const int *tets,
                                 const double *restInv, const double *volume,
                                 const double *x, double *E) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < nTets) {
    int i0 = tets[4 * t], i1 = tets[4 * t + 1];
    int i2 = tets[4 * t + 2], i3 = tets[4 * t + 3];
    const double *m = restInv + 9 * t;
    double d0x = x[3 * i1] - x[3 * i0], d1x = x[3 * i2] - x[3 * i0],
           d2x = x[3 * i3] - x[3 * i0];
    double d0y = x[3 * i1 + 1] - x[3 * i0 + 1],
           d1y = x[3 * i2 + 1] - x[3 * i0 + 1],
           d2y = x[3 * i3 + 1] - x[3 * i0 + 1];
    double d0z = x[3 * i1 + 2] - x[3 * i0 + 2],
           d1z = x[3 * i2 + 2] - x[3 * i0 + 2],
           d2z = x[3 * i3 + 2] - x[3 * i0 + 2];
    double f00 = d0x * m[0] + d1x * m[3] + d2x * m[6];
    double f01 = d0x * m[1] + d1x * m[4] + d2x * m[7];
    double f02 = d0x * m[2] + d1x * m[5] + d2x * m[8];
    double f10 = d0y * m[0] + d1y * m[3] + d2y * m[6];
    double f11 = d0y * m[1] + d1y * m[4] + d2y * m[7];
    double f12 = d0y * m[2] + d1y * m[5] + d2y * m[8];
    double f20 = d0z * m[0] + d1z * m[3] + d2z * m[6];
    double f21 = d0z * m[1] + d1z * m[4] + d2z * m[7];
    double f22 = d0z * m[2] + d1z * m[5] + d2z * m[8];
    double norm2 = f00 * f00 + f01 * f01 + f02 * f02 + f10 * f10 +
                   f11 * f11 + f12 * f12 + f20 * f20 + f21 * f21 + f22 * f22;
    double J = f00 * (f11 * f22 - f12 * f21) - f01 * (f10 * f22 - f12 * f20) +
               f02 * (f10 * f21 - f11 * f20);
    double logJ = log(J);
    atomicAdd(&E[0], volume[t] * (0.5 * NeoMu * (norm2 - 3.0) -
                                  NeoMu * logJ +
                                  0.5 * NeoLambda * logJ * logJ));
  }
}

void springEnergyLaunch(const Problem &P, const double *X, double *E) {
  MESHAD_LAUNCH(springKernel, grid1D(P.NumElements), dim3(BlockSize))(
      P.NumElements, P.Elements, P.Rest, X, E);
}
void dirichletEnergyLaunch(const Problem &P, const double *X, double *E) {
  MESHAD_LAUNCH(dirichletKernel, grid1D(P.NumElements), dim3(BlockSize))(
      P.NumElements, P.Elements, P.Rest, P.Measure, X, E);
}
void neoHookeanEnergyLaunch(const Problem &P, const double *X, double *E) {
  MESHAD_LAUNCH(neoHookeanKernel, grid1D(P.NumElements), dim3(BlockSize))(
      P.NumElements, P.Elements, P.Rest, P.Measure, X, E);
}

// The two-phase handles keep the incidence of the mesh they first saw:
// told here that a new problem (another mesh) starts.
void meshadMeshChanged() {
  meshad::gradient(springKernel, "x, E", meshad::KeepSeeds,
                   meshad::ElementStrategy::TwoPhase)
      .connectivity_changed();
  meshad::gradient(dirichletKernel, "x, E", meshad::KeepSeeds,
                   meshad::ElementStrategy::TwoPhase)
      .connectivity_changed();
  meshad::gradient(neoHookeanKernel, "x, E", meshad::KeepSeeds,
                   meshad::ElementStrategy::TwoPhase)
      .connectivity_changed();
  meshad::gradient(springKernel, "x, E", meshad::KeepSeeds,
                   meshad::ElementStrategy::Gather)
      .connectivity_changed();
  meshad::gradient(dirichletKernel, "x, E", meshad::KeepSeeds,
                   meshad::ElementStrategy::Gather)
      .connectivity_changed();
  meshad::gradient(neoHookeanKernel, "x, E", meshad::KeepSeeds,
                   meshad::ElementStrategy::Gather)
      .connectivity_changed();
  meshad::gradient(springKernel, "x, E", meshad::KeepSeeds)
      .connectivity_changed();
#if !defined(ELEMENTS_BASELINE)
  meshad::gradient(springKernel, "x, E", meshad::KeepSeeds,
                   meshad::ElementStrategy::Fastest)
      .connectivity_changed();
#endif
  meshad::gradient(dirichletKernel, "x, E", meshad::KeepSeeds)
      .connectivity_changed();
  meshad::gradient(neoHookeanKernel, "x, E", meshad::KeepSeeds)
      .connectivity_changed();
}

// Each gradient three times: two-phase slots (meshad::ElementStrategy::
// TwoPhase), gather by recomputation (Gather: a kernel over the vertices,
// launched by the handle with a shape of its own), and one atomicAdd per
// contribution (Atomics). The default (Auto, below) picks gather for the
// springs and the triangles, two-phase for the tets.
void springMeshadTwoPhase(const Problem &P, const double *X, double *E,
                          double *DX, double *DE) {
  meshad::gradient(springKernel, "x, E", meshad::KeepSeeds,
                   meshad::ElementStrategy::TwoPhase)
      .execute_kernel(grid1D(P.NumElements), dim3(BlockSize), P.NumElements,
                      P.Elements, P.Rest, X, E, DX, DE);
}
void springMeshadAtomics(const Problem &P, const double *X, double *E,
                         double *DX, double *DE) {
  meshad::gradient(springKernel, "x, E", meshad::KeepSeeds,
                   meshad::ElementStrategy::Atomics)
      .execute_kernel(grid1D(P.NumElements), dim3(BlockSize), P.NumElements,
                      P.Elements, P.Rest, X, E, DX, DE);
}
void dirichletMeshadTwoPhase(const Problem &P, const double *X, double *E,
                             double *DX, double *DE) {
  meshad::gradient(dirichletKernel, "x, E", meshad::KeepSeeds,
                   meshad::ElementStrategy::TwoPhase)
      .execute_kernel(grid1D(P.NumElements), dim3(BlockSize), P.NumElements,
                      P.Elements, P.Rest, P.Measure, X, E, DX, DE);
}
void dirichletMeshadAtomics(const Problem &P, const double *X, double *E,
                            double *DX, double *DE) {
  meshad::gradient(dirichletKernel, "x, E", meshad::KeepSeeds,
                   meshad::ElementStrategy::Atomics)
      .execute_kernel(grid1D(P.NumElements), dim3(BlockSize), P.NumElements,
                      P.Elements, P.Rest, P.Measure, X, E, DX, DE);
}
void neoHookeanMeshadTwoPhase(const Problem &P, const double *X, double *E,
                              double *DX, double *DE) {
  meshad::gradient(neoHookeanKernel, "x, E", meshad::KeepSeeds,
                   meshad::ElementStrategy::TwoPhase)
      .execute_kernel(grid1D(P.NumElements), dim3(BlockSize), P.NumElements,
                      P.Elements, P.Rest, P.Measure, X, E, DX, DE);
}
void neoHookeanMeshadAtomics(const Problem &P, const double *X, double *E,
                             double *DX, double *DE) {
  meshad::gradient(neoHookeanKernel, "x, E", meshad::KeepSeeds,
                   meshad::ElementStrategy::Atomics)
      .execute_kernel(grid1D(P.NumElements), dim3(BlockSize), P.NumElements,
                      P.Elements, P.Rest, P.Measure, X, E, DX, DE);
}
void springMeshadGather(const Problem &P, const double *X, double *E,
                        double *DX, double *DE) {
  meshad::gradient(springKernel, "x, E", meshad::KeepSeeds,
                   meshad::ElementStrategy::Gather)
      .execute_kernel(grid1D(P.NumElements), dim3(BlockSize), P.NumElements,
                      P.Elements, P.Rest, X, E, DX, DE);
}
void dirichletMeshadGather(const Problem &P, const double *X, double *E,
                           double *DX, double *DE) {
  meshad::gradient(dirichletKernel, "x, E", meshad::KeepSeeds,
                   meshad::ElementStrategy::Gather)
      .execute_kernel(grid1D(P.NumElements), dim3(BlockSize), P.NumElements,
                      P.Elements, P.Rest, P.Measure, X, E, DX, DE);
}
void neoHookeanMeshadGather(const Problem &P, const double *X, double *E,
                            double *DX, double *DE) {
  meshad::gradient(neoHookeanKernel, "x, E", meshad::KeepSeeds,
                   meshad::ElementStrategy::Gather)
      .execute_kernel(grid1D(P.NumElements), dim3(BlockSize), P.NumElements,
                      P.Elements, P.Rest, P.Measure, X, E, DX, DE);
}

// The default (Auto): the cost model's choice, gather for the springs and
// the triangles, confirmed at run time from the mesh's numbering
// (meshad::ElementGradientChoice: two-phase slots for a shuffled one);
// two-phase for the tets.
void springMeshadAuto(const Problem &P, const double *X, double *E,
                      double *DX, double *DE) {
  meshad::gradient(springKernel, "x, E", meshad::KeepSeeds)
      .execute_kernel(grid1D(P.NumElements), dim3(BlockSize), P.NumElements,
                      P.Elements, P.Rest, X, E, DX, DE);
}
void dirichletMeshadAuto(const Problem &P, const double *X, double *E,
                         double *DX, double *DE) {
  meshad::gradient(dirichletKernel, "x, E", meshad::KeepSeeds)
      .execute_kernel(grid1D(P.NumElements), dim3(BlockSize), P.NumElements,
                      P.Elements, P.Rest, P.Measure, X, E, DX, DE);
}
void neoHookeanMeshadAuto(const Problem &P, const double *X, double *E,
                          double *DX, double *DE) {
  meshad::gradient(neoHookeanKernel, "x, E", meshad::KeepSeeds)
      .execute_kernel(grid1D(P.NumElements), dim3(BlockSize), P.NumElements,
                      P.Elements, P.Rest, P.Measure, X, E, DX, DE);
}

/// What meshad's default gradient of \p Kind runs on the mesh it last saw.
std::string meshadAutoChoice(EnergyKind Kind) {
  auto Spelled = [](meshad::ElementStrategy S) {
    return std::string(S == meshad::ElementStrategy::Gather ? "gather"
                       : S == meshad::ElementStrategy::TwoPhase
                           ? "two-phase"
                           : "not chosen");
  };
  if (Kind == EnergyKind::NeoHookean)
    return Spelled(meshad::gradient(neoHookeanKernel, "x, E",
                                    meshad::KeepSeeds)
                       .strategy()) +
           " (compile time)";
  auto Choice = [&](const auto &G) {
    char Locality[64];
    std::snprintf(Locality, sizeof Locality, " (numbering locality %.3f)",
                  G.numbering_locality());
    return Spelled(G.strategy()) + Locality;
  };
  if (Kind == EnergyKind::Spring)
    return Choice(meshad::gradient(springKernel, "x, E", meshad::KeepSeeds));
  return Choice(meshad::gradient(dirichletKernel, "x, E", meshad::KeepSeeds));
}

#if !defined(ELEMENTS_BASELINE)
// Fastest (session 9): for the springs, the gather or the atomic gradient,
// chosen at run time from the numbering (meshad::ElementGradientChoice with
// meshad::ElementGradientAtomics); atomics for the triangles by the model.
void springMeshadFastest(const Problem &P, const double *X, double *E,
                         double *DX, double *DE) {
  meshad::gradient(springKernel, "x, E", meshad::KeepSeeds,
                   meshad::ElementStrategy::Fastest)
      .execute_kernel(grid1D(P.NumElements), dim3(BlockSize), P.NumElements,
                      P.Elements, P.Rest, X, E, DX, DE);
}
void dirichletMeshadFastest(const Problem &P, const double *X, double *E,
                            double *DX, double *DE) {
  meshad::gradient(dirichletKernel, "x, E", meshad::KeepSeeds,
                   meshad::ElementStrategy::Fastest)
      .execute_kernel(grid1D(P.NumElements), dim3(BlockSize), P.NumElements,
                      P.Elements, P.Rest, P.Measure, X, E, DX, DE);
}

std::string meshadFastestChoice() {
  const auto &G = meshad::gradient(springKernel, "x, E", meshad::KeepSeeds,
                                   meshad::ElementStrategy::Fastest);
  char Locality[64];
  std::snprintf(Locality, sizeof Locality, " (numbering locality %.3f)",
                G.numbering_locality());
  meshad::ElementStrategy S = G.strategy();
  return std::string(S == meshad::ElementStrategy::Gather    ? "gather"
                     : S == meshad::ElementStrategy::Atomics ? "atomics"
                                                             : "not chosen") +
         Locality;
}
#endif

#if defined(ELEMENTS_BASELINE)
} // namespace baseline
#endif
} // namespace elements
