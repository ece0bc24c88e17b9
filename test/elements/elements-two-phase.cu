// Two-phase slots (issue 11): the gradient of an element kernel writes each
// element's local adjoint of x into its own slots (plain adds, no atomics),
// then sums each vertex's slots in the fixed order of the incidence. The
// request is the usual meshad::gradient(kernel, "x, E") with
// meshad::ElementStrategy::TwoPhase (for these small elements the default
// picks gather by recomputation: elements-gather.cu, elements-cost-model.cu);
// the handle builds the incidence on first use. 3D springs (guard, vertices in locals, a loop
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
// CHECK-LABEL: __global__ void springs_grad_3_4_two_phase(int n, const int *edges, const double *rest, const double *x, double *E, double *_d_x, double *_d_E, double *_slots) {
// CHECK-NEXT: meshad::requireLaunch1D();
// CHECK-NOT: _d_x
// CHECK: meshad::slotStore<2, 3>(_slots, n, e, 2 * e, k, _r0);
// CHECK-NEXT: meshad::slotStore<2, 3>(_slots, n, e, 2 * e + 1, k, -_r0);
// CHECK-NOT: _d_x
// CHECK: {{^}$}}
// CHECK-LABEL: __global__ void springs_grad_3_4_atomics(
// CHECK: atomicAdd(&_d_x[3 * a + k],

__global__ void triangles(int nf, const int *tris, const double *x,
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
// CHECK-LABEL: __global__ void triangles_grad_two_phase(
// CHECK-NOT: atomicAdd(&_d_x
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
// CHECK-NOT: atomicAdd(&_d_x
// CHECK: meshad::slotStore<4, 3>(_slots, nt, t, 4 * t + 3, k,
// CHECK-NOT: atomicAdd(&_d_x
// CHECK: {{^}$}}

__global__ void strideSprings(int n, const int *edges, const double *x,
                              double *E) {
  for (int e = blockIdx.x * blockDim.x + threadIdx.x; e < n;
       e += blockDim.x * gridDim.x) {
    int a = edges[2 * e], b = edges[2 * e + 1];
    double d = x[a] - x[b];
    atomicAdd(E, d * d * d * d);
  }
}
// CHECK-LABEL: __global__ void strideSprings_grad_two_phase(
// CHECK-NOT: atomicAdd(&_d_x
// CHECK: {{^}$}}

// REMARK-DAG: remark: gradient of 'springs': two-phase slots for x (element map through edges (arity 2, stride 3), n elements (guard)), no atomics, bitwise reproducible (as requested)
// REMARK-DAG: remark: gradient of 'triangles': two-phase slots for x (element map through tris (arity 3, stride 2), nf elements (early return)), no atomics
// REMARK-DAG: remark: gradient of 'tets': two-phase slots for x (element map through tet (arity 4, stride 3), nt elements (guard)), no atomics
// REMARK-DAG: remark: gradient of 'strideSprings': two-phase slots for x (element map through edges (arity 2, stride 1), n elements (grid-stride loop)), no atomics

int main() {
  mt::RandomInputs Rng;
  const int V = 8, M = 11, Threads = 4, Blocks = 3;
  mt::DeviceArray<int> Edges(2 * M), Tris(3 * M), Tet(4 * M);
  mt::upload(Edges, mt::elementConnectivity(M, 2, V));
  mt::upload(Tris, mt::elementConnectivity(M, 3, V));
  mt::upload(Tet, mt::elementConnectivity(M, 4, V));
  mt::DeviceArray<double> Rest(M), X3(3 * V), X2(2 * V), X1(V), E(1), DE(1);
  Rng.fill(Rest.host(), M, 0.2, 0.5);
  Rest.upload();
  Rng.fill(X3.host(), 3 * V, -1, 1);
  Rng.fill(X2.host(), 2 * V, -1, 1);
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

  auto SpringsPrimal = [&] {
    MESHAD_LAUNCH(springs, Blocks, Threads)(M, Edges.device(), Rest.device(),
                                            X3.device(), E.device());
  };
  auto Springs =
      meshad::gradient(springs, "x, E", meshad::ElementStrategy::TwoPhase);
  auto SpringsAtomic =
      meshad::gradient(springs, "x, E", meshad::ElementStrategy::Atomics);
  mt::checkElementGradient(
      "springs", X3, Energy(X3, SpringsPrimal),
      [&](double *DX) {
        Springs.execute_kernel(dim3(Blocks), dim3(Threads), M, Edges.device(),
                               Rest.device(), X3.device(), E.device(), DX,
                               Seed());
      },
      [&](double *DX) {
        SpringsAtomic.execute_kernel(dim3(Blocks), dim3(Threads), M,
                                     Edges.device(), Rest.device(),
                                     X3.device(), E.device(), DX, Seed());
      });

  auto TrianglesPrimal = [&] {
    MESHAD_LAUNCH(triangles, Blocks, Threads)(M, Tris.device(), X2.device(),
                                              E.device());
  };
  mt::checkElementGradient(
      "triangles", X2, Energy(X2, TrianglesPrimal),
      [&](double *DX) {
        meshad::gradient(triangles, "x, E", meshad::ElementStrategy::TwoPhase)
            .execute_kernel(dim3(Blocks), dim3(Threads), M, Tris.device(),
                            X2.device(), E.device(), DX, Seed());
      },
      [&](double *DX) {
        meshad::gradient(triangles, "x, E", meshad::ElementStrategy::Atomics)
            .execute_kernel(dim3(Blocks), dim3(Threads), M, Tris.device(),
                            X2.device(), E.device(), DX, Seed());
      });

  auto TetsPrimal = [&] {
    MESHAD_LAUNCH(tets, Blocks, Threads)(M, Tet.device(), X3.device(),
                                         E.device());
  };
  mt::checkElementGradient(
      "tets", X3, Energy(X3, TetsPrimal),
      [&](double *DX) {
        meshad::gradient(tets, "x, E", meshad::ElementStrategy::TwoPhase)
            .execute_kernel(dim3(Blocks), dim3(Threads), M, Tet.device(),
                            X3.device(), E.device(), DX, Seed());
      },
      [&](double *DX) {
        meshad::gradient(tets, "x, E", meshad::ElementStrategy::Atomics)
            .execute_kernel(dim3(Blocks), dim3(Threads), M, Tet.device(),
                            X3.device(), E.device(), DX, Seed());
      });

  // Fewer threads than elements: each thread strides over several.
  auto StridePrimal = [&] {
    MESHAD_LAUNCH(strideSprings, 1, Threads)(M, Edges.device(), X1.device(),
                                             E.device());
  };
  mt::checkElementGradient(
      "strideSprings", X1, Energy(X1, StridePrimal),
      [&](double *DX) {
        meshad::gradient(strideSprings, "x, E",
                         meshad::ElementStrategy::TwoPhase)
            .execute_kernel(dim3(1), dim3(Threads), M, Edges.device(),
                            X1.device(), E.device(), DX, Seed());
      },
      [&](double *DX) {
        meshad::gradient(strideSprings, "x, E",
                         meshad::ElementStrategy::Atomics)
            .execute_kernel(dim3(1), dim3(Threads), M, Edges.device(),
                            X1.device(), E.device(), DX, Seed());
      });
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
