// Uniform but symbolic addresses: every pixel of a 2D launch blends the same
// splats p[3*k .. 3*k+2] (k a loop counter). The adjoint stores into p are
// the same address in every thread at a given point: the reverse loop runs in
// step across each warp and meshad::warpKeyedAdds sums them per warp (one
// shuffle tree for the three adds, one atomicAdd per add, warp and
// iteration, GPU/BlockUniformReduce; the addresses 3 * k + j through the
// key k, GPU/BlockUniformKey). In splatRows,
// each thread blends two rows, the splat loop nested in the row loop: there
// meshad::warpAtomicAdd sums the adds per warp and address. The image is
// thread-exclusive over the 2D index py*W + px (guarded by px < W): its
// seed is read and cleared plainly, behind a run-time check for
// blockDim.z == gridDim.z == 1. Checked against central
// finite differences with partial blocks at the image borders.
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-remarks -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.log
// RUN: FileCheck %s --check-prefix=REMARK < %t.log
// RUN: FileCheck %s < %t.log
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "KernelCheck.h"
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

__global__ void splat(const double *p, double *img, int W, int H, int K) {
  int px = blockIdx.x * blockDim.x + threadIdx.x;
  int py = blockIdx.y * blockDim.y + threadIdx.y;
  if (px < W && py < H) {
    double acc = 0;
    for (int k = 0; k < K; ++k) {
      double dx = (px - p[3 * k]) * 0.2, dy = (py - p[3 * k + 1]) * 0.2;
      acc += p[3 * k + 2] * exp(-(dx * dx + dy * dy));
    }
    img[py * W + px] = acc;
  }
}
// REMARK: ownership-uniform-symbolic.cu:[[#@LINE-5]]:{{[0-9]+}}: remark: adjoint store to 'p': summed per warp, one atomicAdd per warp and iteration (the address p[3 * k + 2] is the same in every thread at an iteration of the reverse loop
// CHECK-LABEL: __global__ void splat_grad(
// CHECK: meshad::requireLaunch2D();
// CHECK: _d_img[py * W + px] = 0.;
// CHECK-NOT: atomicAdd(&_d_p
// CHECK: _key = k;
// CHECK-NOT: atomicAdd(&_d_p
// CHECK: meshad::warpKeyedAdds(_key, _d_p, 3, 2, _d_p_sum, _d_p, 3, 1, _d_p_sum1, _d_p, 3, 0, _d_p_sum2);
// CHECK: }

__global__ void splatRows(const double *p, double *img, int W, int H, int K) {
  int px = blockIdx.x * blockDim.x + threadIdx.x;
  int py = 2 * (blockIdx.y * blockDim.y + threadIdx.y);
  for (int r = 0; r < 2; ++r)
    if (px < W && py + r < H) {
      double acc = 0;
      for (int k = 0; k < K; ++k) {
        double dx = (px - p[3 * k]) * 0.2, dy = (py + r - p[3 * k + 1]) * 0.2;
        acc += p[3 * k + 2] * exp(-(dx * dx + dy * dy));
      }
      img[(py + r) * W + px] = acc;
    }
}
// REMARK: ownership-uniform-symbolic.cu:[[#@LINE-5]]:{{[0-9]+}}: remark: adjoint store to 'p': warp-aggregated atomicAdd (uniform: every access (p[3 * k], p[3 * k + 1], p[3 * k + 2]) is the same in all threads at a given point
// CHECK-LABEL: __global__ void splatRows_grad(
// CHECK-NOT: atomicAdd(&_d_p
// CHECK: meshad::warpAtomicAdd(&_d_p[3 * k + 2],
// CHECK-NOT: atomicAdd(&_d_p
// CHECK: }

/// Checks the gradient of \p Kernel for p against central differences.
template <class Kernel, class Grad>
void check(const char *Name, Kernel Primal, Grad G, dim3 Grid, dim3 Block) {
  const int W = 21, H = 13, K = 4;
  meshad::test::RandomInputs Rng;
  meshad::test::DeviceArray<double> P(3 * K), Img(W * H), Wt(W * H),
      DP(3 * K), DImg(W * H);
  for (int k = 0; k < K; ++k) {
    Rng.fill(&P[3 * k], 1, 0, W);
    Rng.fill(&P[3 * k + 1], 1, 0, H);
    Rng.fill(&P[3 * k + 2], 1, 0.5, 1.5);
  }
  Rng.fill(Wt.host(), W * H, -1, 1);
  auto Loss = [&] {
    P.upload();
    MESHAD_LAUNCH(Primal, Grid, Block)(P.device(), Img.device(), W, H, K);
    meshad::test::checkLaunch(Name);
    Img.download();
    return meshad::test::weightedSum(Wt.host(), Img.host(), W * H);
  };
  std::vector<double> Expected = meshad::test::fdGradient(Loss, P.host(), 3 * K);
  P.upload();
  for (int I = 0; I < W * H; ++I)
    DImg[I] = Wt[I];
  DImg.upload();
  DP.zero();
  G.execute_kernel(Grid, Block, P.device(), Img.device(), W, H, K,
                   DP.device(), DImg.device());
  meshad::test::checkLaunch(Name);
  DP.download();
  meshad::test::checkArray(std::string(Name) + " dp", DP.host(),
                           Expected.data(), 3 * K);
}

int main() {
  check("splat", splat, meshad::gradient(splat, "p, img"), dim3(2, 2),
        dim3(16, 8));
  check("splatRows", splatRows, meshad::gradient(splatRows, "p, img"),
        dim3(2, 1), dim3(16, 8));
  return meshad::test::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 24 passed, 0 failed
