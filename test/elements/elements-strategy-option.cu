// meshad::ElementStrategy (issue 11): TwoPhase asked explicitly and with
// meshad::KeepSeeds, Atomics (the generated kernel named "_atomics"), the
// errors for Gather and for TwoPhase where they do not apply (no guard
// gives the element count), and the remark of Auto on a kernel
// whose map has no element count (atomics kept). Options come in any order
// (the strategy before meshad::KeepSeeds for Atomics); two strategies, or
// an argument that is no option, are errors. Two selected arrays read
// through element maps (positions and per-vertex weights): Auto's gather
// of both, or their two-phase slots, chosen at run time
// (elements-gather-several-arrays.cu). Gradients against central differences, bitwise
// equal across runs, close to the atomic gradient.
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-remarks -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.log
// RUN: FileCheck %s --check-prefix=REMARK < %t.log
// RUN: FileCheck %s < %t.log
// RUN: %t | FileCheck %s --check-prefix=NUM
// RUN: not %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -I%test_inputs -DGATHER %s -o %t.gather 2>&1 | FileCheck %s --check-prefix=GATHER
// RUN: not %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -I%test_inputs -DNO_COUNT %s -o %t.nocount 2>&1 | FileCheck %s --check-prefix=NOCOUNT
// RUN: not %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -I%test_inputs -DTWICE %s -o %t.twice 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: not %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -I%test_inputs -DNOT_OPTION %s -o %t.notoption 2>&1 | FileCheck %s --check-prefix=NOTOPTION
#include "ElementCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

namespace mt = meshad::test;

__global__ void springs(int n, const int *edges, const double *x,
                        double *E) {
  int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= n)
    return;
  int a = edges[2 * e], b = edges[2 * e + 1];
  double l2 = 0;
  for (int k = 0; k < 2; ++k) {
    double d = x[2 * a + k] - x[2 * b + k];
    l2 += d * d;
  }
  atomicAdd(E, l2 * sqrt(l2));
}
// CHECK-LABEL: __global__ void springs_grad_keep_seeds_two_phase(int n, const int *edges, const double *x, double *E, double *_d_x, double *_d_E, double *_slots) {
// CHECK-NOT: atomicAdd(&_d_x
// CHECK: {{^}$}}
// CHECK-LABEL: __global__ void springs_grad_keep_seeds_atomics(
// CHECK: atomicAdd(&_d_x[2 * a + k],

// No guard: the thread count is the element count, unknown to the host.
__global__ void unguarded(const int *edges, const double *x, double *E) {
  int e = blockIdx.x * blockDim.x + threadIdx.x;
  atomicAdd(E, x[edges[2 * e]] * x[edges[2 * e + 1]]);
}

// Per-vertex weights w beside the positions x, both read through edges.
__global__ void weighted(int n, const int *edges, const double *x,
                         const double *w, double *E) {
  int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e < n) {
    int a = edges[2 * e], b = edges[2 * e + 1];
    double d = x[a] - x[b];
    atomicAdd(E, w[a] * w[b] * d * d);
  }
}

/// dE/d\p P of \p Grad (adds into \p DP) against central differences.
template <class L, class G>
void checkWeighted(const char *Name, const std::vector<int> &Edges,
                   mt::DeviceArray<double> &P, mt::DeviceArray<double> &E,
                   L &&Primal, G &&Grad) {
  std::vector<double> Expected = mt::fdGradient(
      [&] {
        P.upload();
        E.zero();
        Primal();
        E.download();
        return E[0];
      },
      P.host(), P.size());
  // A vertex that no edge references has derivative exactly 0 (on a GPU
  // the differences see the atomics' rounding, about 1e-12).
  std::vector<bool> Used(P.size(), false);
  for (int V : Edges)
    Used[V] = true;
  for (size_t I = 0; I < Used.size(); ++I)
    if (!Used[I])
      Expected[I] = 0;
  P.upload();
  mt::DeviceArray<double> DP(P.size());
  DP.zero();
  Grad(DP.device());
  mt::checkLaunch(Name);
  DP.download();
  mt::checkArray(Name, DP.host(), Expected.data(), P.size());
}

int main() {
  // REMARK: elements-strategy-option.cu:[[#@LINE+1]]:19: remark: gradient of 'springs': two-phase slots for x (element map through edges (arity 2, stride 2), n elements (early return)), no atomics, bitwise reproducible (as requested)
  auto TwoPhase = meshad::gradient(springs, "x, E", meshad::KeepSeeds,
                                   meshad::ElementStrategy::TwoPhase);
  auto Atomic = meshad::gradient(springs, "x, E",
                                 meshad::ElementStrategy::Atomics,
                                 meshad::KeepSeeds);
  // REMARK: elements-strategy-option.cu:[[#@LINE+1]]:16: remark: gradient of 'unguarded': no atomic-free strategy: x: no element count: no guard t < n bounds the element id
  auto Plain = meshad::gradient(unguarded, "x, E");
#ifdef GATHER
  // GATHER: elements-strategy-option.cu:[[#@LINE+1]]:39: error: meshad::ElementStrategy::Gather does not apply to 'unguarded': x: no element count: no guard t < n bounds the element id
  meshad::gradient(unguarded, "x, E", meshad::ElementStrategy::Gather);
#endif
#ifdef TWICE
  // TWICE: elements-strategy-option.cu:[[#@LINE+2]]:20: error: meshad request with two element strategies; give one (flags combine with |: meshad::KeepSeeds | meshad::WithValue)
  meshad::gradient(springs, "x, E", meshad::ElementStrategy::Atomics,
                   meshad::ElementStrategy::TwoPhase);
#endif
#ifdef NOT_OPTION
  // NOTOPTION: error: static assertion failed{{.*}}meshad::gradient: after the spec come options only: meshad::KeepSeeds, meshad::WithValue, a meshad::ElementStrategy
  meshad::gradient(springs, "x, E", 3);
#endif
  // REMARK: elements-strategy-option.cu:[[#@LINE+1]]:19: remark: gradient of 'weighted': gather by recomputation for x (element map through edges (arity 2, stride 1), n elements (guard)) and w (element map through edges (arity 2, stride 1), n elements (guard)), one thread per vertex, or two-phase slots (weighted_grad_slots{{.*}}), chosen at run time from the numbering of edges {{.*}}, no atomics, bitwise reproducible (cost model: {{.*}})
  auto Weighted = meshad::gradient(weighted, "x, w, E");
#ifdef NO_COUNT
  // NOCOUNT: elements-strategy-option.cu:[[#@LINE+1]]:39: error: meshad::ElementStrategy::TwoPhase does not apply to 'unguarded': x: no element count: no guard t < n bounds the element id
  meshad::gradient(unguarded, "x, E", meshad::ElementStrategy::TwoPhase);
#endif
  mt::RandomInputs Rng;
  const int V = 9, M = 13, Threads = 4, Blocks = 4;
  mt::DeviceArray<int> Edges(2 * M);
  mt::upload(Edges, mt::elementConnectivity(M, 2, V));
  mt::DeviceArray<double> X(2 * V), E(1), DE(1);
  Rng.fill(X.host(), 2 * V, -1, 1);
  auto Energy = [&] {
    X.upload();
    E.zero();
    MESHAD_LAUNCH(springs, Blocks, Threads)(M, Edges.device(), X.device(),
                                            E.device());
    mt::checkLaunch("springs");
    E.download();
    return E[0];
  };
  DE[0] = 1;
  DE.upload();
  mt::checkElementGradient(
      "springs", X, Energy,
      [&](double *DX) {
        TwoPhase.execute_kernel(dim3(Blocks), dim3(Threads), M, Edges.device(),
                                X.device(), E.device(), DX, DE.device());
      },
      [&](double *DX) {
        Atomic.execute_kernel(dim3(Blocks), dim3(Threads), M, Edges.device(),
                              X.device(), E.device(), DX, DE.device());
      });
  // KeepSeeds: the seed is still 1.
  DE.download();
  MESHAD_CHECK_CLOSE("seed kept", DE[0], 1.0);

  // The unguarded kernel's gradient (atomics) on exactly M threads.
  std::vector<double> Expected =
      mt::fdGradient(
          [&] {
            X.upload();
            E.zero();
            MESHAD_LAUNCH(unguarded, 1, M)(Edges.device(), X.device(),
                                           E.device());
            E.download();
            return E[0];
          },
          X.host(), 2 * V);
  mt::DeviceArray<double> DX(2 * V);
  X.upload();
  DX.zero();
  DE[0] = 1;
  DE.upload();
  Plain.execute_kernel(dim3(1), dim3(M), Edges.device(), X.device(),
                       E.device(), DX.device(), DE.device());
  mt::checkLaunch("unguarded");
  DX.download();
  mt::checkArray("unguarded", DX.host(), Expected.data(), 2 * V);

  // Both adjoints of the weighted springs, both by the gather (the
  // numbering of this small mesh is local).
  mt::DeviceArray<double> X1(V), W(V), Unused(V);
  Rng.fill(X1.host(), V, -1, 1);
  Rng.fill(W.host(), V, 0.5, 1.5);
  X1.upload();
  W.upload();
  auto Primal = [&] {
    MESHAD_LAUNCH(weighted, Blocks, Threads)(M, Edges.device(), X1.device(),
                                             W.device(), E.device());
  };
  auto Launch = [&](double *DX1, double *DW) {
    DE[0] = 1;
    DE.upload();
    Weighted.execute_kernel(dim3(Blocks), dim3(Threads), M, Edges.device(),
                            X1.device(), W.device(), E.device(), DX1, DW,
                            DE.device());
  };
  checkWeighted("weighted dE/dx", mt::elementConnectivity(M, 2, V), X1, E, Primal, [&](double *DX1) {
    Unused.zero();
    Launch(DX1, Unused.device());
  });
  checkWeighted("weighted dE/dw", mt::elementConnectivity(M, 2, V), W, E, Primal, [&](double *DW) {
    Unused.zero();
    Launch(Unused.device(), DW);
  });
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
