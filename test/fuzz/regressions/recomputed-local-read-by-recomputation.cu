// Fuzzer finding (tools/fuzz/FINDINGS.md, "recomputed local read only by a
// recomputation"; a kernel 'H' unit): the reverse sweep of a grid-stride
// loop recomputes the loop's locals instead of taping them, but only those
// it reads itself; f = c ? 0.5 : l was recomputed from an l that was not
// (the forward sweep no longer computes it either): the gradient, and the
// HVP composed from it, read l uninitialised wherever the condition is
// false. Both are checked against central differences (of the energy, of
// the gradient along a random direction).
// (bug: ReverseFunction::sweepCanonicalFor emitted only the recomputations
// that the reverse sweep's own statements need)
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s --check-prefix=GEN < %t.dump
// RUN: %t | FileCheck %s
// GEN-LABEL: __global__ void stencil_grad(
// GEN: for (; _cnt0 > 0; --_cnt0) {
// GEN: l = x[(i + n - 1) % n];
// GEN-NEXT: f = x[i] > 0.0 ? 0.5 : l;
// GEN-LABEL: __global__ void stencil_hvp_1(
// GEN: for (; _cnt0 > 0; --_cnt0) {
// GEN: l = x[(i + n - 1) % n];
// GEN: f = x[i] > 0.0 ? 0.5 : l;
// CHECK-NOT: FAIL
// CHECK: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
#include "KernelCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>
#include <string>
#include <vector>

__global__ void stencil(int n, const double *x, double *E) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x) {
    double l = x[(i + n - 1) % n];
    double f = x[i] > 0.0 ? 0.5 : l;
    atomicAdd(&E[0], f * f * x[i]);
  }
}

namespace mt = meshad::test;
constexpr int N = 21;
const dim3 Grid(2), Block(8);

int main() {
  mt::RandomInputs Rng;
  auto g = meshad::gradient(stencil, "x, E");
  auto h = meshad::hvp(stencil, "x");
  mt::DeviceArray<double> X(N), E(1), DX(N), DE(1), V(N), HV(N), Seed(1);
  Rng.fill(X.host(), N, -1.0, 1.0);
  Rng.fill(V.host(), N, -1.0, 1.0);
  double W = Rng.uniform(0.5, 1.5);
  // The gradient of W * E against central differences of the energy.
  auto Loss = [&] {
    X.upload();
    E.zero();
    MESHAD_LAUNCH(stencil, Grid, Block)(N, X.device(), E.device());
    E.download();
    return W * E[0];
  };
  std::vector<double> Ref = mt::fdGradient(Loss, X.host(), N);
  auto Grad = [&] {
    X.upload();
    DX.zero();
    DE[0] = W;
    DE.upload();
    g.execute_kernel(Grid, Block, N, X.device(), E.device(), DX.device(),
                     DE.device());
    DX.download();
  };
  Grad();
  mt::checkLaunch("stencil_grad");
  mt::checkArray("d stencil/dx", DX.host(), Ref.data(), N);
  // Hv against central differences of the gradient along V.
  X.upload();
  V.upload();
  HV.zero();
  Seed[0] = W;
  Seed.upload();
  h.execute_kernel(Grid, Block, N, X.device(), E.device(), V.device(),
                   HV.device(), Seed.device());
  mt::checkLaunch("stencil_hvp");
  HV.download();
  std::vector<double> RefHv =
      mt::fdDirectional(Grad, X.host(), V.host(), N, DX.host(), N);
  mt::checkArray("Hv stencil", HV.host(), RefHv.data(), N);
  return mt::summary();
}
