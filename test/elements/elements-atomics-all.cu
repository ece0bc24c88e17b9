// -fplugin-arg-meshad-atomics=all (the all-atomics baseline of the
// benchmarks) keeps the atomics of an element kernel's default (Auto)
// gradient, as it does for every shared adjoint store; without the option
// the same request gets gather by recomputation (the cost model's choice for
// springs). Both gradients are checked against
// central differences (CPU emulation: the check uses host arrays, so this
// test is not in the GPU list).
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-atomics=all -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.log
// RUN: FileCheck %s --check-prefix=ATOMICS < %t.log
// RUN: %t | FileCheck %s --check-prefix=NUM
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%test_inputs %s -o %t.auto 2> %t.auto.log
// RUN: FileCheck %s --check-prefix=AUTO < %t.auto.log
// RUN: %t.auto | FileCheck %s --check-prefix=NUM
#include "KernelCheck.h"
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

__global__ void springs(int n, const int *edges, const double *x, double *E) {
  int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= n)
    return;
  int a = edges[2 * e], b = edges[2 * e + 1];
  double l2 = 0;
  for (int k = 0; k < 3; ++k) {
    double d = x[3 * a + k] - x[3 * b + k];
    l2 += d * d;
  }
  atomicAdd(E, l2 * sqrt(l2));
}
// ATOMICS-LABEL: __global__ void springs_grad(int n, const int *edges, const double *x, double *E, double *_d_x, double *_d_E) {
// ATOMICS: atomicAdd(&_d_x[3 * a + k],
// ATOMICS-NOT: slotAdd
// AUTO-LABEL: __global__ void springs_grad(int n, const int *edges, const double *x, double *E, double *_d_x, double *_d_E, const int *_offsets, const int *_incident, int _nv) {
// AUTO-NOT: atomicAdd(&_d_x
// AUTO: meshad::keepVertexPart<2, 3>(

int main() {
  const int V = 6, N = 9;
  int Edges[2 * N] = {0, 1, 1, 2, 2, 0, 3, 4, 4, 5, 5, 3, 0, 3, 1, 4, 2, 5};
  meshad::test::RandomInputs Rng;
  double X[3 * V];
  for (double &Xi : X)
    Xi = Rng.uniform(-1, 1);
  double DX[3 * V] = {}, DE = 1, E = 0;
  auto G = meshad::gradient(springs, "x, E");
  G.execute_kernel(dim3(1), dim3(32), N, Edges, X, &E, DX, &DE);
  // The reference: central differences of the primal kernel's energy.
  auto Energy = [&] {
    double F = 0;
    meshad::cpu::launch(springs, dim3(1), dim3(32), 0, N, Edges, X, &F);
    return F;
  };
  std::vector<double> Ref = meshad::test::fdGradient(Energy, X, 3 * V);
  meshad::test::checkArray("dE/dx", DX, Ref.data(), 3 * V);
  // NUM-NOT: FAIL
  // NUM: numeric checks: 18 passed, 0 failed
  return meshad::test::summary();
}
