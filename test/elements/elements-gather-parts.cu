// Own-part-only recomputation in the gather (issue 11): each vertex of a
// gather kernel needs only its own local vertex's part of the element's local
// gradient. Per local vertex j, <k>_element_grad_<j> is the element's
// pullback without the adds into the other vertices' components and the work
// only they read; the gather kernel calls the one of its slot. Where no part
// is cheaper than the whole pullback (triangles whose loops over the local
// vertices add to every vertex's components in one statement), the whole
// pullback is kept. The remark gives the operation counts. 3D springs with a
// rest length, triangles with 3D DOFs, tets, triangles with 2D DOFs and loops
// over the local vertices: each gather against central differences, bitwise
// equal across two runs, within 1e-12 of the atomic gradient.
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-remarks -fplugin-arg-meshad-element-parts=always -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.log
// RUN: FileCheck %s --check-prefix=REMARK < %t.log
// RUN: FileCheck %s < %t.log
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "ElementCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

namespace mt = meshad::test;

__global__ void springs(int n, const int *edges, const double *rest,
                        const double *x, double *E) {
  int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e < n) {
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

__global__ void triangles3(int nf, const int *tris, const double *x,
                           double *E) {
  int f = blockIdx.x * blockDim.x + threadIdx.x;
  if (f < nf) {
    int a = tris[3 * f], b = tris[3 * f + 1], c = tris[3 * f + 2];
    double u[3], w[3];
    for (int k = 0; k < 3; ++k) {
      u[k] = x[3 * b + k] - x[3 * a + k];
      w[k] = x[3 * c + k] - x[3 * a + k];
    }
    double n0 = u[1] * w[2] - u[2] * w[1], n1 = u[2] * w[0] - u[0] * w[2],
           n2 = u[0] * w[1] - u[1] * w[0];
    atomicAdd(E, sqrt(n0 * n0 + n1 * n1 + n2 * n2 + 0.01));
  }
}

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

__global__ void triangles2(int nf, const int *tris, const double *x,
                           double *E) {
  int f = blockIdx.x * blockDim.x + threadIdx.x;
  if (f >= nf)
    return;
  double cx = 0, cy = 0;
  for (int j = 0; j < 3; ++j) {
    int v = tris[3 * f + j];
    cx += x[2 * v];
    cy += x[2 * v + 1];
  }
  double s = 0;
  for (int j = 0; j < 3; ++j) {
    int v = tris[3 * f + j];
    double dx = x[2 * v] - cx / 3, dy = x[2 * v + 1] - cy / 3;
    s += dx * dx + dy * dy;
  }
  atomicAdd(E, s * s);
}

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
  const int V = 8, M = 11, Threads = 4, Blocks = 3;
  mt::DeviceArray<int> Edges(2 * M), Tris(3 * M), Tet(4 * M);
  mt::upload(Edges, mt::elementConnectivity(M, 2, V));
  mt::upload(Tris, mt::elementConnectivity(M, 3, V));
  mt::upload(Tet, mt::elementConnectivity(M, 4, V));
  mt::DeviceArray<double> Rest(M), X3(3 * V), X2(2 * V), E(1), DE(1);
  Rng.fill(Rest.host(), M, 0.2, 0.5);
  Rest.upload();
  Rng.fill(X3.host(), 3 * V, -1, 1);
  Rng.fill(X2.host(), 2 * V, -1, 1);
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
  using meshad::ElementStrategy;

  auto SpringsPrimal = [&] {
    MESHAD_LAUNCH(springs, Blocks, Threads)(M, Edges.device(), Rest.device(),
                                            X3.device(), E.device());
  };
  mt::checkElementGradient(
      "springs", X3, Energy(X3, SpringsPrimal),
      [&](double *DX) {
        meshad::gradient(springs, "x, E", ElementStrategy::Gather)
            .execute_kernel(dim3(Blocks), dim3(Threads), M, Edges.device(),
                            Rest.device(), X3.device(), E.device(), DX,
                            Seed());
      },
      [&](double *DX) {
        meshad::gradient(springs, "x, E", ElementStrategy::Atomics)
            .execute_kernel(dim3(Blocks), dim3(Threads), M, Edges.device(),
                            Rest.device(), X3.device(), E.device(), DX,
                            Seed());
      });

  auto Triangles3Primal = [&] {
    MESHAD_LAUNCH(triangles3, Blocks, Threads)(M, Tris.device(), X3.device(),
                                               E.device());
  };
  mt::checkElementGradient(
      "triangles3", X3, Energy(X3, Triangles3Primal),
      [&](double *DX) {
        meshad::gradient(triangles3, "x, E", ElementStrategy::Gather)
            .execute_kernel(dim3(Blocks), dim3(Threads), M, Tris.device(),
                            X3.device(), E.device(), DX, Seed());
      },
      [&](double *DX) {
        meshad::gradient(triangles3, "x, E", ElementStrategy::Atomics)
            .execute_kernel(dim3(Blocks), dim3(Threads), M, Tris.device(),
                            X3.device(), E.device(), DX, Seed());
      });

  auto TetsPrimal = [&] {
    MESHAD_LAUNCH(tets, Blocks, Threads)(M, Tet.device(), X3.device(),
                                         E.device());
  };
  mt::checkElementGradient(
      "tets", X3, Energy(X3, TetsPrimal),
      [&](double *DX) {
        meshad::gradient(tets, "x, E", ElementStrategy::Gather)
            .execute_kernel(dim3(Blocks), dim3(Threads), M, Tet.device(),
                            X3.device(), E.device(), DX, Seed());
      },
      [&](double *DX) {
        meshad::gradient(tets, "x, E", ElementStrategy::Atomics)
            .execute_kernel(dim3(Blocks), dim3(Threads), M, Tet.device(),
                            X3.device(), E.device(), DX, Seed());
      });

  auto Triangles2Primal = [&] {
    MESHAD_LAUNCH(triangles2, Blocks, Threads)(M, Tris.device(), X2.device(),
                                               E.device());
  };
  mt::checkElementGradient(
      "triangles2", X2, Energy(X2, Triangles2Primal),
      [&](double *DX) {
        meshad::gradient(triangles2, "x, E", ElementStrategy::Gather)
            .execute_kernel(dim3(Blocks), dim3(Threads), M, Tris.device(),
                            X2.device(), E.device(), DX, Seed());
      },
      [&](double *DX) {
        meshad::gradient(triangles2, "x, E", ElementStrategy::Atomics)
            .execute_kernel(dim3(Blocks), dim3(Threads), M, Tris.device(),
                            X2.device(), E.device(), DX, Seed());
      });
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
