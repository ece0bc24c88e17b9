// Two-phase slots for several mapped arrays and several index arrays in one
// element kernel (issue 11): positions x and velocities u read through the
// same edges, both selected ("x, u, E"): one slot buffer each, one
// incidence of edges for both; a cloth kernel with springs (edges, per-vertex
// weights w) and triangles (tris) in one launch, each kind under its own
// guard: x through both index arrays (one slot buffer per index array, each
// with its own element count), w through edges (sharing edges' incidence).
// The handle is meshad::ElementGradientSlots. The gather serves one array
// through one index array: an explicit Gather is an error. Each slot is
// stored once (proven per slot buffer), so the slots are not zeroed;
// MESHAD_DEBUG_SLOTS fills them with NaN instead, so a slot the proof missed
// would show. Each adjoint: against central differences, bitwise equal
// across two runs, and close to the atomic gradient.
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-remarks -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.log
// RUN: FileCheck %s --check-prefix=REMARK < %t.log
// RUN: FileCheck %s < %t.log
// RUN: %t | FileCheck %s --check-prefix=NUM
// RUN: not %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -I%test_inputs -DGATHER %s -o %t.gather 2>&1 | FileCheck %s --check-prefix=GATHER
// Slots not zeroed are filled with NaN (also in the GPU build).
#define MESHAD_DEBUG_SLOTS
#include "ElementCheck.h"
#include <cmath>
#include <cstdio>
#include <meshad/Differentiator.h>

namespace mt = meshad::test;

__global__ void motion(int n, const int *edges, const double *x,
                       const double *u, double *E) {
  int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e < n) {
    int a = edges[2 * e], b = edges[2 * e + 1];
    double l2 = 0, s = 0;
    for (int k = 0; k < 3; ++k) {
      double d = x[3 * a + k] - x[3 * b + k];
      double v = u[3 * a + k] - u[3 * b + k];
      l2 += d * d;
      s += d * v;
    }
    atomicAdd(E, l2 * l2 + s * s);
  }
}
// CHECK-LABEL: __global__ void motion_grad_two_phase(int n, const int *edges, const double *x, const double *u, double *E, double *_d_x, double *_d_u, double *_d_E, double *_slots, double *_slots1) {
// CHECK-NEXT: meshad::requireLaunch1D();
// CHECK-NOT: atomicAdd(&_d_
// CHECK-NOT: slotAdd
// CHECK: meshad::slotStore<2, 3>(_slots1, n, e, 2 * e, k, _r1);
// CHECK-NEXT: meshad::slotStore<2, 3>(_slots1, n, e, 2 * e + 1, k, -_r1);
// CHECK-NOT: atomicAdd(&_d_
// CHECK: meshad::slotStore<2, 3>(_slots, n, e, 2 * e, k, _r0);
// CHECK-NEXT: meshad::slotStore<2, 3>(_slots, n, e, 2 * e + 1, k, -_r0);
// CHECK-NOT: atomicAdd(&_d_
// CHECK: {{^}$}}
// CHECK-LABEL: __global__ void motion_grad_atomics(
// CHECK: atomicAdd(&_d_x[3 * a + k],

__global__ void cloth(int ne, int nf, const int *edges, const int *tris,
                      const double *w, const double *x, double *E) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < ne) {
    int a = edges[2 * t], b = edges[2 * t + 1];
    double l2 = 0;
    for (int k = 0; k < 3; ++k) {
      double d = x[3 * a + k] - x[3 * b + k];
      l2 += d * d;
    }
    atomicAdd(E, w[a] * w[b] * l2 * l2);
  }
  if (t < nf) {
    int a = tris[3 * t], b = tris[3 * t + 1], c = tris[3 * t + 2];
    double pq = 0, pp = 0, qq = 0;
    for (int k = 0; k < 3; ++k) {
      double p = x[3 * b + k] - x[3 * a + k];
      double q = x[3 * c + k] - x[3 * a + k];
      pq += p * q;
      pp += p * p;
      qq += q * q;
    }
    atomicAdd(E, pp * qq - pq * pq);
  }
}
// CHECK-LABEL: __global__ void cloth_grad(int ne, int nf, const int *edges, const int *tris, const double *w, const double *x, double *E, double *_d_w, double *_d_x, double *_d_E, double *_slots, double *_slots1, double *_slots2) {
// CHECK-NEXT: meshad::requireLaunch1D();
// CHECK-NOT: atomicAdd(&_d_
// CHECK: meshad::slotStore<3, 3>(_slots2, nf, t, 3 * t + 2, k_1, _r6);
// CHECK: meshad::slotStore<3, 3>(_slots2, nf, t, 3 * t, k_1, -_r6 - _r5);
// CHECK-NOT: atomicAdd(&_d_
// CHECK: meshad::slotStore<2, 1>(_slots, ne, t, 2 * t, 0, _r4 * w[b]);
// CHECK-NEXT: meshad::slotStore<2, 1>(_slots, ne, t, 2 * t + 1, 0, w[a] * _r4);
// CHECK-NOT: atomicAdd(&_d_
// CHECK: meshad::slotStore<2, 3>(_slots1, ne, t, 2 * t, k, _r0);
// CHECK-NEXT: meshad::slotStore<2, 3>(_slots1, ne, t, 2 * t + 1, k, -_r0);
// CHECK-NOT: atomicAdd(&_d_
// CHECK: {{^}$}}
// CHECK-LABEL: __global__ void cloth_grad_atomics(
// CHECK: atomicAdd(&_d_x[

// REMARK-DAG: remark: gradient of 'motion': two-phase slots for x (element map through edges (arity 2, stride 3), n elements (guard)) and u (element map through edges (arity 2, stride 3), n elements (guard)), no atomics, bitwise reproducible (as requested); each slot stored once, not zeroed
// REMARK-DAG: remark: gradient of 'cloth': two-phase slots for w (element map through edges (arity 2, stride 1), ne elements (guard)) and x (element maps through edges (arity 2) and tris (arity 3), stride 3, edges: ne elements (guard), tris: nf elements (guard)), no atomics, bitwise reproducible (cost model: {{.*}}); each slot stored once, not zeroed

int main() {
  mt::RandomInputs Rng;
  const int V = 8, M = 11, F = 7, Threads = 4, Blocks = 3;
  mt::DeviceArray<int> Edges(2 * M), Tris(3 * F);
  mt::upload(Edges, mt::elementConnectivity(M, 2, V));
  mt::upload(Tris, mt::elementConnectivity(F, 3, V));
  mt::DeviceArray<double> X(3 * V), U(3 * V), W(V), E(1), DE(1);
  mt::DeviceArray<double> ScratchA(3 * V), ScratchB(3 * V);
  Rng.fill(X.host(), 3 * V, -1, 1);
  Rng.fill(U.host(), 3 * V, -1, 1);
  Rng.fill(W.host(), V, 0.5, 1.5);
  X.upload();
  U.upload();
  W.upload();
  auto Energy = [&](mt::DeviceArray<double> &P, auto &&Launch) {
    return [&P, &Launch, &E]() {
      P.upload();
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

  auto MotionPrimal = [&] {
    MESHAD_LAUNCH(motion, Blocks, Threads)(M, Edges.device(), X.device(),
                                           U.device(), E.device());
  };
#ifdef GATHER
  // GATHER: elements-several-arrays.cu:[[#@LINE+1]]:39: error: meshad::ElementStrategy::Gather does not apply to 'motion': several arrays or index arrays through slots (x (element map through edges (arity 2, stride 3), n elements (guard)) and u (element map through edges (arity 2, stride 3), n elements (guard))): the gather recomputes one array's adjoint through one index array, yet
  meshad::gradient(motion, "x, u, E", meshad::ElementStrategy::Gather);
#endif
  auto Motion =
      meshad::gradient(motion, "x, u, E", meshad::ElementStrategy::TwoPhase);
  static_assert(decltype(Motion)::strategy() == meshad::ElementStrategy::TwoPhase);
  std::printf("motion stores its slots once: %d\n", Motion.stores_slots_once());
  auto MotionAtomic =
      meshad::gradient(motion, "x, u, E", meshad::ElementStrategy::Atomics);
  // Each adjoint in turn; the other goes to a scratch array.
  auto MotionGrad = [&](auto &G, double *DX, double *DU) {
    G.execute_kernel(dim3(Blocks), dim3(Threads), M, Edges.device(),
                     X.device(), U.device(), E.device(), DX, DU, Seed());
  };
  mt::checkElementGradient(
      "motion dE/dx", X, Energy(X, MotionPrimal),
      [&](double *DX) { MotionGrad(Motion, DX, ScratchA.device()); },
      [&](double *DX) { MotionGrad(MotionAtomic, DX, ScratchA.device()); });
  mt::checkElementGradient(
      "motion dE/du", U, Energy(U, MotionPrimal),
      [&](double *DU) { MotionGrad(Motion, ScratchA.device(), DU); },
      [&](double *DU) { MotionGrad(MotionAtomic, ScratchA.device(), DU); });

  // One thread per element of the larger kind: max(M, F) threads.
  auto ClothPrimal = [&] {
    MESHAD_LAUNCH(cloth, Blocks, Threads)(M, F, Edges.device(), Tris.device(),
                                          W.device(), X.device(), E.device());
  };
  auto Cloth = meshad::gradient(cloth, "w, x, E");
  std::printf("cloth stores its slots once: %d\n", Cloth.stores_slots_once());
  auto ClothAtomic =
      meshad::gradient(cloth, "w, x, E", meshad::ElementStrategy::Atomics);
  auto ClothGrad = [&](auto &G, double *DW, double *DX) {
    G.execute_kernel(dim3(Blocks), dim3(Threads), M, F, Edges.device(),
                     Tris.device(), W.device(), X.device(), E.device(), DW,
                     DX, Seed());
  };
  mt::checkElementGradient(
      "cloth dE/dx", X, Energy(X, ClothPrimal),
      [&](double *DX) { ClothGrad(Cloth, ScratchA.device(), DX); },
      [&](double *DX) { ClothGrad(ClothAtomic, ScratchA.device(), DX); });
  mt::checkElementGradient(
      "cloth dE/dw", W, Energy(W, ClothPrimal),
      [&](double *DW) { ClothGrad(Cloth, DW, ScratchB.device()); },
      [&](double *DW) { ClothGrad(ClothAtomic, DW, ScratchB.device()); });

  // The mesh changed: fewer triangles, the same arrays.
  Cloth.connectivity_changed();
  const int F2 = 5;
  auto ClothPrimal2 = [&] {
    MESHAD_LAUNCH(cloth, Blocks, Threads)(M, F2, Edges.device(),
                                          Tris.device(), W.device(),
                                          X.device(), E.device());
  };
  auto ClothGrad2 = [&](auto &G, double *DX) {
    G.execute_kernel(dim3(Blocks), dim3(Threads), M, F2, Edges.device(),
                     Tris.device(), W.device(), X.device(), E.device(),
                     ScratchB.device(), DX, Seed());
  };
  mt::checkElementGradient(
      "cloth dE/dx, fewer triangles", X, Energy(X, ClothPrimal2),
      [&](double *DX) { ClothGrad2(Cloth, DX); },
      [&](double *DX) { ClothGrad2(ClothAtomic, DX); });
  return mt::summary();
}
// NUM: motion stores its slots once: 1
// NUM: cloth stores its slots once: 1
// NUM-NOT: FAIL
// NUM: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
