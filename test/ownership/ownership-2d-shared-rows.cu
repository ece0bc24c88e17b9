// 2D kernels whose reads are shared along one launch dimension: with c from
// the x indices and r from the y indices, x[c] is read by the thread of
// every row and w[r] by the thread of every column. The ownership analysis
// looks at every thread index the kernel uses (directly, through locals, or
// in a device function it calls): an index that leaves out threadIdx.y and
// blockIdx.y of a kernel that reads them is shared, so its adjoint keeps
// atomicAdd with a remark saying why, while out[r * W + c] and y[r * W + c]
// stay thread-exclusive under a 2D launch check. Before, x[c] got a 1D proof
// and the gradient kernel stopped every 2D launch with the 1D-launch trap.
// Every gradient runs under its own 2D launch and is checked against central
// finite differences.
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-remarks -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.log
// RUN: FileCheck %s --check-prefix=REMARK < %t.log
// RUN: FileCheck %s < %t.log
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "KernelCheck.h"
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>
#include <string>
#include <vector>

__global__ void rowScale(const double *x, const double *w, double *out, int W,
                         int H) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (c < W && r < H)
    out[r * W + c] = sin(x[c]) * w[r] + x[c] * x[c];
}
// REMARK-DAG: ownership-2d-shared-rows.cu:[[#@LINE-2]]:26: remark: adjoint store to 'x': atomicAdd (shared: x[c]: the index c does not involve threadIdx.y or blockIdx.y, which the kernel uses: threads that differ only there access the same elements)
// REMARK-DAG: ownership-2d-shared-rows.cu:[[#@LINE-3]]:34: remark: adjoint store to 'w': atomicAdd (shared: w[r]: the index r does not depend on threadIdx.x
// CHECK-LABEL: __global__ void rowScale_grad(
// CHECK: meshad::requireLaunch2D();
// CHECK-NOT: requireLaunch1D
// CHECK-DAG: atomicAdd(&_d_w[r],
// CHECK-DAG: atomicAdd(&_d_x[c],
// CHECK: _d_out[r * W + c] = 0.;
// CHECK: }

__global__ void energy(const double *x, const double *y, double *E, int W,
                       int H) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (c < W && r < H)
    atomicAdd(E, x[c] * y[r * W + c] * y[r * W + c]);
}
// REMARK-DAG: ownership-2d-shared-rows.cu:[[#@LINE-2]]:18: remark: adjoint store to 'x': atomicAdd (shared: x[c]: the index c does not involve threadIdx.y or blockIdx.y
// REMARK-DAG: ownership-2d-shared-rows.cu:[[#@LINE-3]]:25: remark: adjoint store to 'y': plain += (thread-exclusive: every access is r*W + c + {0} with 0 <= c < W)
// No plain stores are left (y's adjoint is only added to): no launch check.
// CHECK-LABEL: __global__ void energy_grad(
// CHECK-NOT: requireLaunch
// CHECK: atomicAdd(&_d_x[c],
// CHECK-NEXT: meshad::exclusiveAdd(&_d_y[r * W + c],
// CHECK: }

// The kernel's only y index is a local that a guard reads.
__global__ void firstRows(const double *x, double *E, int W) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = threadIdx.y;
  if (c < W && r < 3)
    atomicAdd(E, exp(x[c]) * (r + 1));
}
// REMARK-DAG: ownership-2d-shared-rows.cu:[[#@LINE-2]]:22: remark: adjoint store to 'x': atomicAdd (shared: x[c]: the index c does not involve threadIdx.y or blockIdx.y
// CHECK-LABEL: __global__ void firstRows_grad(
// CHECK-NOT: requireLaunch
// CHECK: atomicAdd(&_d_x[c],
// CHECK: }

// The kernel's only y index is in a device function it calls.
__device__ int rowIndex() { return blockIdx.y * blockDim.y + threadIdx.y; }
__global__ void viaHelper(const double *x, double *E, int W, int H) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = rowIndex();
  if (c < W && r < H)
    atomicAdd(E, cos(x[c]) * x[c] * (r + 2));
}
// REMARK-DAG: ownership-2d-shared-rows.cu:[[#@LINE-2]]:22: remark: adjoint store to 'x': atomicAdd (shared: x[c]: the index c does not involve threadIdx.y or blockIdx.y
// CHECK-LABEL: __global__ void viaHelper_grad(
// CHECK-NOT: requireLaunch
// CHECK: atomicAdd(&_d_x[c],
// CHECK: }

namespace mt = meshad::test;

// 13 x 6 elements under a 16 x 8 launch: the guards cut the last blocks.
constexpr int W = 13, H = 6;
const dim3 Grid(2, 2), Block(8, 4);

/// d/dx, d/dw of L = sum_p wt_p out_p.
void checkRowScale() {
  mt::RandomInputs Rng;
  auto Grad = meshad::gradient(rowScale, "x, w, out");
  mt::DeviceArray<double> X(W), Wr(H), Out(W * H), DX(W), DW(H), DOut(W * H);
  std::vector<double> Wt(W * H);
  Rng.fill(X.host(), W, 0.2, 1.2);
  Rng.fill(Wr.host(), H, -1, 1);
  Rng.fill(Wt.data(), W * H, -1, 1);
  auto Loss = [&] {
    X.upload();
    Wr.upload();
    MESHAD_LAUNCH(rowScale, Grid, Block)(X.device(), Wr.device(),
                                         Out.device(), W, H);
    Out.download();
    return mt::weightedSum(Wt.data(), Out.host(), W * H);
  };
  std::vector<double> RefX = mt::fdGradient(Loss, X.host(), W);
  std::vector<double> RefW = mt::fdGradient(Loss, Wr.host(), H);
  X.upload();
  Wr.upload();
  DX.zero();
  DW.zero();
  for (int I = 0; I < W * H; ++I)
    DOut[I] = Wt[I];
  DOut.upload();
  Grad.execute_kernel(Grid, Block, X.device(), Wr.device(), Out.device(), W,
                      H, DX.device(), DW.device(), DOut.device());
  if (!mt::checkLaunch("rowScale_grad"))
    return;
  DX.download();
  DW.download();
  mt::checkArray("rowScale dx", DX.host(), RefX.data(), W);
  mt::checkArray("rowScale dw", DW.host(), RefW.data(), H);
}

/// dE/dx, dE/dy.
void checkEnergy() {
  mt::RandomInputs Rng;
  auto Grad = meshad::gradient(energy, "x, y, E");
  mt::DeviceArray<double> X(W), Y(W * H), E(1), DX(W), DY(W * H), DE(1);
  Rng.fill(X.host(), W, -1, 1);
  Rng.fill(Y.host(), W * H, -1, 1);
  auto Loss = [&] {
    X.upload();
    Y.upload();
    E.zero();
    MESHAD_LAUNCH(energy, Grid, Block)(X.device(), Y.device(), E.device(), W,
                                       H);
    E.download();
    return E[0];
  };
  std::vector<double> RefX = mt::fdGradient(Loss, X.host(), W);
  std::vector<double> RefY = mt::fdGradient(Loss, Y.host(), W * H);
  X.upload();
  Y.upload();
  E.zero();
  DX.zero();
  DY.zero();
  DE[0] = 1;
  DE.upload();
  Grad.execute_kernel(Grid, Block, X.device(), Y.device(), E.device(), W, H,
                      DX.device(), DY.device(), DE.device());
  if (!mt::checkLaunch("energy_grad"))
    return;
  DX.download();
  DY.download();
  mt::checkArray("energy dx", DX.host(), RefX.data(), W);
  mt::checkArray("energy dy", DY.host(), RefY.data(), W * H);
}

/// dE/dx of a kernel (x, E, W[, H]) launched on Grid x Block.
template <class K, class G, class... Extra>
void checkSum(const char *Name, K Kernel, G Grad, Extra... Ex) {
  mt::RandomInputs Rng;
  mt::DeviceArray<double> X(W), E(1), DX(W), DE(1);
  Rng.fill(X.host(), W, -1, 1);
  auto Loss = [&] {
    X.upload();
    E.zero();
    MESHAD_LAUNCH(Kernel, Grid, Block)(X.device(), E.device(), W, Ex...);
    E.download();
    return E[0];
  };
  std::vector<double> RefX = mt::fdGradient(Loss, X.host(), W);
  X.upload();
  DX.zero();
  DE[0] = 1;
  DE.upload();
  Grad.execute_kernel(Grid, Block, X.device(), E.device(), W, Ex...,
                      DX.device(), DE.device());
  if (!mt::checkLaunch(Name))
    return;
  DX.download();
  mt::checkArray(std::string(Name) + " dx", DX.host(), RefX.data(), W);
}

int main() {
  checkRowScale();
  checkEnergy();
  checkSum("firstRows", firstRows, meshad::gradient(firstRows, "x, E"));
  checkSum("viaHelper", viaHelper, meshad::gradient(viaHelper, "x, E"), H);
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 136 passed, 0 failed
