// Fuzzer finding (tools/fuzz/FINDINGS.md, kernels 'H', seed 77 program
// 720, reduced): a kernel that stores y[i] once, after an if whose else
// branch may return. The jump normalizer copies the store into both paths
// of the if, and meshad::hvp (which keeps the output seeds) was rejected
// with "meshad::KeepSeeds: the seed of 'y' cannot be kept: it is stored by
// 2 statements", although each thread stores y[i] at most once.
// (bug: the KeepSeeds check counted store statements, not stores on a path)
// Checked like the fuzzer: the gradient against central differences of the
// kernel, and H v against central differences, along v, of that gradient
// seeded with the same weights.
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -I%test_inputs %s -o %t
// RUN: %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
#include "KernelCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>
#include <vector>

__global__ void k(int n, const double *x, double *y, double *E) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    atomicAdd(&E[0], 0.1 * x[i] * x[i]);
    if (i % 3 != 0) {
      double b = -x[(i + 1) % n];
      atomicAdd(&E[0], b * b * x[i]);
    } else {
      double u = asin(0.8 * tanh(x[i]));
      if (i > 12)
        return;
      atomicAdd(&E[0], u * x[(i + 2) % n]);
    }
    double e = x[(i + 2) % n] + 0.25 * n;
    y[i] = sin(e) * x[i] + 0.1 * x[i];
  }
}

namespace mt = meshad::test;
constexpr int N = 21;
const dim3 Grid(3), Block(8);

int main() {
  mt::RandomInputs Rng;
  std::vector<double> WY(N), V(N);
  Rng.fill(WY.data(), N, 0.5, 1);
  Rng.fill(V.data(), N, -1, 1);
  double WE = Rng.uniform(0.5, 1);
  mt::DeviceArray<double> X(N), Y(N), E(1), DX(N), DY(N), DE(1), DV(N), H(N);
  Rng.fill(X.host(), N, -1, 1);
  for (int I = 0; I < N; ++I)
    DV[I] = V[I];
  DV.upload();
  auto SetSeeds = [&] {
    for (int I = 0; I < N; ++I)
      DY[I] = WY[I];
    DE[0] = WE;
    DY.upload();
    DE.upload();
  };

  // The gradient of L = sum_i wy_i y_i + we E, d/dt of it at x + t v.
  auto g = meshad::gradient(k, "x, y, E");
  auto Gradient = [&] {
    X.upload();
    DX.zero();
    SetSeeds();
    g.execute_kernel(Grid, Block, N, X.device(), Y.device(), E.device(),
                     DX.device(), DY.device(), DE.device());
    DX.download();
  };
  auto Loss = [&] {
    X.upload();
    E.zero();
    MESHAD_LAUNCH(k, Grid, Block)(N, X.device(), Y.device(), E.device());
    Y.download();
    E.download();
    return mt::weightedSum(WY.data(), Y.host(), N) + WE * E[0];
  };
  std::vector<double> RefG = mt::fdGradient(Loss, X.host(), N);
  Gradient();
  mt::checkLaunch("k_grad");
  mt::checkArray("k dx", DX.host(), RefG.data(), N);
  std::vector<double> Ref =
      mt::fdDirectional(Gradient, X.host(), V.data(), N, DX.host(), N);

  auto h = meshad::hvp(k, "");
  X.upload();
  H.zero();
  SetSeeds();
  h.execute_kernel(Grid, Block, N, X.device(), Y.device(), E.device(),
                   DV.device(), H.device(), DY.device(), DE.device());
  mt::checkLaunch("k_hvp");
  H.download();
  mt::checkArray("k Hv", H.host(), Ref.data(), N);
  return mt::summary();
}
