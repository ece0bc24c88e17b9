// Plain slot stores in grid-stride element kernels (issue 11): a thread runs
// several elements, one per iteration of its loop `for (e = gid; e < n;
// e += blockDim.x * gridDim.x)`, and the reverse sweep's loop replays them.
// The proof (Analysis/IntegerPaths, GPU/SlotStores) walks one iteration of
// that loop per element and checks that each slot of the iteration's element
// is written exactly once on every path; since the count n is the loop's
// bound, every launch visits every element, so the handle never zeroes the
// slots (whatever the grid). Proven: 3D springs with a rest length, tets.
// Not proven: a branch that reads one vertex on one side only; a break out
// of the loop over the elements. MESHAD_DEBUG_SLOTS fills the slots that are
// not zeroed with NaN, so a slot the proof missed would show. Each gradient:
// against central differences, bitwise equal across two runs, and close to
// the atomic gradient, with fewer threads than elements and with more.
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-remarks -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.log
// RUN: FileCheck %s --check-prefix=REMARK < %t.log
// RUN: FileCheck %s < %t.log
// RUN: %t | FileCheck %s --check-prefix=NUM
// Slots not zeroed are filled with NaN (also in the GPU build).
#define MESHAD_DEBUG_SLOTS
#include "ElementCheck.h"
#include <cmath>
#include <cstdio>
#include <meshad/Differentiator.h>

namespace mt = meshad::test;
using meshad::ElementStrategy;

__global__ void springs(int n, const int *edges, const double *rest,
                        const double *x, double *E) {
  for (int e = blockIdx.x * blockDim.x + threadIdx.x; e < n;
       e += blockDim.x * gridDim.x) {
    int a = edges[2 * e], b = edges[2 * e + 1];
    double l2 = 0;
    for (int k = 0; k < 3; ++k) {
      double d = x[3 * a + k] - x[3 * b + k];
      l2 += d * d;
    }
    double s = sqrt(l2) - rest[e];
    atomicAdd(E, 0.5 * s * s);
  }
}
// CHECK-LABEL: __global__ void springs_grad_3_4_two_phase(
// CHECK-NOT: slotAdd
// CHECK: meshad::slotStore<2, 3>(_slots, n, e, 2 * e, k, _r0);
// CHECK-NEXT: meshad::slotStore<2, 3>(_slots, n, e, 2 * e + 1, k, -_r0);
// CHECK-NOT: slotAdd
// CHECK: {{^}$}}

__global__ void tets(int nt, const int *tet, const double *x, double *E) {
  for (int t = blockIdx.x * blockDim.x + threadIdx.x; t < nt;
       t += blockDim.x * gridDim.x) {
    int a = tet[4 * t], b = tet[4 * t + 1], c = tet[4 * t + 2],
        d = tet[4 * t + 3];
    double u[3], v[3], w[3];
    for (int k = 0; k < 3; ++k) {
      u[k] = x[3 * b + k] - x[3 * a + k];
      v[k] = x[3 * c + k] - x[3 * a + k];
      w[k] = x[3 * d + k] - x[3 * a + k];
    }
    double vol = u[0] * (v[1] * w[2] - v[2] * w[1]) -
                 u[1] * (v[0] * w[2] - v[2] * w[0]) +
                 u[2] * (v[0] * w[1] - v[1] * w[0]);
    atomicAdd(E, log(1 + vol * vol));
  }
}
// CHECK-LABEL: __global__ void tets_grad_two_phase(
// CHECK-NOT: slotAdd
// CHECK: meshad::slotStore<4, 3>(_slots, nt, t, 4 * t + 3, k,
// CHECK-NOT: slotAdd
// CHECK: {{^}$}}

__global__ void oneSided(int n, const int *edges, const double *x,
                         double *E) {
  for (int e = blockIdx.x * blockDim.x + threadIdx.x; e < n;
       e += blockDim.x * gridDim.x) {
    int a = edges[2 * e], b = edges[2 * e + 1];
    double s = sin(x[b]);
    if (s > 0.25)
      s *= x[a];
    atomicAdd(E, s * s);
  }
}
// CHECK-LABEL: __global__ void oneSided_grad_two_phase(
// CHECK-NOT: slotStore
// CHECK: {{^}$}}

// REMARK-DAG: remark: gradient of 'springs': two-phase slots for x (element map through edges (arity 2, stride 3), n elements (grid-stride loop)), no atomics, bitwise reproducible (as requested); each slot stored once, not zeroed
// REMARK-DAG: remark: gradient of 'tets': two-phase slots for x (element map through tet (arity 4, stride 3), nt elements (grid-stride loop)), no atomics, bitwise reproducible (as requested); each slot stored once, not zeroed
// REMARK-DAG: remark: gradient of 'oneSided': slots zeroed and added to, not stored once: component 0 of local vertex 0 of 'x' is not written on every path (one side of this branch skips it)

int main() {
  mt::RandomInputs Rng;
  const int V = 8, M = 11, Threads = 4;
  mt::DeviceArray<int> Edges(2 * M), Tet(4 * M);
  mt::upload(Edges, mt::elementConnectivity(M, 2, V));
  mt::upload(Tet, mt::elementConnectivity(M, 4, V));
  mt::DeviceArray<double> Rest(M), X3(3 * V), X1(V), E(1), DE(1);
  Rng.fill(Rest.host(), M, 0.2, 0.5);
  Rest.upload();
  Rng.fill(X3.host(), 3 * V, -1, 1);
  Rng.fill(X1.host(), V, -1, 1);
  auto Energy = [&](mt::DeviceArray<double> &X, auto &&Launch) {
    return [&X, &Launch, &E]() {
      X.upload();
      E.zero();
      Launch();
      mt::checkLaunch("primal");
      E.download();
      return E[0];
    };
  };
  auto Seed = [&] {
    DE[0] = 1;
    DE.upload();
    return DE.device();
  };

  auto Springs = meshad::gradient(springs, "x, E", ElementStrategy::TwoPhase);
  std::printf("springs stores its slots once: %d\n",
              Springs.stores_slots_once());
  // One block of 4 threads (3 elements each, the last fewer) and 4 blocks
  // (more threads than elements): the same gradient, no zeroing in either.
  for (int Blocks : {1, 4}) {
    auto Primal = [&] {
      MESHAD_LAUNCH(springs, Blocks, Threads)(M, Edges.device(),
                                              Rest.device(), X3.device(),
                                              E.device());
    };
    mt::checkElementGradient(
        "springs, " + std::to_string(Blocks) + " blocks", X3,
        Energy(X3, Primal),
        [&](double *DX) {
          Springs.execute_kernel(dim3(Blocks), dim3(Threads), M,
                                 Edges.device(), Rest.device(), X3.device(),
                                 E.device(), DX, Seed());
        },
        [&](double *DX) {
          meshad::gradient(springs, "x, E", ElementStrategy::Atomics)
              .execute_kernel(dim3(Blocks), dim3(Threads), M, Edges.device(),
                              Rest.device(), X3.device(), E.device(), DX,
                              Seed());
        });
  }

  auto Tets = meshad::gradient(tets, "x, E", ElementStrategy::TwoPhase);
  std::printf("tets stores its slots once: %d\n", Tets.stores_slots_once());
  auto TetsPrimal = [&] {
    MESHAD_LAUNCH(tets, 2, Threads)(M, Tet.device(), X3.device(), E.device());
  };
  mt::checkElementGradient(
      "tets", X3, Energy(X3, TetsPrimal),
      [&](double *DX) {
        Tets.execute_kernel(dim3(2), dim3(Threads), M, Tet.device(),
                            X3.device(), E.device(), DX, Seed());
      },
      [&](double *DX) {
        meshad::gradient(tets, "x, E", ElementStrategy::Atomics)
            .execute_kernel(dim3(2), dim3(Threads), M, Tet.device(),
                            X3.device(), E.device(), DX, Seed());
      });

  auto OneSided = meshad::gradient(oneSided, "x, E", ElementStrategy::TwoPhase);
  std::printf("oneSided stores its slots once: %d\n",
              OneSided.stores_slots_once());
  auto OneSidedPrimal = [&] {
    MESHAD_LAUNCH(oneSided, 1, Threads)(M, Edges.device(), X1.device(),
                                        E.device());
  };
  mt::checkElementGradient(
      "oneSided", X1, Energy(X1, OneSidedPrimal),
      [&](double *DX) {
        OneSided.execute_kernel(dim3(1), dim3(Threads), M, Edges.device(),
                                X1.device(), E.device(), DX, Seed());
      },
      [&](double *DX) {
        meshad::gradient(oneSided, "x, E", ElementStrategy::Atomics)
            .execute_kernel(dim3(1), dim3(Threads), M, Edges.device(),
                            X1.device(), E.device(), DX, Seed());
      });
  return mt::summary();
}
// NUM: springs stores its slots once: 1
// NUM: tets stores its slots once: 1
// NUM: oneSided stores its slots once: 0
// NUM-NOT: FAIL
// NUM: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
