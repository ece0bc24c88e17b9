// Fuzzer finding (issue 9, tools/fuzz/FINDINGS.md): a double3 local passed to
// a __device__ helper in a kernel gradient produces `_d_n += _r0` on
// double3 values ("no viable overloaded '+='").
// (bug: adjoints of double3 arguments)
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -I%test_inputs %s -o %t
// RUN: %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
#include "KernelCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

__device__ double lengthSq(double3 n, double s) {
  return (n.x * n.x + n.y * n.y + n.z * n.z) * s;
}

__global__ void energy(int n, const double *x, double s, double *E) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    double3 d = make_double3(x[i], x[(i + 1) % n] - x[i], sin(x[i]));
    atomicAdd(&E[0], lengthSq(d, s));
  }
}

namespace mt = meshad::test;
constexpr int N = 20;
const dim3 Grid(3), Block(8);

int main() {
  mt::RandomInputs Rng;
  auto g = meshad::gradient(energy, "x, s, E");
  mt::DeviceArray<double> X(N), E(1), DX(N), DE(1), DS(1);
  Rng.fill(X.host(), N, -1.5, 1.5);
  double S = Rng.uniform(0.5, 1.5);
  auto Energy = [&] {
    X.upload();
    E.zero();
    MESHAD_LAUNCH(energy, Grid, Block)(N, X.device(), S, E.device());
    E.download();
    return E[0];
  };
  std::vector<double> RefX = mt::fdGradient(Energy, X.host(), N);
  double RefS = mt::fdGradient(Energy, &S, 1)[0];
  X.upload();
  E.zero();
  DX.zero();
  DS.zero();
  DE[0] = 1;
  DE.upload();
  g.execute_kernel(Grid, Block, N, X.device(), S, E.device(), DX.device(),
                   DS.device(), DE.device());
  mt::checkLaunch("energy_grad");
  DX.download();
  DS.download();
  mt::checkArray("d energy/dx", DX.host(), RefX.data(), N);
  MESHAD_CHECK_CLOSE("d energy/ds", DS[0], RefS);
  return mt::summary();
}
