// Ownership classified on the finished function (issue 10, item 2): the
// lowering classifies each kernel adjoint array on the gradient's own
// Accumulates, with the primal kernel giving the remarks' wording.
// - rgbGain: the early return becomes `_cond0 = gx >= W || gy >= H;` and
//   `if (!_cond0) { p = gy * W + gx; }`; the guard's fact (gx < W) comes
//   through the once-assigned _cond0, and p's one assignment, in a branch
//   of that guard, holds at its reads in later branches of the same guard
//   (Analysis/SweepDefs): thread-exclusive, as on the primal.
// - stencil: the guard `i > 0 && i < n - 1` is `_cond0`: tile-exclusive.
// - splat: the reverse loop recomputes k from the loop count (`k = _cnt0 -
//   1`); _cnt0 counts the forward loop's iterations, so k takes only the
//   values of the forward loop's counter (Analysis/SweepDefs): uniform, as
//   on the primal. No decision comes from the primal reads that the adds
//   record (ownership-crosscheck says nothing).
// Each gradient is checked against central finite differences.
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-remarks -fplugin-arg-meshad-ownership-crosscheck -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.log
// RUN: FileCheck %s --check-prefix=REMARK < %t.log
// RUN: not grep "cross-check" %t.log
// RUN: FileCheck %s < %t.log
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "KernelCheck.h"
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

// REMARK-NOT: cross-check
__global__ void rgbGain(const double *rgb, double *lum, int W, int H) {
  int gx = blockIdx.x * blockDim.x + threadIdx.x;
  int gy = blockIdx.y * blockDim.y + threadIdx.y;
  if (gx >= W || gy >= H)
    return;
  int p = gy * W + gx;
  lum[p] = rgb[3 * p] * rgb[3 * p + 1] + exp(rgb[3 * p + 2]);
}
// REMARK: ownership-finished.cu:[[#@LINE-2]]:12: remark: adjoint store to 'rgb': plain += (thread-exclusive: every access is 3*(gy*W + gx) + {0, 1, 2} with 0 <= gx < W)
// CHECK-LABEL: __global__ void rgbGain_grad(
// CHECK: meshad::requireLaunch2D();
// CHECK-NOT: atomicAdd
// CHECK: meshad::exclusiveAdd(&_d_rgb[3 * p],

__global__ void stencil(const double *x, double *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0 && i < n - 1)
    y[i] = x[i - 1] * x[i] + sin(x[i + 1]);
}
// REMARK: ownership-finished.cu:[[#@LINE-2]]:12: remark: adjoint store to 'x': shared-memory tile (tile-exclusive: x[i - 1] and x[i + 1] overlap between neighbouring threads; every access is gid + {-1, 0, 1}
// CHECK-LABEL: __global__ void stencil_grad(
// CHECK: meshad::tileWriteBack<1, -1, 1>(_d_x_tile, _d_x);

__global__ void splat(const double *p, double *img, int n, int K) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    double acc = 0.0;
    for (int k = 0; k < K; ++k)
      acc += p[2 * k] * exp(-p[2 * k + 1] * (i - k) * (i - k));
    img[i] = acc;
  }
}
// The adds of the reverse loop are then summed per warp (uniform or shared
// arrays alike, GPU/BlockUniformReduce):
// REMARK: ownership-finished.cu:[[#@LINE-6]]:14: remark: adjoint store to 'p': summed per warp
// CHECK-LABEL: __global__ void splat_grad(

/// Checks the gradient of L = sum_i w_i y_i w.r.t. x (\p Inputs elements)
/// of \p Launch (x, y), whose output has \p Outputs elements.
template <class L, class G>
void check(const char *Name, L Launch, G Grad, int Inputs, int Outputs) {
  meshad::test::RandomInputs Rng;
  meshad::test::DeviceArray<double> X(Inputs), Y(Outputs), W(Outputs),
      DX(Inputs), DY(Outputs);
  Rng.fill(X.host(), Inputs, 0.2, 1.2);
  Rng.fill(W.host(), Outputs, -1, 1);
  auto Loss = [&] {
    X.upload();
    Y.zero();
    Launch(X.device(), Y.device());
    meshad::test::checkLaunch(Name);
    Y.download();
    return meshad::test::weightedSum(W.host(), Y.host(), Outputs);
  };
  std::vector<double> Expected =
      meshad::test::fdGradient(Loss, X.host(), Inputs);
  X.upload();
  for (int I = 0; I < Outputs; ++I)
    DY[I] = W[I];
  DY.upload();
  DX.zero();
  Grad(X.device(), Y.device(), DX.device(), DY.device());
  meshad::test::checkLaunch(Name);
  DX.download();
  meshad::test::checkArray(Name, DX.host(), Expected.data(), Inputs);
}

int main() {
  const int W = 13, H = 7, N = 150, K = 5;
  auto Rgb = meshad::gradient(rgbGain, "rgb, lum");
  dim3 Grid2(2, 2), Block2(8, 4);
  check(
      "rgbGain",
      [&](double *X, double *Y) {
        MESHAD_LAUNCH(rgbGain, Grid2, Block2)(X, Y, W, H);
      },
      [&](double *X, double *Y, double *DX, double *DY) {
        Rgb.execute_kernel(Grid2, Block2, X, Y, W, H, DX, DY);
      },
      3 * W * H, W * H);
  auto Stencil = meshad::gradient(stencil, "x, y");
  check(
      "stencil",
      [&](double *X, double *Y) {
        MESHAD_LAUNCH(stencil, dim3(5), dim3(32))(X, Y, N);
      },
      [&](double *X, double *Y, double *DX, double *DY) {
        Stencil.execute_kernel(dim3(5), dim3(32), X, Y, N, DX, DY);
      },
      N, N);
  auto Splat = meshad::gradient(splat, "p, img");
  check(
      "splat",
      [&](double *X, double *Y) {
        MESHAD_LAUNCH(splat, dim3(3), dim3(64))(X, Y, N, K);
      },
      [&](double *X, double *Y, double *DX, double *DY) {
        Splat.execute_kernel(dim3(3), dim3(64), X, Y, N, K, DX, DY);
      },
      2 * K, N);
  return meshad::test::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: {{[0-9]+}} passed, 0 failed
