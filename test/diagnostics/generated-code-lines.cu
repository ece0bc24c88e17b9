// Diagnostics in generated code point at the user's construct it came from
// (#line directives per statement), never at "<meshad generated>" lines that
// match no file; and -Wall -Wextra stay quiet about the generated code (a
// gradient keeps the primal's parameters it does not use). The gradient is
// checked against central differences (issue 16).
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -I%test_inputs -Wall -Wextra -Werror %s -o %t
// RUN: %t | FileCheck %s --check-prefix=NUM
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -I%test_inputs -fsyntax-only -Wconditional-uninitialized %s 2>&1 | FileCheck %s
// RUN: %meshad_gen %s --line-directives -o %t.gen.cu -- -I%I -I%test_inputs
// RUN: FileCheck %s --check-prefix=GEN < %t.gen.cu
#include "KernelCheck.h"
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

__global__ void springs(int n, const int *edges, const double *x, double *E) {
  int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e < n) {
    int a = edges[2 * e], b = edges[2 * e + 1];
    double l2 = 0;
    for (int k = 0; k < 3; ++k) {
      double d = x[3 * a + k] - x[3 * b + k];
      l2 += d * d;
    }
    double s = sqrt(l2) - 1;
    atomicAdd(E, 0.5 * s * s);
  }
}
// The reverse sweep reads locals the forward sweep set under the guard:
// clang's -Wconditional-uninitialized says so, at the user's lines.
// CHECK-NOT: meshad generated
// (the loop over k, whose reverse iteration recomputes d)
// CHECK: generated-code-lines.cu:[[#@LINE-12]]:{{[0-9]+}}: warning: variable 'a' may be uninitialized
// CHECK-NOT: meshad generated
// The element gradient's header, included after the API's, at its line:
// GEN: {{^}}#line 15 "{{.*}}generated-code-lines.cu"
// GEN-NEXT: {{^}}#include <meshad/ElementGradient.h>
// GEN-NEXT: {{^}}#line 16 "{{.*}}generated-code-lines.cu"
// GEN: {{^}}#line [[#LINE:]] "{{.*}}generated-code-lines.cu"
// GEN-NEXT: {{^}}__global__ void springs_grad_two_phase(
// GEN-NOT: {{^}}#line {{.*}}<meshad

int main() {
  const int V = 6, N = 9;
  int Edges[2 * N] = {0, 1, 1, 2, 2, 0, 3, 4, 4, 5, 5, 3, 0, 3, 1, 4, 2, 5};
  meshad::test::RandomInputs Rng;
  double X[3 * V];
  for (double &Xi : X)
    Xi = Rng.uniform(-1, 1);
  double DX[3 * V] = {}, DE = 1, E = 0;
  // Two-phase slots (Auto would pick gather, whose kernel over the vertices
  // has no guarded sweep to warn about).
  auto G = meshad::gradient(springs, "x, E", meshad::ElementStrategy::TwoPhase);
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
