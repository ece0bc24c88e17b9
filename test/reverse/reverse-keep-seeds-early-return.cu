// meshad::KeepSeeds on a kernel that stores its output once per path, after
// a `return` inside a branch: the jump normalizer copies the rest of the
// body (the store) into both paths of the branch, so the store becomes two
// statements on exclusive paths. The seed is still read once per element
// and kept. Checked for the KeepSeeds gradient (against central finite
// differences of the kernel, and the seeds against their values before)
// and for meshad::hvp, which keeps seeds (against central differences of
// the gradient along a random direction).
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "KernelCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>
#include <vector>

// mask[i] == 2 leaves y[i] as it was; mask[i] == 1 squashes x[i] first.
__global__ void masked(int n, const int *mask, const double *x, double *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  double v = x[i];
  if (mask[i] != 0) {
    v = exp(-v);
    if (mask[i] > 1)
      return;
  }
  y[i] = v * sin(v);
}
// CHECK-LABEL: __global__ void masked_grad_keep_seeds(
// CHECK-NOT: _d_y[i] = 0.
// CHECK: {{^}}}
// CHECK-LABEL: __global__ void masked_hvp_2(
// CHECK-NOT: _d_y[i] = 0.
// CHECK: {{^}}}

namespace mt = meshad::test;

int main() {
  mt::RandomInputs Rng;
  const int N = 77;
  const dim3 Grid(3), Block(32);
  std::vector<double> W(N), V(N);
  Rng.fill(W.data(), N, -1, 1);
  Rng.fill(V.data(), N, -1, 1);
  mt::DeviceArray<int> Mask(N);
  for (int I = 0; I < N; ++I)
    Mask[I] = I % 3;
  Mask.upload();
  mt::DeviceArray<double> X(N), Y(N), DX(N), DY(N), DV(N), H(N);
  Rng.fill(X.host(), N, -1.5, 1.5);
  for (int I = 0; I < N; ++I)
    DV[I] = V[I];
  DV.upload();

  // The gradient of L = sum_i w_i y_i, the seeds dy = w kept.
  auto Loss = [&] {
    X.upload();
    MESHAD_LAUNCH(masked, Grid, Block)(N, Mask.device(), X.device(),
                                       Y.device());
    Y.download();
    return mt::weightedSum(W.data(), Y.host(), N);
  };
  std::vector<double> Ref = mt::fdGradient(Loss, X.host(), N);
  auto g = meshad::gradient(masked, "x, y", meshad::KeepSeeds);
  auto Gradient = [&] {
    X.upload();
    DX.zero();
    for (int I = 0; I < N; ++I)
      DY[I] = W[I];
    DY.upload();
    g.execute_kernel(Grid, Block, N, Mask.device(), X.device(), Y.device(),
                     DX.device(), DY.device());
    DX.download();
  };
  Gradient();
  mt::checkLaunch("masked_grad_keep_seeds");
  DY.download();
  mt::checkArray("masked dx", DX.host(), Ref.data(), N);
  mt::checkArray("masked dy kept", DY.host(), W.data(), N);

  // H v for the same L: d/dt of the gradient at x + t v.
  std::vector<double> RefH =
      mt::fdDirectional(Gradient, X.host(), V.data(), N, DX.host(), N);
  auto h = meshad::hvp(masked, "x");
  X.upload();
  H.zero();
  for (int I = 0; I < N; ++I)
    DY[I] = W[I];
  DY.upload();
  h.execute_kernel(Grid, Block, N, Mask.device(), X.device(), Y.device(),
                   DV.device(), H.device(), DY.device());
  mt::checkLaunch("masked_hvp");
  H.download();
  DY.download();
  mt::checkArray("masked Hv", H.host(), RefH.data(), N);
  mt::checkArray("masked hvp seeds read only", DY.host(), W.data(), N);
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 308 passed, 0 failed
