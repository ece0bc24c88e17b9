// Tile-exclusive adjoints: the threads of a block share the elements that a
// stencil reads (x[i-1], x[i], x[i+1]) but blocks only share a halo. Their
// adjoint is summed per block in a shared-memory tile (one slot per thread
// and offset: no atomics), written once per element (plain +=), with one
// atomicAdd per halo element. A block larger than the tile falls back to
// atomics (stencil5's 1024-thread launch: its tile of 5 offsets has 608
// columns). Strided tiles
// (2*i, 2*i+2) work alike; grid-stride loops and wide spans keep atomics.
// Each gradient is checked against central finite differences, with a last
// block that is only partly inside the array.
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-remarks -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.log
// RUN: FileCheck %s --check-prefix=REMARK < %t.log
// RUN: FileCheck %s < %t.log
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "KernelCheck.h"
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

__global__ void stencil3(const double *x, double *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0 && i < n - 1)
    y[i] = x[i - 1] * x[i] + sin(x[i + 1]) * x[i];
}
// REMARK: ownership-tile-exclusive.cu:[[#@LINE-2]]:12: remark: adjoint store to 'x': shared-memory tile (tile-exclusive: x[i - 1] and x[i + 1] overlap between neighbouring threads; every access is gid + {-1, 0, 1}: each block owns its tile but a halo of 2 elements; summed per block in shared memory (a slot per thread and offset, no atomics), then one plain += per element (atomicAdd for the halo); not gathered: the sweeps store to memory other threads can see)
// CHECK-LABEL: __global__ void stencil3_grad(
// CHECK: __shared__ double _d_x_tile[3072];
// CHECK: meshad::requireLaunch1D();
// The lowering declares the pointer that defers y's seed reset after the
// sweep's temporaries:
// CHECK-NEXT: bool _cond0;
// CHECK-NEXT: double *_z0 = {};
// CHECK-NEXT: meshad::tileZero<1, -1, 1>(_d_x_tile);
// CHECK-NOT: atomicAdd
// CHECK: meshad::tileAdd<1, -1, 1>(_d_x_tile, _d_x, i - 1,
// The seed reset of the write-only output y waits until after the block's
// barrier in tileWriteBack:
// CHECK: _z0 = &_d_y[i];
// CHECK: meshad::tileWriteBack<1, -1, 1>(_d_x_tile, _d_x);
// CHECK-NEXT: if (_z0) {
// CHECK-NEXT: *_z0 = 0.;

__global__ void stencil5(const double *x, double *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= 2 && i < n - 2)
    y[i] = x[i - 2] * x[i + 2] + x[i - 1] * x[i + 1] * x[i];
}
// CHECK-LABEL: __global__ void stencil5_grad(
// CHECK: __shared__ double _d_x_tile[3040];
// CHECK: meshad::tileWriteBack<1, -2, 2>(_d_x_tile, _d_x);

__global__ void strided(const double *x, double *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = x[2 * i] * exp(x[2 * i + 2]);
}
// REMARK: ownership-tile-exclusive.cu:[[#@LINE-2]]:12: remark: adjoint store to 'x': shared-memory tile (tile-exclusive:
// CHECK-LABEL: __global__ void strided_grad(
// CHECK: __shared__ double _d_x_tile[3072];
// CHECK: meshad::tileWriteBack<2, 0, 2>(_d_x_tile, _d_x);

__global__ void gridStride(const double *x, double *y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n - 1;
       i += blockDim.x * gridDim.x)
    y[i] = x[i] * x[i + 1];
}
// REMARK: ownership-tile-exclusive.cu:[[#@LINE-2]]:12: remark: adjoint store to 'x': atomicAdd (shared:
// CHECK-LABEL: __global__ void gridStride_grad(
// CHECK-NOT: _tile
// CHECK: atomicAdd(&_d_x[i]

__global__ void wide(const double *x, double *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = x[i] * x[i + 40];
}
// REMARK: ownership-tile-exclusive.cu:[[#@LINE-2]]:12: remark: adjoint store to 'x': atomicAdd (shared:
// CHECK-LABEL: __global__ void wide_grad(
// CHECK-NOT: _tile
// CHECK: atomicAdd(&_d_x[i]

/// Checks the gradient of L = sum_i w_i y_i w.r.t. x of \p Kernel, whose
/// output has \p Outputs elements and input \p Inputs.
template <class K, class G>
void check(const char *Name, K Kernel, G Grad, int Inputs, int Outputs,
           dim3 Grid, dim3 Block) {
  meshad::test::RandomInputs Rng;
  meshad::test::DeviceArray<double> X(Inputs), Y(Outputs), W(Outputs),
      DX(Inputs), DY(Outputs);
  Rng.fill(X.host(), Inputs, 0.2, 1.2);
  Rng.fill(W.host(), Outputs, -1, 1);
  auto Loss = [&] {
    X.upload();
    Y.zero();
    MESHAD_LAUNCH(Kernel, Grid, Block)(X.device(), Y.device(), Outputs);
    meshad::test::checkLaunch(Name);
    Y.download();
    return meshad::test::weightedSum(W.host(), Y.host(), Outputs);
  };
  std::vector<double> Expected = meshad::test::fdGradient(Loss, X.host(), Inputs);
  X.upload();
  for (int I = 0; I < Outputs; ++I)
    DY[I] = W[I];
  DY.upload();
  DX.zero();
  Grad.execute_kernel(Grid, Block, X.device(), Y.device(), Outputs,
                      DX.device(), DY.device());
  meshad::test::checkLaunch(Name);
  DX.download();
  meshad::test::checkArray(Name, DX.host(), Expected.data(), Inputs);
}

int main() {
  const int N = 200;
  check("stencil3", stencil3, meshad::gradient(stencil3, "x, y"), N, N,
        dim3(7), dim3(32));
  check("stencil5 (tile)", stencil5, meshad::gradient(stencil5, "x, y"), N,
        N, dim3(4), dim3(64));
  check("strided", strided, meshad::gradient(strided, "x, y"), 2 * N + 2, N,
        dim3(4), dim3(64));
  check("gridStride", gridStride, meshad::gradient(gridStride, "x, y"), N, N,
        dim3(2), dim3(32));
  check("wide", wide, meshad::gradient(wide, "x, y"), N + 40, N, dim3(7),
        dim3(32));
  // Last: the slowest under compute-sanitizer (many wide FD launches).
  check("stencil5 (1024 threads: atomics)", stencil5,
        meshad::gradient(stencil5, "x, y"), 1100, 1100, dim3(2), dim3(1024));
  return meshad::test::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 2342 passed, 0 failed
