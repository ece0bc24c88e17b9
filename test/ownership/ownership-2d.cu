// 2D thread indices: gy*W + gx is thread-exclusive when a guard keeps gx
// below W (a conjunction around the access, or an early return), also times
// a literal stride with the channels of a pixel (3*(gy*W + gx) + c). The
// generated kernel checks that the launch is 2D (blockDim.z == gridDim.z ==
// 1). A missing column guard, neighbouring pixels and a 2D index mixed with
// a 1D one keep atomics. Every gradient is checked against central finite
// differences, launched with 2D blocks and grids larger than the image; a
// launch with 3D blocks stops with a message.
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-remarks -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.log
// RUN: FileCheck %s --check-prefix=REMARK < %t.log
// RUN: FileCheck %s < %t.log
// RUN: %t | FileCheck %s --check-prefix=NUM
// RUN: not --crash %t 3d 2>&1 | FileCheck %s --check-prefix=LAUNCH3D
#include "KernelCheck.h"
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>
#include <string>
#include <vector>

__global__ void shade(const double *in, double *out, int W, int H) {
  int gx = blockIdx.x * blockDim.x + threadIdx.x;
  int gy = blockIdx.y * blockDim.y + threadIdx.y;
  if (gx < W && gy < H)
    out[gy * W + gx] = in[gy * W + gx] * sin(in[W * gy + gx]);
}
// REMARK-DAG: ownership-2d.cu:[[#@LINE-2]]:24: remark: adjoint store to 'in': plain += (thread-exclusive: every access is gy*W + gx + {0} with 0 <= gx < W)
// CHECK-LABEL: __global__ void shade_grad(
// CHECK: meshad::requireLaunch2D();
// CHECK-NOT: atomicAdd
// CHECK: meshad::exclusiveAdd(&_d_in[gy * W + gx],
// CHECK-NOT: atomicAdd
// CHECK: meshad::exclusiveAdd(&_d_in[W * gy + gx],
// CHECK-NOT: atomicAdd
// CHECK-LABEL: __global__ void rgbGain_grad(

__global__ void rgbGain(const double *rgb, const double *gain, double *lum,
                        int W, int H) {
  int gx = blockIdx.x * blockDim.x + threadIdx.x;
  int gy = blockIdx.y * blockDim.y + threadIdx.y;
  if (gx >= W || gy >= H)
    return;
  int p = gy * W + gx;
  lum[p] = gain[0] * rgb[3 * p] * rgb[3 * p] +
           rgb[3 * p + 1] * exp(rgb[3 * p + 2]);
}
// REMARK-DAG: ownership-2d.cu:[[#@LINE-3]]:22: remark: adjoint store to 'rgb': plain += (thread-exclusive: every access is 3*(gy*W + gx) + {0, 1, 2} with 0 <= gx < W)
// REMARK-DAG: ownership-2d.cu:[[#@LINE-4]]:12: remark: adjoint store to 'gain': plain += (uniform: every thread adds to it;
// CHECK: meshad::requireLaunch2D();
// CHECK-NOT: atomicAdd(&_d_rgb
// CHECK: _d_rgb[3 * p + 2] +=
// CHECK-NOT: atomicAdd(&_d_rgb
// CHECK: meshad::blockReduceAtomicAdd(&_d_gain[0],
// CHECK-LABEL: __global__ void noColumnGuard_grad(

__global__ void noColumnGuard(const double *in, double *out, int W, int H) {
  int gx = blockIdx.x * blockDim.x + threadIdx.x;
  int gy = blockIdx.y * blockDim.y + threadIdx.y;
  if (gy < H)
    out[gy * W + gx] = in[gy * W + gx] * in[gy * W + gx];
}
// REMARK-DAG: ownership-2d.cu:[[#@LINE-2]]:24: remark: adjoint store to 'in': atomicAdd (shared: in[gy * W + gx]: 2D index gy*W + gx: gx < W not proven)
// CHECK-NOT: requireLaunch
// CHECK: atomicAdd(&_d_in[gy * W + gx]
// CHECK-LABEL: __global__ void rowNeighbours_grad(

__global__ void rowNeighbours(const double *in, double *out, int W, int H) {
  int gx = blockIdx.x * blockDim.x + threadIdx.x;
  int gy = blockIdx.y * blockDim.y + threadIdx.y;
  if (gx < W - 1 && gy < H)
    out[gy * W + gx] = in[gy * W + gx] * in[gy * W + gx + 1];
}
// REMARK-DAG: ownership-2d.cu:[[#@LINE-2]]:24: remark: adjoint store to 'in': atomicAdd (shared: in[gy * W + gx] and in[gy * W + gx + 1] overlap between neighbouring threads)
// CHECK: atomicAdd(&_d_in[gy * W + gx + 1]
// CHECK-LABEL: __global__ void rowBias_grad(

__global__ void rowBias(const double *in, double *out, int W, int H) {
  int gx = blockIdx.x * blockDim.x + threadIdx.x;
  int gy = blockIdx.y * blockDim.y + threadIdx.y;
  if (gx < W && gy < H)
    out[gy * W + gx] = in[gy * W + gx] * cos(in[gx]);
}
// REMARK-DAG: ownership-2d.cu:[[#@LINE-2]]:24: remark: adjoint store to 'in': atomicAdd (shared: in[gy * W + gx] and in[gx] mix the thread index forms gy*W + gx and gx: not proven)
// CHECK: atomicAdd(&_d_in[gx]

namespace mt = meshad::test;

/// Checks d/d in of L = sum_p w_p out_p for a kernel (in, out, W, H) with a
/// W x H output and \p Inputs input elements.
template <class Fn, class G>
void check(const std::string &Name, Fn Kernel, G Grad, int W, int H,
           int Inputs, dim3 Grid, dim3 Block) {
  mt::RandomInputs Rng;
  int Outputs = W * H;
  std::vector<double> X(Inputs), Y(Outputs), Wt(Outputs), DX(Inputs, 0.0),
      DY(Outputs);
  Rng.fill(X.data(), Inputs, 0.2, 1.2);
  Rng.fill(Wt.data(), Outputs, -1, 1);
  auto Loss = [&] {
    std::fill(Y.begin(), Y.end(), 0.0);
    MESHAD_LAUNCH(Kernel, Grid, Block)(X.data(), Y.data(), W, H);
    return mt::weightedSum(Wt.data(), Y.data(), Outputs);
  };
  DY = Wt;
  Grad.execute_kernel(Grid, Block, X.data(), Y.data(), W, H, DX.data(),
                      DY.data());
  mt::checkLaunch(Name.c_str());
  for (int K = 0; K < Inputs; ++K)
    MESHAD_CHECK_CLOSE(Name + "[" + std::to_string(K) + "]", DX[K],
                       mt::centralDifferenceAt(Loss, X.data(), K));
}

/// The same for rgbGain (rgb, gain): both gradients.
template <class G>
void checkRgbGain(G Grad, int W, int H, dim3 Grid, dim3 Block) {
  mt::RandomInputs Rng;
  int N = W * H;
  std::vector<double> Rgb(3 * N), Gain(1), Lum(N), Wt(N), DRgb(3 * N, 0.0),
      DGain(1, 0.0), DLum(N);
  Rng.fill(Rgb.data(), 3 * N, 0.2, 1.2);
  Rng.fill(Gain.data(), 1, 0.5, 1.5);
  Rng.fill(Wt.data(), N, -1, 1);
  auto Loss = [&] {
    std::fill(Lum.begin(), Lum.end(), 0.0);
    MESHAD_LAUNCH(rgbGain, Grid, Block)(Rgb.data(), Gain.data(), Lum.data(), W,
                                        H);
    return mt::weightedSum(Wt.data(), Lum.data(), N);
  };
  DLum = Wt;
  Grad.execute_kernel(Grid, Block, Rgb.data(), Gain.data(), Lum.data(), W, H,
                      DRgb.data(), DGain.data(), DLum.data());
  mt::checkLaunch("rgbGain");
  for (int K = 0; K < 3 * N; ++K)
    MESHAD_CHECK_CLOSE("rgbGain drgb[" + std::to_string(K) + "]", DRgb[K],
                       mt::centralDifferenceAt(Loss, Rgb.data(), K));
  MESHAD_CHECK_CLOSE("rgbGain dgain", DGain[0],
                     mt::centralDifferenceAt(Loss, Gain.data(), 0));
}

int main(int Argc, char **Argv) {
  if (Argc > 1 && std::string(Argv[1]) == "3d") {
    std::vector<double> X(64), Y(64), DX(64), DY(64, 1.0);
    meshad::gradient(shade, "in, out")
        .execute_kernel(dim3(2, 2), dim3(4, 4, 2), X.data(), Y.data(), 8, 8,
                        DX.data(), DY.data());
    return 0;
  }
  // 13 x 6 pixels under a 16 x 8 launch: the guards cut the last blocks.
  const int W = 13, H = 6;
  const dim3 Grid(2, 2), Block(8, 4);
  check("shade", shade, meshad::gradient(shade, "in, out"), W, H, W * H, Grid,
        Block);
  checkRgbGain(meshad::gradient(rgbGain, "rgb, gain, lum"), W, H, Grid,
               Block);
  // Without a column guard the launch covers exactly W = 16 columns.
  check("noColumnGuard", noColumnGuard,
        meshad::gradient(noColumnGuard, "in, out"), 16, H, 16 * H, Grid, Block);
  check("rowNeighbours", rowNeighbours,
        meshad::gradient(rowNeighbours, "in, out"), W, H, W * H, Grid, Block);
  check("rowBias", rowBias, meshad::gradient(rowBias, "in, out"), W, H, W * H,
        Grid, Block);
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 565 passed, 0 failed
// LAUNCH3D: meshad: this gradient kernel relies on a 2D launch
