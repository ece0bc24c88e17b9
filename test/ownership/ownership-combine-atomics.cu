// Gathers through an index array keep atomics when asked to
// (meshad::ElementStrategy::Atomics; the default is two-phase slots, see
// test/elements), but one thread's contributions to the same address
// are combined: (x[a] - x[b])^2 + x[a]*x[b] reads x[a] and x[b] three times
// each, and its gradient does one atomicAdd per address. The energy output
// E is only written by the kernel (atomicAdd into it): the gradient kernel
// does not repeat that store. Checked against central finite differences
// on a small mesh where vertices are shared by several edges.
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-remarks -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.log
// RUN: FileCheck %s --check-prefix=REMARK < %t.log
// RUN: FileCheck %s < %t.log
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "KernelCheck.h"
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

__global__ void edgeEnergy(const double *x, const int *e, double *E, int m) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < m) {
    int a = e[2 * k], b = e[2 * k + 1];
    atomicAdd(E, (x[a] - x[b]) * (x[a] - x[b]) + x[a] * x[b]);
  }
}
// REMARK: ownership-combine-atomics.cu:[[#@LINE-3]]:19: remark: adjoint store to 'x': atomicAdd (shared: x[a]: gather through an index array e; x: element map through e (arity 2, stride 1), m elements (guard), element work small (5 operations, 0 math calls): atomic-free strategies possible)
// CHECK-LABEL: __global__ void edgeEnergy_grad_atomics(
// CHECK-NOT: atomicAdd(E,
// CHECK: atomicAdd(&_d_x[a], _r1 + _r2 + _r0 * x[b]);
// CHECK-NEXT: atomicAdd(&_d_x[b], -_r1 - _r2 + x[a] * _r0);
// CHECK-NEXT: }
// CHECK-NEXT: }

int main() {
  const int V = 9, M = 20;
  meshad::test::RandomInputs Rng;
  meshad::test::DeviceArray<double> X(V), E(1), DX(V), DE(1);
  meshad::test::DeviceArray<int> Edges(2 * M);
  for (int K = 0; K < M; ++K) {
    Edges[2 * K] = K % V;
    Edges[2 * K + 1] = (3 * K + 1) % V == K % V ? (K + 1) % V : (3 * K + 1) % V;
  }
  Edges.upload();
  Rng.fill(X.host(), V, -1, 1);
  auto Loss = [&] {
    X.upload();
    E.zero();
    MESHAD_LAUNCH(edgeEnergy, 2, 16)(X.device(), Edges.device(), E.device(), M);
    meshad::test::checkLaunch("edgeEnergy");
    E.download();
    return E[0];
  };
  std::vector<double> Expected = meshad::test::fdGradient(Loss, X.host(), V);
  X.upload();
  DE[0] = 1;
  DE.upload();
  DX.zero();
  meshad::gradient(edgeEnergy, "x, E", meshad::ElementStrategy::Atomics)
      .execute_kernel(dim3(2), dim3(16), X.device(), Edges.device(),
                      E.device(), M, DX.device(), DE.device());
  meshad::test::checkLaunch("edgeEnergy_grad");
  DX.download();
  meshad::test::checkArray("dx", DX.host(), Expected.data(), V);
  return meshad::test::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 9 passed, 0 failed
