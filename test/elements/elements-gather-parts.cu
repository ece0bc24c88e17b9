// Own-part-only recomputation in the gather (issue 11): each vertex of a
// gather kernel needs only its own local vertex's part of the element's local
// gradient. Per local vertex j, <k>_element_grad_<j> is the element's
// pullback without the adds into the other vertices' components and the work
// only they read; the gather kernel calls the one of its slot. Where no part
// is cheaper than the whole pullback (triangles whose loops over the local
// vertices add to every vertex's components in one statement), the whole
// pullback is kept. The remark gives the operation counts. 3D springs with a
// rest length, triangles with 3D DOFs, tets, triangles with 2D DOFs and loops
// over the local vertices (test/Inputs/ElementKernels.h): each gather against central differences, bitwise
// equal across two runs, within 1e-12 of the atomic gradient.
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-remarks -fplugin-arg-meshad-element-parts=always -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.log
// RUN: FileCheck %s --check-prefix=REMARK < %t.log
// RUN: FileCheck %s < %t.log
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "ElementCheck.h"
#include "ElementKernels.h"
#include <cmath>
#include <meshad/Differentiator.h>

namespace mt = meshad::test;

// CHECK-LABEL: __global__ void springs_grad_3_4_gather(
// CHECK:       int _j = _slot - 2 * e;
// CHECK-NEXT:  if (_j == 0) {
// CHECK-NEXT:    springs_element_grad_0(n, edges, rest, e, _xl, _d_E[0], _gl);
// CHECK-NEXT:  } else {
// CHECK-NEXT:    springs_element_grad_1(n, edges, rest, e, _xl, _d_E[0], _gl);
// CHECK-NEXT:  }
// CHECK-NEXT:  meshad::keepVertexPart<2, 3>(_sum, _gl, _j);
// CHECK-LABEL: __global__ void triangles3_grad_gather(
// CHECK:       int _j = _slot - 3 * f;
// CHECK-NEXT:  if (_j == 0) {
// CHECK-NEXT:    triangles3_element_grad_0(nf, tris, f, _xl, _d_E[0], _gl);
// CHECK-NEXT:  } else if (_j == 1) {
// CHECK-NEXT:    triangles3_element_grad_1(nf, tris, f, _xl, _d_E[0], _gl);
// CHECK-NEXT:  } else {
// CHECK-NEXT:    triangles3_element_grad_2(nf, tris, f, _xl, _d_E[0], _gl);
// CHECK-NEXT:  }
// CHECK-NEXT:  meshad::keepVertexPart<3, 3>(_sum, _gl, _j);
// CHECK-LABEL: __global__ void tets_grad_gather(
// CHECK:       tets_element_grad_0(nt, tet, t, _xl, _d_E[0], _gl);
// CHECK:       } else if (_j == 2) {
// CHECK-NEXT:    tets_element_grad_2(nt, tet, t, _xl, _d_E[0], _gl);
// CHECK-NEXT:  } else {
// CHECK-NEXT:    tets_element_grad_3(nt, tet, t, _xl, _d_E[0], _gl);
// CHECK-LABEL: __global__ void triangles2_grad_gather(
// CHECK-NOT:   _j
// CHECK:       triangles2_element_grad(nf, tris, f, _xl, _d_E[0], _gl);
// CHECK-NEXT:  meshad::keepVertexPart<3, 2>(_sum, _gl, _slot - 3 * f);

// The parts: each adds to its own vertex's components only.
// CHECK-LABEL: __device__ void springs_element_grad_0(
// CHECK-NOT:   _d_x[3 + k]
// CHECK:       _d_x[k] += _r0;
// CHECK-NOT:   _d_x[3 + k]
// CHECK:       {{^}$}}
// CHECK-LABEL: __device__ void springs_element_grad_1(
// CHECK-NOT:   _d_x[k]
// CHECK:       _d_x[3 + k] += -_r0;
// CHECK-NOT:   _d_x[k]
// CHECK:       {{^}$}}
// CHECK-LABEL: __device__ void triangles3_element_grad_2(
// CHECK-NOT:   _d_u
// CHECK:       _d_x[6 + k] += _d_w[k];
// CHECK-NOT:   _d_x[
// CHECK:       {{^}$}}
// CHECK-LABEL: __device__ void tets_element_grad_3(
// CHECK-NOT:   _d_u
// CHECK-NOT:   _d_v[
// CHECK:       _d_x[9 + k] += _d_w[k];
// CHECK-NOT:   _d_x[
// CHECK:       {{^}$}}

// REMARK-DAG: remark: gradient of 'springs': gather by recomputation for x ({{.*}}); own part only: {{[0-9]+}}, {{[0-9]+}} of {{[0-9]+}} operations per local vertex
// REMARK-DAG: remark: gradient of 'triangles3': gather by recomputation for x ({{.*}}); own part only: {{[0-9]+}}, {{[0-9]+}}, {{[0-9]+}} of {{[0-9]+}} operations per local vertex
// REMARK-DAG: remark: gradient of 'tets': gather by recomputation for x ({{.*}}); own part only: {{[0-9]+}}, {{[0-9]+}}, {{[0-9]+}}, {{[0-9]+}} of {{[0-9]+}} operations per local vertex
// REMARK-DAG: remark: gradient of 'triangles2': gather by recomputation for x ({{.*}}); whole pullback recomputed per vertex (each local vertex reads all of the pullback's work)

int main() {
  mt::RandomInputs Rng;
  mt::ElementMeshes Mesh;
  const int V = Mesh.V, M = Mesh.M;
  mt::DeviceArray<double> Rest(M), X3(3 * V), X2(2 * V);
  Rng.fill(Rest.host(), M, 0.2, 0.5);
  Rest.upload();
  Rng.fill(X3.host(), 3 * V, -1, 1);
  Rng.fill(X2.host(), 2 * V, -1, 1);
  dim3 Grid(Mesh.Blocks), Block(Mesh.Threads);
  double *E = Mesh.E.device();
  using meshad::ElementStrategy;

  mt::checkKernelGradient(
      "springs", Mesh, X3, springs,
      meshad::gradient(springs, "x, E", ElementStrategy::Gather),
      meshad::gradient(springs, "x, E", ElementStrategy::Atomics), Grid, Block,
      M, Mesh.Edges.device(), Rest.device(), X3.device(), E);
  mt::checkKernelGradient(
      "triangles3", Mesh, X3, triangles3,
      meshad::gradient(triangles3, "x, E", ElementStrategy::Gather),
      meshad::gradient(triangles3, "x, E", ElementStrategy::Atomics), Grid,
      Block, M, Mesh.Tris.device(), X3.device(), E);
  mt::checkKernelGradient(
      "tets", Mesh, X3, tets,
      meshad::gradient(tets, "x, E", ElementStrategy::Gather),
      meshad::gradient(tets, "x, E", ElementStrategy::Atomics), Grid, Block, M,
      Mesh.Tet.device(), X3.device(), E);
  mt::checkKernelGradient(
      "triangles2", Mesh, X2, triangles2,
      meshad::gradient(triangles2, "x, E", ElementStrategy::Gather),
      meshad::gradient(triangles2, "x, E", ElementStrategy::Atomics), Grid,
      Block, M, Mesh.Tris.device(), X2.device(), E);
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
