// Element maps (issue 11, first step): where the ownership analysis finds a
// gather through an index array, the remark says whether an element -> DOF
// map is behind it (x[s*idx[c*t + j] + k], for the atomic-free strategies),
// its element count and how much work an element does, or why there is no
// map. The gradients of the kernels with one map and a count get the cost
// model's choice (test/elements): gather by recomputation for the springs,
// the triangles and these small tets (each with a two-phase copy that the
// handle runs instead on a scattered numbering), two-phase slots for cloth
// (two index arrays, one slot buffer each); strided keeps an atomicAdd per vertex contribution. All are checked against central finite
// differences: 3D springs (edges, the vertex
// loaded into locals, a loop over the components), triangles (a loop over
// the local vertices), tets (arity 4) of test/Inputs/ElementKernels.h (the
// remarks at their lines there), a grid-stride loop over springs and
// hinges (two index arrays), and a negative: a stride that is not a literal.
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-remarks -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.log
// RUN: FileCheck %s --check-prefix=REMARK < %t.log
// RUN: FileCheck %s < %t.log
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "ElementCheck.h"
#include "ElementKernels.h"
#include "KernelCheck.h"
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

namespace mt = meshad::test;

// REMARK: ElementKernels.h:40:18: remark: adjoint store to 'x': atomicAdd (shared: x[3 * a + k]: gather through an index array edges; x: element map through edges (arity 2, stride 3), n elements (guard), element work small (12 operations, 1 math call): atomic-free strategies possible)
// CHECK-LABEL: __global__ void springs_grad_3_4(
// The default (Auto) gradient: gather by recomputation over the map.
// CHECK: meshad::gatherElement<2, 3>(x, edges, e, _xl);
// CHECK: meshad::keepVertexPart<2, 3>(_sum, _gl, _slot - 2 * e);

// REMARK: ElementKernels.h:57:11: remark: adjoint store to 'x': atomicAdd (shared: x[2 * v]: gather through an index array tris; x: element map through tris (arity 3, stride 2), nf elements (early return), element work small (31 operations, 0 math calls): atomic-free strategies possible)
// CHECK-LABEL: __global__ void triangles2_grad(int nf, const int *tris, const double *x, double *E, double *_d_x, double *_d_E, const int *_offsets, const int *_incident, int _nv) {
// CHECK-NOT: atomicAdd(&_d_x
// CHECK: meshad::gatherElement<3, 2>(x, tris, f, _xl);

// REMARK: ElementKernels.h:94:14: remark: adjoint store to 'x': atomicAdd (shared: x[3 * b + k]: gather through an index array tet; x: element map through tet (arity 4, stride 3), nt elements (guard), element work small (25 operations, 1 math call): atomic-free strategies possible)
// CHECK-LABEL: __global__ void tets_grad(int nt, const int *tet, const double *x, double *E, double *_d_x, double *_d_E, const int *_offsets, const int *_incident, int _nv) {
// CHECK-NOT: atomicAdd(&_d_x
// CHECK: meshad::gatherElement<4, 3>(x, tet, t, _xl);

// Springs and hinges of a cloth, in a grid-stride loop: x is read through
// two index arrays, each element's spring and its hinge's two far vertices.
__global__ void cloth(int n, const int *edges, const int *hinges,
                      const double *x, double *E) {
  for (int e = blockIdx.x * blockDim.x + threadIdx.x; e < n;
       e += blockDim.x * gridDim.x) {
    int a = edges[2 * e], b = edges[2 * e + 1];
    int c = hinges[4 * e + 2], d = hinges[4 * e + 3];
    double s = x[a] - x[b], h = x[c] * x[d];
    atomicAdd(E, s * s + sin(h));
  }
}
// REMARK: ownership-element-maps.cu:[[#@LINE-4]]:16: remark: adjoint store to 'x': atomicAdd (shared: x[a]: gather through an index array edges; x: element maps through edges (arity 2) and hinges (arity 4), stride 1, n elements (grid-stride loop), element work small (4 operations, 1 math call): atomic-free strategies possible)
// CHECK-LABEL: __global__ void cloth_grad(
// CHECK-NOT: atomicAdd(&_d_x
// CHECK: meshad::slotAdd<4, 1>(_slots1, n, e, 4 * e + 2, 0, _r1 * x[d]);
// CHECK: meshad::slotAdd<2, 1>(_slots, n, e, 2 * e, 0, _r0);
// CHECK-NOT: atomicAdd(&_d_x
// CHECK: {{^}$}}

// Negative: the stride is a parameter, not a literal.
__global__ void strided(int n, int dim, const int *edges, const double *x,
                        double *E) {
  int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e < n) {
    int a = edges[2 * e], b = edges[2 * e + 1];
    atomicAdd(E, x[dim * a] * x[dim * b + 1]);
  }
}
// REMARK: ownership-element-maps.cu:[[#@LINE-3]]:18: remark: adjoint store to 'x': atomicAdd (shared: x[dim * a]: gather through an index array edges; x: no element map: x[dim * a]: the stride of a in a*dim is not a literal)
// CHECK-LABEL: __global__ void strided_grad(
// CHECK: atomicAdd(&_d_x[dim * a],
// The two-phase copies of the gathers, chosen at run time on a scattered
// numbering.
// CHECK-LABEL: __global__ void springs_grad_3_4_slots(
// CHECK-LABEL: __global__ void triangles2_grad_slots(int nf, const int *tris, const double *x, double *E, double *_d_x, double *_d_E, double *_slots) {
// CHECK-NOT: atomicAdd(&_d_x
// CHECK: meshad::slotAdd<3, 2>(_slots, nf, f, 3 * f + j, 0, _r0);
// CHECK-LABEL: __global__ void tets_grad_slots(int nt, const int *tet, const double *x, double *E, double *_d_x, double *_d_E, double *_slots) {
// CHECK-NOT: atomicAdd(&_d_x
// CHECK: meshad::slotStore<4, 3>(_slots, nt, t, 4 * t + 3, k, _r2);

/// A connectivity of M elements of arity C over V vertices, every element's
/// vertices distinct, vertices shared by several elements.
std::vector<int> connectivity(int M, int C, int V) {
  std::vector<int> Idx(M * C);
  for (int T = 0; T < M; ++T)
    for (int J = 0; J < C; ++J)
      Idx[C * T + J] = (T * 3 + J * 2) % V;
  return Idx;
}

/// Checks dE/dx of \p Launch (the primal, E zeroed before) against central
/// differences of the energy, and \p Grad's result.
template <class L, class G>
void check(const char *Name, mt::DeviceArray<double> &X, int N, L &&Launch,
           G &&Grad) {
  mt::DeviceArray<double> E(1), DX(N), DE(1);
  auto Energy = [&] {
    X.upload();
    E.zero();
    Launch(E.device());
    mt::checkLaunch(Name);
    E.download();
    return E[0];
  };
  std::vector<double> Expected = mt::fdGradient(Energy, X.host(), N);
  X.upload();
  DE[0] = 1;
  DE.upload();
  DX.zero();
  Grad(E.device(), DX.device(), DE.device());
  mt::checkLaunch(Name);
  DX.download();
  mt::checkArray(Name, DX.host(), Expected.data(), N);
}

int main() {
  mt::RandomInputs Rng;
  const int V = 7, M = 10, Threads = 4, Blocks = 3;
  mt::DeviceArray<int> Edges(2 * M), Tris(3 * M), Tet(4 * M), Hinges(4 * M);
  mt::upload(Edges, connectivity(M, 2, V));
  mt::upload(Tris, connectivity(M, 3, V));
  mt::upload(Tet, connectivity(M, 4, V));
  mt::upload(Hinges, connectivity(M, 4, V));
  mt::DeviceArray<double> Rest(M), X3(3 * V), X2(2 * V), X1(V);
  Rng.fill(Rest.host(), M, 0.2, 0.5);
  Rest.upload();
  Rng.fill(X3.host(), 3 * V, -1, 1);
  Rng.fill(X2.host(), 2 * V, -1, 1);
  Rng.fill(X1.host(), V, -1, 1);

  check("springs", X3, 3 * V,
        [&](double *E) {
          MESHAD_LAUNCH(springs, Blocks, Threads)(M, Edges.device(),
                                                  Rest.device(), X3.device(),
                                                  E);
        },
        [&](double *E, double *DX, double *DE) {
          meshad::gradient(springs, "x, E")
              .execute_kernel(dim3(Blocks), dim3(Threads), M, Edges.device(),
                              Rest.device(), X3.device(), E, DX, DE);
        });
  check("triangles2", X2, 2 * V,
        [&](double *E) {
          MESHAD_LAUNCH(triangles2, Blocks, Threads)(M, Tris.device(),
                                                     X2.device(), E);
        },
        [&](double *E, double *DX, double *DE) {
          meshad::gradient(triangles2, "x, E")
              .execute_kernel(dim3(Blocks), dim3(Threads), M, Tris.device(),
                              X2.device(), E, DX, DE);
        });
  check("tets", X3, 3 * V,
        [&](double *E) {
          MESHAD_LAUNCH(tets, Blocks, Threads)(M, Tet.device(), X3.device(),
                                               E);
        },
        [&](double *E, double *DX, double *DE) {
          meshad::gradient(tets, "x, E")
              .execute_kernel(dim3(Blocks), dim3(Threads), M, Tet.device(),
                              X3.device(), E, DX, DE);
        });
  // Fewer threads than elements: each thread strides over several.
  check("cloth", X1, V,
        [&](double *E) {
          MESHAD_LAUNCH(cloth, 1, Threads)(M, Edges.device(), Hinges.device(),
                                           X1.device(), E);
        },
        [&](double *E, double *DX, double *DE) {
          meshad::gradient(cloth, "x, E")
              .execute_kernel(dim3(1), dim3(Threads), M, Edges.device(),
                              Hinges.device(), X1.device(), E, DX, DE);
        });
  check("strided", X2, 2 * V,
        [&](double *E) {
          MESHAD_LAUNCH(strided, Blocks, Threads)(M, 2, Edges.device(),
                                                  X2.device(), E);
        },
        [&](double *E, double *DX, double *DE) {
          meshad::gradient(strided, "x, E")
              .execute_kernel(dim3(Blocks), dim3(Threads), M, 2,
                              Edges.device(), X2.device(), E, DX, DE);
        });
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 77 passed, 0 failed
