// The default strategy of element gradients (issue 11,
// meshad::ElementStrategy::Auto): the cost model (Driver/ElementCostModel.h)
// picks gather by recomputation for a small element (3D springs, of
// test/Inputs/ElementKernels.h; its handle confirms the gather at run time
// from the numbering, local here: elements-run-time-choice.cu tests both
// outcomes) and two-phase slots for a large one (a neo-Hookean-like tet);
// with
// meshad::ElementStrategy::Fastest, atomics included, it keeps the springs'
// gather and the tet's atomics (not bitwise reproducible: checked against
// central differences and the atomic gradient only); where gather
// does not apply (a further selected array, the per-element rest length,
// needs an adjoint of its own) Auto falls back to two-phase and says why,
// and an explicit Gather is an error with the reason (also with
// meshad::WithValue). A kernel whose Hessian is also requested shares its
// element functions with the gather (<k>_element, <k>_element_grad, made
// once); the Hessian handle's gradient is checked against the gather's.
// Every gradient: against central differences, bitwise equal across two
// runs, within 1e-12 of the atomic gradient.
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-remarks -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.log
// RUN: FileCheck %s --check-prefix=REMARK < %t.log
// RUN: FileCheck %s < %t.log
// RUN: %t | FileCheck %s --check-prefix=NUM
// RUN: not %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -I%test_inputs -DGATHER_REST %s -o %t.rest 2>&1 | FileCheck %s --check-prefix=REST
// RUN: not %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -I%test_inputs -DGATHER_VALUE %s -o %t.value 2>&1 | FileCheck %s --check-prefix=VALUE
#include "ElementCheck.h"
#include "ElementKernels.h"
#include <cmath>
#include <meshad/Differentiator.h>
#include <meshad/ElementHessian.h>

namespace mt = meshad::test;

// F = D * m (m a per-tet 3x3 matrix), 0.5 (|F|^2 - 3) - log J + 0.5 log^2 J
// with J = 1 + det(F)^2 (kept positive): about 100 operations an element.
__global__ void neoTets(int nt, const int *tets, const double *m,
                        const double *x, double *E) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < nt) {
    int i0 = tets[4 * t], i1 = tets[4 * t + 1];
    int i2 = tets[4 * t + 2], i3 = tets[4 * t + 3];
    double d[9], f[9], norm2 = 0;
    for (int k = 0; k < 3; ++k) {
      d[k] = x[3 * i1 + k] - x[3 * i0 + k];
      d[3 + k] = x[3 * i2 + k] - x[3 * i0 + k];
      d[6 + k] = x[3 * i3 + k] - x[3 * i0 + k];
    }
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) {
        f[3 * r + c] = d[r] * m[9 * t + c] + d[3 + r] * m[9 * t + 3 + c] +
                       d[6 + r] * m[9 * t + 6 + c];
        norm2 += f[3 * r + c] * f[3 * r + c];
      }
    double det = f[0] * (f[4] * f[8] - f[5] * f[7]) -
                 f[1] * (f[3] * f[8] - f[5] * f[6]) +
                 f[2] * (f[3] * f[7] - f[4] * f[6]);
    double logJ = log(1 + det * det);
    atomicAdd(E, 0.5 * (norm2 - 3.0) - logJ + 0.5 * logJ * logJ);
  }
}

// CHECK-LABEL: __global__ void springs_grad_3_4(int n, const int *edges, const double *rest, const double *x, double *E, double *_d_x, double *_d_E, const int *_offsets, const int *_incident, int _nv) {
// CHECK-NOT: atomicAdd
// CHECK: springs_element_grad(n, edges, rest, e, _xl, _d_E[0], _gl);
// CHECK-LABEL: __global__ void springs_grad_3_4_atomics(
// CHECK-LABEL: __global__ void springs_grad(int n, const int *edges, const double *rest, const double *x, double *E, double *_d_rest, double *_d_x, double *_d_E, double *_slots) {
// CHECK: meshad::slotStore<2, 3>(_slots, n, e, 2 * e, k, _r0);
// CHECK-LABEL: __global__ void springs_grad_atomics(
// CHECK-LABEL: __global__ void neoTets_grad_3_4(int nt, const int *tets, const double *m, const double *x, double *E, double *_d_x, double *_d_E, double *_slots) {
// CHECK-NOT: atomicAdd(&_d_x
// CHECK: meshad::slotStore<4, 3>(
// CHECK-LABEL: __global__ void neoTets_grad_3_4_atomics(
// Fastest: the springs' gather, the tets' atomics.
// CHECK-LABEL: __global__ void springs_grad_3_4_fastest(int n, const int *edges, const double *rest, const double *x, double *E, double *_d_x, double *_d_E, const int *_offsets, const int *_incident, int _nv) {
// CHECK-NOT: atomicAdd
// CHECK: springs_element_grad(n, edges, rest, e, _xl, _d_E[0], _gl);
// CHECK-LABEL: __global__ void neoTets_grad_3_4_fastest(int nt, const int *tets, const double *m, const double *x, double *E, double *_d_x, double *_d_E) {
// CHECK: atomicAdd(&_d_x[3 * i3 + k], _r2);
// The element functions, made once for the Hessian and the gather, then
// the Hessian's kernel, which calls the same pullback as the gather.
// CHECK-LABEL: __device__ double springs_element(
// CHECK-NOT: __device__ double springs_element(
// CHECK-LABEL: __device__ void springs_element_hessian(
// CHECK-LABEL: __device__ void springs_element_grad(
// CHECK-NOT: __device__ void springs_element_grad(
// CHECK-LABEL: __global__ void springs_hessian(
// CHECK: springs_element_grad(n, edges, rest, e, xl, 1., gl);

int main() {
  mt::RandomInputs Rng;
  const int V = 8, M = 11, Threads = 4, Blocks = 3;
  mt::DeviceArray<int> Edges(2 * M), Tets(4 * M);
  mt::upload(Edges, mt::elementConnectivity(M, 2, V));
  mt::upload(Tets, mt::elementConnectivity(M, 4, V));
  mt::DeviceArray<double> Rest(M), Mat(9 * M), X(3 * V), E(1), DE(1);
  Rng.fill(Rest.host(), M, 0.2, 0.5);
  Rest.upload();
  Rng.fill(Mat.host(), 9 * M, -1, 1);
  Mat.upload();
  Rng.fill(X.host(), 3 * V, -1, 1);
  DE[0] = 1;
  DE.upload();
  dim3 G(Blocks), B(Threads);
  auto Energy = [&](auto &&Primal) {
    return [&X, &E, Primal] {
      X.upload();
      E.zero();
      Primal();
      mt::checkLaunch("primal");
      E.download();
      return E[0];
    };
  };
  auto SpringsPrimal = [&] {
    MESHAD_LAUNCH(springs, Blocks, Threads)(M, Edges.device(), Rest.device(),
                                            X.device(), E.device());
  };
  // REMARK: elements-cost-model.cu:[[#@LINE+1]]:18: remark: gradient of 'springs': gather by recomputation for x (element map through edges (arity 2, stride 3), n elements (guard)), one thread per vertex, or two-phase slots (springs_grad_3_4_slots, each slot stored once), chosen at run time from the numbering of edges (the gather where it is local: meshad/runtime/NumberingLocality.h; strategy() says which), no atomics, bitwise reproducible (cost model: element work small (12 operations, 1 math call): estimated gather 60 < two-phase 188 operations per element)
  auto Springs = meshad::gradient(springs, "x, E");
  auto SpringsAtomic =
      meshad::gradient(springs, "x, E", meshad::ElementStrategy::Atomics);
  mt::checkElementGradient(
      "springs (Auto: gather)", X, Energy(SpringsPrimal),
      [&](double *DX) {
        Springs.execute_kernel(G, B, M, Edges.device(), Rest.device(),
                               X.device(), E.device(), DX, DE.device());
      },
      [&](double *DX) {
        SpringsAtomic.execute_kernel(G, B, M, Edges.device(), Rest.device(),
                                     X.device(), E.device(), DX, DE.device());
      });

  // The rest lengths selected too: their adjoint is the element's own, so
  // gather (which writes x's alone) does not apply; two-phase does.
  // REMARK: elements-cost-model.cu:[[#@LINE+1]]:19: remark: gradient of 'springs': two-phase slots for x (element map through edges (arity 2, stride 3), n elements (guard)), no atomics, bitwise reproducible (cost model: element work small (12 operations, 1 math call): estimated gather 60 < two-phase 188 operations per element; gather does not apply: the gradient also computes '_d_rest' (gather recomputes only the adjoint of 'x'))
  auto WithRest = meshad::gradient(springs, "rest, x, E");
  auto WithRestAtomic = meshad::gradient(springs, "rest, x, E",
                                         meshad::ElementStrategy::Atomics);
  mt::DeviceArray<double> DRest(M), DRestAtomic(M);
  mt::checkElementGradient(
      "springs with rest (Auto: two-phase)", X, Energy(SpringsPrimal),
      [&](double *DX) {
        DRest.zero();
        WithRest.execute_kernel(G, B, M, Edges.device(), Rest.device(),
                                X.device(), E.device(), DRest.device(), DX,
                                DE.device());
      },
      [&](double *DX) {
        DRestAtomic.zero();
        WithRestAtomic.execute_kernel(G, B, M, Edges.device(), Rest.device(),
                                      X.device(), E.device(),
                                      DRestAtomic.device(), DX, DE.device());
      });
  DRest.download();
  std::vector<double> RestRef = mt::fdGradient(
      [&] {
        Rest.upload();
        E.zero();
        SpringsPrimal();
        E.download();
        return E[0];
      },
      Rest.host(), M);
  Rest.upload();
  mt::checkArray("dE/drest", DRest.host(), RestRef.data(), M);

  auto TetsPrimal = [&] {
    MESHAD_LAUNCH(neoTets, Blocks, Threads)(M, Tets.device(), Mat.device(),
                                            X.device(), E.device());
  };
  // REMARK: elements-cost-model.cu:[[#@LINE+1]]:16: remark: gradient of 'neoTets': two-phase slots for x (element map through tets (arity 4, stride 3), nt elements (guard)), no atomics, bitwise reproducible (cost model: element work large ([[OPS:[0-9]+]] operations, 1 math call): estimated two-phase [[TWO:[0-9]+]] < gather [[GATHER:[0-9]+]] operations per element (atomics [[ATOMICS:[0-9]+]], not bitwise reproducible: ElementStrategy::Fastest or Atomics))
  auto Tets3 = meshad::gradient(neoTets, "x, E");
  auto TetsAtomic =
      meshad::gradient(neoTets, "x, E", meshad::ElementStrategy::Atomics);
  mt::checkElementGradient(
      "neoTets (Auto: two-phase)", X, Energy(TetsPrimal),
      [&](double *DX) {
        Tets3.execute_kernel(G, B, M, Tets.device(), Mat.device(), X.device(),
                             E.device(), DX, DE.device());
      },
      [&](double *DX) {
        TetsAtomic.execute_kernel(G, B, M, Tets.device(), Mat.device(),
                                  X.device(), E.device(), DX, DE.device());
      });

  // Fastest: the cheapest by the model, atomics included. The springs keep
  // the gather (its own kernel, _fastest), or atomics on a scattered
  // numbering, chosen at run time (elements-fastest-run-time.cu; this
  // mesh's numbering is local: the gather).
  // REMARK: elements-cost-model.cu:[[#@LINE+2]]:7: remark: gradient of 'springs': gather by recomputation for x (element map through edges (arity 2, stride 3), n elements (guard)), one thread per vertex, or atomics (springs_grad_3_4_fastest_atomics, not bitwise reproducible), chosen at run time from the numbering of edges (the gather where it is local: meshad/runtime/NumberingLocality.h; strategy() says which), bitwise reproducible only where the gather runs (cost model: element work small (12 operations, 1 math call): estimated gather 60 < atomics 92 < two-phase 188 operations per element)
  auto SpringsFastest =
      meshad::gradient(springs, "x, E", meshad::ElementStrategy::Fastest);
  mt::checkElementGradient(
      "springs (Fastest: gather)", X, Energy(SpringsPrimal),
      [&](double *DX) {
        SpringsFastest.execute_kernel(G, B, M, Edges.device(), Rest.device(),
                                      X.device(), E.device(), DX, DE.device());
      },
      [&](double *DX) {
        SpringsAtomic.execute_kernel(G, B, M, Edges.device(), Rest.device(),
                                     X.device(), E.device(), DX, DE.device());
      });
  mt::checker().close("springs (Fastest) ran the gather",
                      SpringsFastest.strategy() ==
                              meshad::ElementStrategy::Gather
                          ? 1.0
                          : 0.0,
                      1.0, 0.0);
  // The tets get atomics: against central differences and the atomic
  // gradient, not bitwise across runs.
  // REMARK: elements-cost-model.cu:[[#@LINE+2]]:7: remark: gradient of 'neoTets': atomics for x (element map through tets (arity 4, stride 3), nt elements (guard)), not bitwise reproducible (cost model: element work large ([[OPS]] operations, 1 math call): estimated atomics [[ATOMICS]] < two-phase [[TWO]] < gather [[GATHER]] operations per element)
  auto TetsFastest =
      meshad::gradient(neoTets, "x, E", meshad::ElementStrategy::Fastest);
  std::vector<double> TetsRef =
      mt::fdGradient(Energy(TetsPrimal), X.host(), 3 * V);
  // Vertex V - 1 is in no element: its derivative is exactly 0 (on a GPU,
  // differences of the energy's atomic sum see only rounding noise there).
  for (int K = 0; K < 3; ++K)
    TetsRef[3 * (V - 1) + K] = 0;
  mt::DeviceArray<double> DXFastest(3 * V), DXAtomic(3 * V);
  X.upload();
  DXFastest.zero();
  TetsFastest.execute_kernel(G, B, M, Tets.device(), Mat.device(), X.device(),
                             E.device(), DXFastest.device(), DE.device());
  mt::checkLaunch("neoTets (Fastest: atomics)");
  DXFastest.download();
  mt::checkArray("neoTets (Fastest: atomics)", DXFastest.host(),
                 TetsRef.data(), 3 * V);
  DXAtomic.zero();
  TetsAtomic.execute_kernel(G, B, M, Tets.device(), Mat.device(), X.device(),
                            E.device(), DXAtomic.device(), DE.device());
  DXAtomic.download();
  for (int I = 0; I < 3 * V; ++I)
    mt::checker().close("neoTets Fastest = Atomics", DXFastest[I], DXAtomic[I],
                        1e-12);

  // The Hessian's gradient (the same element pullback) against the gather's.
  auto H = meshad::hessian(springs, "x");
  mt::DeviceArray<double> HG(3 * V), GG(3 * V);
  X.upload();
  HG.zero();
  H.execute_kernel(G, B, M, Edges.device(), Rest.device(), X.device(),
                   nullptr, HG.device());
  mt::checkLaunch("hessian");
  HG.download();
  GG.zero();
  Springs.execute_kernel(G, B, M, Edges.device(), Rest.device(), X.device(),
                         E.device(), GG.device(), DE.device());
  GG.download();
  mt::checkArray("hessian's gradient", HG.host(), GG.host(), 3 * V);
#ifdef GATHER_REST
  // REST: elements-cost-model.cu:[[#@LINE+1]]:43: error: meshad::ElementStrategy::Gather does not apply to 'springs': the gradient also computes '_d_rest' (gather recomputes only the adjoint of 'x')
  meshad::gradient(springs, "rest, x, E", meshad::ElementStrategy::Gather);
#endif
#ifdef GATHER_VALUE
  // VALUE: elements-cost-model.cu:[[#@LINE+1]]:56: error: meshad::ElementStrategy::Gather does not apply to 'springs': the gradient also leaves the energy's value (meshad::WithValue)
  meshad::gradient(springs, "x, E", meshad::WithValue, meshad::ElementStrategy::Gather);
#endif
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
