// Two-phase slots (issue 11): the gradient of an element kernel writes each
// element's local adjoint of x into its own slots (plain adds, no atomics),
// then sums each vertex's slots in the fixed order of the incidence. The
// request is the usual meshad::gradient(kernel, "x, E") with
// meshad::ElementStrategy::TwoPhase (for these small elements the default
// picks gather by recomputation: elements-gather.cu, elements-cost-model.cu);
// the handle builds the incidence on first use. The kernels of
// test/Inputs/ElementKernels.h: 3D springs (guard, vertices in locals, a loop
// over the components, a rest length read per element), triangles (early
// return, a loop over the local vertices), tets (arity 4), springs in a
// grid-stride loop. Each gradient: against central differences, bitwise
// equal across two runs, and close to the atomic gradient
// (meshad::ElementStrategy::Atomics).
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-remarks -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.log
// RUN: FileCheck %s --check-prefix=REMARK < %t.log
// RUN: FileCheck %s < %t.log
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "ElementCheck.h"
#include "ElementKernels.h"
#include <cmath>
#include <meshad/Differentiator.h>

namespace mt = meshad::test;

// CHECK-LABEL: __global__ void springs_grad_3_4_two_phase(int n, const int *edges, const double *rest, const double *x, double *E, double *_d_x, double *_d_E, double *_slots) {
// CHECK-NEXT: meshad::requireLaunch1D();
// CHECK-NOT: _d_x
// CHECK: meshad::slotStore<2, 3>(_slots, n, e, 2 * e, k, _r0);
// CHECK-NEXT: meshad::slotStore<2, 3>(_slots, n, e, 2 * e + 1, k, -_r0);
// CHECK-NOT: _d_x
// CHECK: {{^}$}}
// CHECK-LABEL: __global__ void springs_grad_3_4_atomics(
// CHECK: atomicAdd(&_d_x[3 * a + k],

// CHECK-LABEL: __global__ void triangles2_grad_two_phase(
// CHECK-NOT: atomicAdd(&_d_x
// CHECK: {{^}$}}

// CHECK-LABEL: __global__ void tets_grad_two_phase(
// CHECK-NOT: atomicAdd(&_d_x
// CHECK: meshad::slotStore<4, 3>(_slots, nt, t, 4 * t + 3, k,
// CHECK-NOT: atomicAdd(&_d_x
// CHECK: {{^}$}}

// CHECK-LABEL: __global__ void strideSprings_grad_two_phase(
// CHECK-NOT: atomicAdd(&_d_x
// CHECK: {{^}$}}

// REMARK-DAG: remark: gradient of 'springs': two-phase slots for x (element map through edges (arity 2, stride 3), n elements (guard)), no atomics, bitwise reproducible (as requested)
// REMARK-DAG: remark: gradient of 'triangles2': two-phase slots for x (element map through tris (arity 3, stride 2), nf elements (early return)), no atomics
// REMARK-DAG: remark: gradient of 'tets': two-phase slots for x (element map through tet (arity 4, stride 3), nt elements (guard)), no atomics
// REMARK-DAG: remark: gradient of 'strideSprings': two-phase slots for x (element map through edges (arity 2, stride 1), n elements (grid-stride loop)), no atomics

int main() {
  mt::RandomInputs Rng;
  mt::ElementMeshes Mesh;
  const int V = Mesh.V, M = Mesh.M;
  mt::DeviceArray<double> Rest(M), X3(3 * V), X2(2 * V), X1(V);
  Rng.fill(Rest.host(), M, 0.2, 0.5);
  Rest.upload();
  Rng.fill(X3.host(), 3 * V, -1, 1);
  Rng.fill(X2.host(), 2 * V, -1, 1);
  Rng.fill(X1.host(), V, -1, 1);
  dim3 Grid(Mesh.Blocks), Block(Mesh.Threads);
  double *E = Mesh.E.device();
  using meshad::ElementStrategy;

  mt::checkKernelGradient(
      "springs", Mesh, X3, springs,
      meshad::gradient(springs, "x, E", ElementStrategy::TwoPhase),
      meshad::gradient(springs, "x, E", ElementStrategy::Atomics), Grid, Block,
      M, Mesh.Edges.device(), Rest.device(), X3.device(), E);
  mt::checkKernelGradient(
      "triangles2", Mesh, X2, triangles2,
      meshad::gradient(triangles2, "x, E", ElementStrategy::TwoPhase),
      meshad::gradient(triangles2, "x, E", ElementStrategy::Atomics), Grid,
      Block, M, Mesh.Tris.device(), X2.device(), E);
  mt::checkKernelGradient(
      "tets", Mesh, X3, tets,
      meshad::gradient(tets, "x, E", ElementStrategy::TwoPhase),
      meshad::gradient(tets, "x, E", ElementStrategy::Atomics), Grid, Block, M,
      Mesh.Tet.device(), X3.device(), E);
  // Fewer threads than elements: each thread strides over several.
  mt::checkKernelGradient(
      "strideSprings", Mesh, X1, strideSprings,
      meshad::gradient(strideSprings, "x, E", ElementStrategy::TwoPhase),
      meshad::gradient(strideSprings, "x, E", ElementStrategy::Atomics),
      dim3(1), Block, M, Mesh.Edges.device(), X1.device(), E);
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
