// Element strategies are for gradients (issue 11): meshad::hvp of an element
// kernel with meshad::ElementStrategy::Gather or TwoPhase is an error at the
// option (the HVP by gather is not built; the HVP keeps its atomics, and
// meshad::hessian gives the element Hessians).
//
// RUN: not %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -I%test_inputs -DSTRATEGY=Gather %s -fsyntax-only 2>&1 | FileCheck %s --check-prefix=GATHER
// RUN: not %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -I%test_inputs -DSTRATEGY=TwoPhase %s -fsyntax-only 2>&1 | FileCheck %s --check-prefix=TWOPHASE
#include <meshad/Differentiator.h>

__global__ void springs(int n, const int *edges, const double *x, double *E) {
  int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e < n) {
    double d = x[edges[2 * e]] - x[edges[2 * e + 1]];
    atomicAdd(E, d * d * d * d);
  }
}

void hvp(int n, const int *edges, const double *x, double *E, const double *v,
         double *Hv, double *dE) {
  meshad::hvp(springs, "x", meshad::ElementStrategy::STRATEGY)
      .execute_kernel(dim3(1), dim3(32), n, edges, x, E, v, Hv, dE);
}
// GATHER: elements-hvp-strategy.cu:[[@LINE-3]]:29: error: meshad::ElementStrategy::Gather applies to gradients only: the HVP of an element kernel by gather or two-phase slots is not built yet (meshad::hvp adds with atomics; meshad::hessian(kernel, "x") gives the element Hessians without them)
// TWOPHASE: error: meshad::ElementStrategy::TwoPhase applies to gradients only
