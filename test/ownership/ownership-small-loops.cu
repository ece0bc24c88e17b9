// Small per-thread loops: a loop counter with literal bounds (c in [0, 2])
// is an offset range, so x[3*i + c] is thread-exclusive in 1D and
// x[3*(gy*W + gx) + c] in 2D. Four elements three apart overlap between
// neighbouring threads: tile-exclusive in 1D (with a halo of one element),
// shared in 2D; a bound that is not a literal keeps atomics. Every gradient
// is checked against central finite differences.
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-remarks -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.log
// RUN: FileCheck %s --check-prefix=REMARK < %t.log
// RUN: FileCheck %s < %t.log
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "KernelCheck.h"
#include "NumericCheck.h"
#include <cmath>
#include <functional>
#include <meshad/Differentiator.h>
#include <string>
#include <vector>

__global__ void norms(const double *pos, double *len, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  double s = 0;
  for (int c = 0; c < 3; ++c)
    s += pos[3 * i + c] * pos[3 * i + c];
  len[i] = sqrt(s);
}
// REMARK-DAG: ownership-small-loops.cu:[[#@LINE-3]]:10: remark: adjoint store to 'pos': plain += (thread-exclusive: every access is 3*gid + {c} with c in [0, 2])
// CHECK-LABEL: __global__ void norms_grad(
// CHECK: meshad::requireLaunch1D();
// CHECK-NOT: atomicAdd
// CHECK: meshad::exclusiveAdd(&_d_pos[3 * i + c],
// CHECK-NOT: atomicAdd
// CHECK-LABEL: __global__ void window4_grad(

__global__ void window4(const double *x, double *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  double s = 0;
  for (int c = 0; c < 4; ++c)
    s += x[3 * i + c] * sin(x[3 * i + c]);
  y[i] = s;
}
// The tile of this double array may be too large for shared memory: the
// reverse mode may keep atomics, after the tile-exclusive reason.
// REMARK-DAG: ownership-small-loops.cu:[[#@LINE-5]]:10: remark: adjoint store to 'x': {{.*}}: x[3 * i + c] overlaps itself between neighbouring threads; every access is 3*gid + {c} with c in [0, 3]: each block owns its tile but a halo of 1 element
// CHECK-LABEL: __global__ void pixels_grad(

__global__ void pixels(const double *rgb, double *out, int W, int H) {
  int gx = blockIdx.x * blockDim.x + threadIdx.x;
  int gy = blockIdx.y * blockDim.y + threadIdx.y;
  if (gx >= W || gy >= H)
    return;
  double s = 0;
  for (int c = 0; c < 3; ++c)
    s += (c + 1) * rgb[3 * (gy * W + gx) + c] * rgb[3 * (gy * W + gx) + c];
  out[gy * W + gx] = s;
}
// REMARK-DAG: ownership-small-loops.cu:[[#@LINE-3]]:20: remark: adjoint store to 'rgb': plain += (thread-exclusive: every access is 3*(gy*W + gx) + {c} with 0 <= gx < W, c in [0, 2])
// CHECK: meshad::requireLaunch2D();
// CHECK-NOT: atomicAdd
// CHECK: meshad::exclusiveAdd(&_d_rgb[3 * (gy * W + gx) + c],
// CHECK-NOT: atomicAdd
// CHECK-LABEL: __global__ void pixels4_grad(

__global__ void pixels4(const double *rgb, double *out, int W, int H) {
  int gx = blockIdx.x * blockDim.x + threadIdx.x;
  int gy = blockIdx.y * blockDim.y + threadIdx.y;
  if (gx >= W || gy >= H)
    return;
  double s = 0;
  for (int c = 0; c < 4; ++c)
    s += rgb[3 * (gy * W + gx) + c] * rgb[3 * (gy * W + gx) + c];
  out[gy * W + gx] = s;
}
// REMARK-DAG: ownership-small-loops.cu:[[#@LINE-3]]:10: remark: adjoint store to 'rgb': atomicAdd (shared: rgb[3 * (gy * W + gx) + c] overlaps itself between neighbouring threads)
// CHECK: atomicAdd(&_d_rgb[3 * (gy * W + gx) + c]
// CHECK-LABEL: __global__ void window_grad(

__global__ void window(const double *x, double *y, int n, int m) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  double s = 0;
  for (int c = 0; c < m; ++c)
    s += x[3 * i + c] * x[3 * i + c];
  y[i] = s;
}
// REMARK-DAG: ownership-small-loops.cu:[[#@LINE-3]]:10: remark: adjoint store to 'x': atomicAdd (shared: x[3 * i + c]: c is not a literal offset: not proven)
// CHECK: atomicAdd(&_d_x[3 * i + c]

namespace mt = meshad::test;

using Buffer = std::vector<double>;

/// Checks DX = d/dX of L = sum_j w_j Y_j: \p Primal(X, Y) runs the kernel,
/// \p Gradient(X, Y, DX, DY) its gradient.
void check(const std::string &Name, int Inputs, int Outputs,
           const std::function<void(Buffer &, Buffer &)> &Primal,
           const std::function<void(Buffer &, Buffer &, Buffer &, Buffer &)>
               &Gradient) {
  mt::RandomInputs Rng;
  Buffer X(Inputs), Y(Outputs), Wt(Outputs), DX(Inputs, 0.0), DY(Outputs);
  Rng.fill(X.data(), Inputs, 0.2, 1.2);
  Rng.fill(Wt.data(), Outputs, -1, 1);
  auto Loss = [&] {
    std::fill(Y.begin(), Y.end(), 0.0);
    Primal(X, Y);
    return mt::weightedSum(Wt.data(), Y.data(), Outputs);
  };
  DY = Wt;
  Gradient(X, Y, DX, DY);
  mt::checkLaunch(Name.c_str());
  for (int K = 0; K < Inputs; ++K)
    MESHAD_CHECK_CLOSE(Name + "[" + std::to_string(K) + "]", DX[K],
                       mt::centralDifferenceAt(Loss, X.data(), K));
}

/// A 1D kernel (x, y, n): n outputs, \p Inputs inputs.
template <class Fn, class G>
void check1D(const char *Name, Fn Kernel, G Grad, int N, int Inputs) {
  const dim3 Grid(3), Block(8); // 24 threads for N < 24 outputs.
  check(
      Name, Inputs, N,
      [&](Buffer &X, Buffer &Y) {
        MESHAD_LAUNCH(Kernel, Grid, Block)(X.data(), Y.data(), N);
      },
      [&](Buffer &X, Buffer &Y, Buffer &DX, Buffer &DY) {
        Grad.execute_kernel(Grid, Block, X.data(), Y.data(), N, DX.data(),
                            DY.data());
      });
}

/// A 2D kernel (rgb, out, W, H) over W x H pixels of 3 values, reading
/// \p Extra values past the last pixel.
template <class Fn, class G>
void check2D(const char *Name, Fn Kernel, G Grad, int Extra) {
  const int W = 7, H = 5;
  const dim3 Grid(2, 2), Block(4, 4); // 8 x 8 threads.
  check(
      Name, 3 * W * H + Extra, W * H,
      [&](Buffer &X, Buffer &Y) {
        MESHAD_LAUNCH(Kernel, Grid, Block)(X.data(), Y.data(), W, H);
      },
      [&](Buffer &X, Buffer &Y, Buffer &DX, Buffer &DY) {
        Grad.execute_kernel(Grid, Block, X.data(), Y.data(), W, H, DX.data(),
                            DY.data());
      });
}

int main() {
  const int N = 19;
  check1D("norms", norms, meshad::gradient(norms, "pos, len"), N, 3 * N);
  // The last thread reads x[3*(N-1) + 3].
  check1D("window4", window4, meshad::gradient(window4, "x, y"), N, 3 * N + 1);
  check2D("pixels", pixels, meshad::gradient(pixels, "rgb, out"), 0);
  check2D("pixels4", pixels4, meshad::gradient(pixels4, "rgb, out"), 1);
  // window with m = 5 reads x[3*(N-1) + 4].
  auto WindowGrad = meshad::gradient(window, "x, y");
  const dim3 Grid(3), Block(8);
  check(
      "window", 3 * N + 2, N,
      [&](Buffer &X, Buffer &Y) {
        MESHAD_LAUNCH(window, Grid, Block)(X.data(), Y.data(), N, 5);
      },
      [&](Buffer &X, Buffer &Y, Buffer &DX, Buffer &DY) {
        WindowGrad.execute_kernel(Grid, Block, X.data(), Y.data(), N, 5,
                                  DX.data(), DY.data());
      });
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 385 passed, 0 failed
