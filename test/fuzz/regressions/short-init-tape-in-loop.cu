// Fuzzer finding (tools/fuzz/FINDINGS.md, pipelines, "tape of a short
// initializer in a loop"): a device function with `double w[3] = {e};`
// inside a loop of 3 trips saves the zeroed tail w[1], w[2] (2 pushes per
// trip) on a tape sized for one push per trip (`meshad::Tape<double, 3>`):
// the gradient kernel aborted with "tape overflow (more than 3 values in
// one thread of a kernel)". The tape now holds 6. Gradient against central
// differences on the CPU emulation.
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "KernelCheck.h"
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>
#include <vector>

__device__ double relax(double a, double s) {
  for (int i = 0; i < 3; ++i) {
    double w[3] = {a * s};
    s = 0.5 * s + sin(w[0]) + w[2];
  }
  return s - a;
}

__global__ void energy(int n, const double *x, double *E) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(E, relax(x[i], 0.5 * x[(i + 1) % n]));
}
// CHECK-LABEL: __global__ void energy_grad(int n, const double *x, double *E, double *_d_x, double *_d_E) {
// CHECK: relax_pullback(x[i], 0.5 * x[(i + 1) % n], _d__t0, &_r1, &_r2);
// CHECK-LABEL: void relax_pullback(double a, double s, double _d_y, double *_d_a, double *_d_s) {
// CHECK: meshad::Tape<double, 6> [[T:_t[0-9]+]];
// CHECK: for (int _k0 = 1; _k0 < 3; ++_k0) {
// CHECK-NEXT: meshad::push([[T]], w[_k0]);

int main() {
  namespace mt = meshad::test;
  const int N = 11;
  mt::RandomInputs Rng;
  std::vector<double> X(N), DX(N, 0.0);
  Rng.fill(X.data(), N, -1.2, 1.2);
  auto Energy = [&] {
    double E = 0;
    MESHAD_LAUNCH(energy, dim3(3), dim3(4))(N, X.data(), &E);
    return E;
  };
  auto G = meshad::gradient(energy, "x, E");
  double E = 0, DE = 1;
  G.execute_kernel(dim3(3), dim3(4), N, X.data(), &E, DX.data(), &DE);
  mt::checkLaunch("energy_grad");
  for (int I = 0; I < N; ++I)
    MESHAD_CHECK_CLOSE("dE/dx", DX[I], mt::centralDifferenceAt(Energy, X.data(), I));
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 11 passed, 0 failed
