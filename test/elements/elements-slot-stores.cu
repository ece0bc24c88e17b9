// Plain slot stores (issue 11): where every path of a two-phase gradient
// kernel writes each slot of its element exactly once, the slot adds become
// meshad::slotStore (`=`) and the handle does not zero the slots (unless the
// launch leaves elements without a thread); otherwise the slots stay zeroed
// and added to, and a remark at the construct says which slot and why.
// Proven: 3D springs (guard, vertices in locals, a loop over the
// components), tets, springs in a grid-stride loop (more in
// elements-grid-stride-stores.cu). Not proven: a branch that reads one
// vertex on one side only, triangles that read each vertex in two loops.
// MESHAD_DEBUG_SLOTS fills the slots that are not zeroed
// with NaN, so a slot the proof missed would show. Each gradient: against
// central differences, bitwise equal across two runs, and close to the atomic
// gradient; the springs also with a launch that covers part of the elements.
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

__global__ void springs(int n, const int *edges, const double *x, double *E) {
  int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e < n) {
    int a = edges[2 * e], b = edges[2 * e + 1];
    double l2 = 0;
    for (int k = 0; k < 3; ++k) {
      double d = x[3 * a + k] - x[3 * b + k];
      l2 += d * d;
    }
    double s = sqrt(l2) - 0.5;
    atomicAdd(E, s * s);
  }
}
// CHECK-LABEL: __global__ void springs_grad_two_phase(int n, const int *edges, const double *x, double *E, double *_d_x, double *_d_E, double *_slots) {
// CHECK-NEXT: meshad::requireLaunch1D();
// CHECK-NOT: slotAdd
// CHECK: meshad::slotStore<2, 3>(_slots, n, e, 2 * e, k, _r0);
// CHECK-NEXT: meshad::slotStore<2, 3>(_slots, n, e, 2 * e + 1, k, -_r0);
// CHECK-NOT: slotAdd
// CHECK: {{^}$}}

__global__ void tets(int nt, const int *tet, const double *x, double *E) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < nt) {
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

// x[a] is read on one side of the branch only.
__global__ void oneSided(int n, const int *edges, const double *x,
                         double *E) {
  int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e < n) {
    int a = edges[2 * e], b = edges[2 * e + 1];
    double xb = x[b];
    double s = xb * xb;
    if (xb > 0)
      s += x[a] * xb;
// REMARK-DAG: elements-slot-stores.cu:[[@LINE-2]]:5: remark: gradient of 'oneSided': slots zeroed and added to, not stored once: component 0 of local vertex 0 of 'x' is not written on every path (one side of this branch skips it)
    atomicAdd(E, s);
  }
}
// CHECK-LABEL: __global__ void oneSided_grad_two_phase(
// CHECK-NOT: slotStore
// CHECK: meshad::slotAdd<2, 1>(_slots, n, e, 2 * e, 0,
// CHECK-NOT: slotStore
// CHECK: {{^}$}}

// Each vertex is read in two loops: two adds to each slot.
__global__ void triangles(int nf, const int *tris, const double *x,
                          double *E) {
  int f = blockIdx.x * blockDim.x + threadIdx.x;
  if (f >= nf)
    return;
  double cx = 0;
  for (int j = 0; j < 3; ++j)
    cx += x[tris[3 * f + j]];
  double s = 0;
  for (int j = 0; j < 3; ++j) {
    double dx = x[tris[3 * f + j]] - cx / 3;
    s += dx * dx;
  }
  atomicAdd(E, s * s);
}
// CHECK-LABEL: __global__ void triangles_grad_two_phase(
// CHECK-NOT: slotStore
// CHECK: {{^}$}}

__global__ void strideSprings(int n, const int *edges, const double *x,
                              double *E) {
  for (int e = blockIdx.x * blockDim.x + threadIdx.x; e < n;
       e += blockDim.x * gridDim.x) {
    double d = x[edges[2 * e]] - x[edges[2 * e + 1]];
    atomicAdd(E, d * d * d * d);
  }
}
// CHECK-LABEL: __global__ void strideSprings_grad_two_phase(
// CHECK-NOT: slotAdd
// CHECK: meshad::slotStore<2, 1>(_slots, n, e, 2 * e,
// CHECK-NOT: slotAdd
// CHECK: {{^}$}}

// REMARK-DAG: remark: gradient of 'springs': two-phase slots for x (element map through edges (arity 2, stride 3), n elements (guard)), no atomics, bitwise reproducible (as requested); each slot stored once, not zeroed
// REMARK-DAG: remark: gradient of 'tets': two-phase slots for x (element map through tet (arity 4, stride 3), nt elements (guard)), no atomics, bitwise reproducible (as requested); each slot stored once, not zeroed
// REMARK-DAG: remark: gradient of 'triangles': slots zeroed and added to, not stored once: component 0 of local vertex {{[0-2]}} of 'x' is added to a second time here on one path
// REMARK-DAG: remark: gradient of 'strideSprings': two-phase slots for x (element map through edges (arity 2, stride 1), n elements (grid-stride loop)), no atomics, bitwise reproducible (as requested); each slot stored once, not zeroed

int main() {
  mt::RandomInputs Rng;
  mt::ElementMeshes Mesh;
  const int V = Mesh.V, M = Mesh.M, Blocks = Mesh.Blocks;
  mt::DeviceArray<double> X3(3 * V), X1(V);
  Rng.fill(X3.host(), 3 * V, -1, 1);
  Rng.fill(X1.host(), V, -1, 1);
  dim3 Grid(Blocks), Block(Mesh.Threads);
  const int *Edges = Mesh.Edges.device();
  double *E = Mesh.E.device();
  using meshad::ElementStrategy;

  auto Springs = meshad::gradient(springs, "x, E", ElementStrategy::TwoPhase);
  auto SpringsAtomic =
      meshad::gradient(springs, "x, E", ElementStrategy::Atomics);
  std::printf("springs stores its slots once: %d\n",
              Springs.stores_slots_once());
  // Blocks * Threads >= M: every element has a thread; then 2 blocks of 4
  // threads for 11 elements: the slots are zeroed.
  for (int B : {Blocks, 2})
    mt::checkKernelGradient(
        B == Blocks ? "springs" : "springs, part of the elements", Mesh, X3,
        springs, Springs, SpringsAtomic, dim3(B), Block, M, Edges,
        X3.device(), E);

  auto Tets = meshad::gradient(tets, "x, E", ElementStrategy::TwoPhase);
  std::printf("tets stores its slots once: %d\n", Tets.stores_slots_once());
  mt::checkKernelGradient(
      "tets", Mesh, X3, tets, Tets,
      meshad::gradient(tets, "x, E", ElementStrategy::Atomics), Grid, Block, M,
      Mesh.Tet.device(), X3.device(), E);

  auto OneSided = meshad::gradient(oneSided, "x, E", ElementStrategy::TwoPhase);
  std::printf("oneSided stores its slots once: %d\n",
              OneSided.stores_slots_once());
  mt::checkKernelGradient(
      "oneSided", Mesh, X1, oneSided, OneSided,
      meshad::gradient(oneSided, "x, E", ElementStrategy::Atomics), Grid,
      Block, M, Edges, X1.device(), E);

  auto Triangles =
      meshad::gradient(triangles, "x, E", ElementStrategy::TwoPhase);
  std::printf("triangles stores its slots once: %d\n",
              Triangles.stores_slots_once());
  mt::checkKernelGradient(
      "triangles", Mesh, X1, triangles, Triangles,
      meshad::gradient(triangles, "x, E", ElementStrategy::Atomics), Grid,
      Block, M, Mesh.Tris.device(), X1.device(), E);

  mt::checkKernelGradient(
      "strideSprings", Mesh, X1, strideSprings,
      meshad::gradient(strideSprings, "x, E", ElementStrategy::TwoPhase),
      meshad::gradient(strideSprings, "x, E", ElementStrategy::Atomics),
      dim3(1), Block, M, Edges, X1.device(), E);
  return mt::summary();
}
// NUM: springs stores its slots once: 1
// NUM: tets stores its slots once: 1
// NUM: oneSided stores its slots once: 0
// NUM: triangles stores its slots once: 0
// NUM-NOT: FAIL
// NUM: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
