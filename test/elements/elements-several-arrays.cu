// Two-phase slots for several mapped arrays and several index arrays in one
// element kernel (issue 11): positions x and velocities u read through the
// same edges, both selected ("x, u, E"): one slot buffer each, one
// incidence of edges for both; a cloth kernel with springs (edges, per-vertex
// weights w) and triangles (tris) in one launch, each kind under its own
// guard: x through both index arrays (one slot buffer per index array, each
// with its own element count), w through edges (sharing edges' incidence).
// The handle is meshad::ElementGradientSlots. The gather serves the arrays
// of one index array (elements-gather-several-arrays.cu): an explicit
// Gather of cloth is an error. The kernels and inputs are those of
// test/Inputs/ElementArrays.h. Each slot is
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
#include "ElementArrays.h"
#include <cmath>
#include <cstdio>
#include <meshad/Differentiator.h>

namespace mt = meshad::test;

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
  mt::ArrayMeshes Mesh;
  auto Motion =
      meshad::gradient(motion, "x, u, E", meshad::ElementStrategy::TwoPhase);
  static_assert(decltype(Motion)::strategy() == meshad::ElementStrategy::TwoPhase);
  std::printf("motion stores its slots once: %d\n", Motion.stores_slots_once());
  auto MotionAtomic =
      meshad::gradient(motion, "x, u, E", meshad::ElementStrategy::Atomics);
  mt::checkMotion(Mesh, Motion, MotionAtomic);

  // One thread per element of the larger kind: max(M, F) threads.
#ifdef GATHER
  // GATHER: elements-several-arrays.cu:[[#@LINE+1]]:38: error: meshad::ElementStrategy::Gather does not apply to 'cloth': several index arrays (w (element map through edges (arity 2, stride 1), ne elements (guard)) and x (element maps through edges (arity 2) and tris (arity 3), stride 3, edges: ne elements (guard), tris: nf elements (guard))): the gather recomputes the elements of one index array, yet
  meshad::gradient(cloth, "w, x, E", meshad::ElementStrategy::Gather);
#endif
  auto Cloth = meshad::gradient(cloth, "w, x, E");
  std::printf("cloth stores its slots once: %d\n", Cloth.stores_slots_once());
  auto ClothAtomic =
      meshad::gradient(cloth, "w, x, E", meshad::ElementStrategy::Atomics);
  mt::checkCloth(Mesh, Cloth, ClothAtomic, Mesh.F);
  // The mesh changed: fewer triangles, the same arrays.
  Cloth.connectivity_changed();
  mt::checkCloth(Mesh, Cloth, ClothAtomic, 5, "cloth, fewer triangles");
  return mt::summary();
}
// NUM: motion stores its slots once: 1
// NUM: cloth stores its slots once: 1
// NUM-NOT: FAIL
// NUM: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
