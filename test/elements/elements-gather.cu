// Gather by recomputation (issue 11): meshad::ElementStrategy::Gather turns
// the gradient of an element kernel into a kernel over the vertices; each
// vertex loops over its incident (element, local vertex) pairs in the fixed
// order of the incidence, gathers the element's DOFs, recomputes its local
// gradient with the extracted pullback <k>_element_grad (or only its own
// part, <k>_element_grad_<j>: elements-gather-parts.cu) and keeps its own
// part (plain stores, no atomics). 3D springs with a per-element rest length
// (edges), triangles with 2D DOFs (early return, loops over the local
// vertices), triangles with 3D DOFs, tets (arity 4), 1D springs in a
// grid-stride loop (test/Inputs/ElementKernels.h). Each kernel's gather,
// two-phase and atomic gradients: against central differences, bitwise
// equal across two runs, and within 1e-12 of the atomic gradient.
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

// The gather kernel over the vertices (plain stores, no atomics), then the
// two-phase and the atomic kernels of the same kernel; the element
// functions (shared with meshad::hessian's) come last.
// CHECK-LABEL: __global__ void springs_grad_3_4_gather(int n, const int *edges, const double *rest, const double *x, double *E, double *_d_x, double *_d_E, const int *_offsets, const int *_incident, int _nv) {
// CHECK-NEXT:   int _v = (int)(blockIdx.x * blockDim.x + threadIdx.x);
// CHECK-NEXT:   if (_v < _nv) {
// CHECK-NEXT:     double _sum[3] = {};
// CHECK-NEXT:     for (int _i = _offsets[_v]; _i < _offsets[_v + 1]; ++_i) {
// CHECK-NEXT:       int _slot = _incident[_i];
// CHECK-NEXT:       int e = _slot / 2;
// CHECK-NEXT:       double _xl[6];
// CHECK-NEXT:       meshad::gatherElement<2, 3>(x, edges, e, _xl);
// CHECK-NEXT:       double _gl[6] = {};
// CHECK-NEXT:       springs_element_grad(n, edges, rest, e, _xl, _d_E[0], _gl);
// CHECK-NEXT:       meshad::keepVertexPart<2, 3>(_sum, _gl, _slot - 2 * e);
// CHECK-NEXT:     }
// CHECK-NEXT:     meshad::addVertexSum<3>(_d_x, _v, _sum);
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-LABEL: __global__ void springs_grad_3_4_two_phase(
// CHECK: meshad::slotStore<2, 3>(_slots, n, e, 2 * e, k, _r0);
// CHECK-LABEL: __global__ void springs_grad_3_4_atomics(
// CHECK-LABEL: __global__ void triangles2_grad_gather(int nf, const int *tris, const double *x, double *E, double *_d_x, double *_d_E, const int *_offsets, const int *_incident, int _nv) {
// CHECK-NOT: atomicAdd
// CHECK: int f = _slot / 3;
// CHECK: meshad::gatherElement<3, 2>(x, tris, f, _xl);
// CHECK: triangles2_element_grad(nf, tris, f, _xl, _d_E[0], _gl);
// CHECK: meshad::keepVertexPart<3, 2>(_sum, _gl, _slot - 3 * f);
// CHECK: meshad::addVertexSum<2>(_d_x, _v, _sum);
// CHECK-LABEL: __global__ void triangles2_grad_two_phase(
// CHECK-LABEL: __global__ void triangles2_grad_atomics(
// CHECK-LABEL: __global__ void triangles3_grad_gather(
// CHECK-NOT: atomicAdd
// CHECK: triangles3_element_grad(nf, tris, f, _xl, _d_E[0], _gl);
// CHECK-LABEL: __global__ void triangles3_grad_two_phase(
// CHECK-LABEL: __global__ void triangles3_grad_atomics(
// CHECK-LABEL: __global__ void tets_grad_gather(
// CHECK-NOT: atomicAdd
// CHECK: int t = _slot / 4;
// CHECK: meshad::gatherElement<4, 3>(x, tet, t, _xl);
// CHECK: meshad::keepVertexPart<4, 3>(_sum, _gl, _j);
// CHECK-LABEL: __global__ void tets_grad_two_phase(
// CHECK-LABEL: __global__ void tets_grad_atomics(
// CHECK-LABEL: __global__ void strideSprings_grad_gather(
// CHECK-NOT: atomicAdd
// CHECK: meshad::addVertexSum<1>(_d_x, _v, _sum);
// CHECK-LABEL: __global__ void strideSprings_grad_two_phase(
// CHECK-LABEL: __global__ void strideSprings_grad_atomics(
// CHECK-LABEL: __device__ double springs_element(int n, const int *edges, const double *rest, int e, const double *x) {
// CHECK: double d = x[k] - x[3 + k];
// CHECK: double s = sqrt(l2) - rest[e];
// CHECK-LABEL: __device__ void springs_element_grad(int n, const int *edges, const double *rest, int e, const double *x, double _d_y, double *_d_x) {
// CHECK: _d_x[k] += _r0;
// CHECK-NEXT: _d_x[3 + k] += -_r0;
// CHECK-LABEL: __device__ double triangles2_element(
// CHECK-LABEL: __device__ void triangles2_element_grad(
// CHECK-LABEL: __device__ double triangles3_element(
// CHECK: w[k] = x[6 + k] - x[k];
// CHECK-LABEL: __device__ void triangles3_element_grad(
// CHECK-LABEL: __device__ double tets_element(
// CHECK-LABEL: __device__ void tets_element_grad(
// CHECK-LABEL: __device__ double strideSprings_element(
// CHECK-LABEL: __device__ void strideSprings_element_grad(

// REMARK-DAG: remark: gradient of 'springs': gather by recomputation for x (element map through edges (arity 2, stride 3), n elements (guard)), one thread per vertex, no atomics, bitwise reproducible (as requested); whole pullback recomputed per vertex (the parts save 10% of the work on average, under the 25% that a warp's divergence on the local vertex costs)
// REMARK-DAG: remark: gradient of 'triangles2': gather by recomputation for x (element map through tris (arity 3, stride 2), nf elements (early return))
// REMARK-DAG: remark: gradient of 'triangles3': gather by recomputation for x (element map through tris (arity 3, stride 3), nf elements (guard)){{.*}}; whole pullback recomputed per vertex (the parts save 23% of the work on average, under the 25% that a warp's divergence on the local vertex costs)
// REMARK-DAG: remark: gradient of 'tets': gather by recomputation for x (element map through tet (arity 4, stride 3), nt elements (guard)){{.*}}; own part only: 92, 49, 52, 52 of 101 operations per local vertex
// REMARK-DAG: remark: gradient of 'strideSprings': gather by recomputation for x (element map through edges (arity 2, stride 1), n elements (grid-stride loop))

const double Seed = 1.5;

/// One kernel's three gradients: gather (checked against central
/// differences, bitwise across runs, and against the atomic gradient) and
/// two-phase (the same checks), each launched on (Grid, Mesh.Threads) with
/// the primal's arguments \p As.
template <class K, class Ga, class Tp, class At, class... Args>
void checkStrategies(const std::string &Name, mt::ElementMeshes &Mesh,
                     mt::DeviceArray<double> &X, K Kernel, Ga &&Gather,
                     Tp &&TwoPhase, At &&Atomic, dim3 Grid, Args... As) {
  dim3 Block(Mesh.Threads);
  mt::checkKernelGradient(Name + " gather", Mesh, X, Kernel, Gather, Atomic,
                          Grid, Block, As...);
  mt::checkKernelGradient(Name + " two-phase", Mesh, X, Kernel, TwoPhase,
                          Atomic, Grid, Block, As...);
}

int main() {
  mt::RandomInputs Rng;
  mt::ElementMeshes Mesh(Seed); // the gradients are seeded with dE = Seed
  const int V = Mesh.V, M = Mesh.M;
  mt::DeviceArray<double> Rest(M), X3(3 * V), X2(2 * V), X1(V);
  Rng.fill(Rest.host(), M, 0.2, 0.5);
  Rest.upload();
  Rng.fill(X3.host(), 3 * V, -1, 1);
  Rng.fill(X2.host(), 2 * V, -1, 1);
  Rng.fill(X1.host(), V, -1, 1);
  using meshad::ElementStrategy;
  dim3 G(Mesh.Blocks);
  const int *Edges = Mesh.Edges.device(), *Tris = Mesh.Tris.device();
  double *E = Mesh.E.device();

  checkStrategies("springs", Mesh, X3, springs,
                  meshad::gradient(springs, "x, E", ElementStrategy::Gather),
                  meshad::gradient(springs, "x, E", ElementStrategy::TwoPhase),
                  meshad::gradient(springs, "x, E", ElementStrategy::Atomics),
                  G, M, Edges, Rest.device(), X3.device(), E);
  checkStrategies(
      "triangles2", Mesh, X2, triangles2,
      meshad::gradient(triangles2, "x, E", ElementStrategy::Gather),
      meshad::gradient(triangles2, "x, E", ElementStrategy::TwoPhase),
      meshad::gradient(triangles2, "x, E", ElementStrategy::Atomics), G, M,
      Tris, X2.device(), E);
  checkStrategies(
      "triangles3", Mesh, X3, triangles3,
      meshad::gradient(triangles3, "x, E", ElementStrategy::Gather),
      meshad::gradient(triangles3, "x, E", ElementStrategy::TwoPhase),
      meshad::gradient(triangles3, "x, E", ElementStrategy::Atomics), G, M,
      Tris, X3.device(), E);
  checkStrategies("tets", Mesh, X3, tets,
                  meshad::gradient(tets, "x, E", ElementStrategy::Gather),
                  meshad::gradient(tets, "x, E", ElementStrategy::TwoPhase),
                  meshad::gradient(tets, "x, E", ElementStrategy::Atomics), G,
                  M, Mesh.Tet.device(), X3.device(), E);
  // One block of fewer threads than elements: each thread strides.
  checkStrategies(
      "strideSprings", Mesh, X1, strideSprings,
      meshad::gradient(strideSprings, "x, E", ElementStrategy::Gather),
      meshad::gradient(strideSprings, "x, E", ElementStrategy::TwoPhase),
      meshad::gradient(strideSprings, "x, E", ElementStrategy::Atomics),
      dim3(1), M, Edges, X1.device(), E);
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
