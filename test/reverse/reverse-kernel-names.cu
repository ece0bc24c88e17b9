// Kernel gradients whose user locals take the names of meshad's kernel
// locals: a shared-memory adjoint tile (_d_x_tile) and a deferred seed reset
// (_z0), a gathered stencil's loop variables and sums (_threads, _j, _e,
// _d_x_sum), per-thread sums of a scalar parameter's and a uniform
// element's adjoints (_d_a_part, _d_w_0_part), the loop clearing a
// __shared__ array's adjoint (_i0). The generated locals take the next free
// names; every gradient is checked against central finite differences on
// the CPU emulation.
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "KernelCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

__global__ void stencilNames(const double *x, double *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0 && i < n - 1) {
    double _d_x_tile = x[i - 1] * x[i];
    double _z0 = sin(x[i + 1]) * x[i];
    y[i] = _d_x_tile + _z0;
  }
}
// CHECK-LABEL: __global__ void stencilNames_grad(const double *x, double *y, int n, double *_d_x, double *_d_y) {
// CHECK-DAG: __shared__ double _d_x_tile_1[3072];
// CHECK-DAG: double _d__d_x_tile = 0.;
// CHECK-DAG: double _d__z0 = 0.;
// CHECK: meshad::tileZero<1, -1, 1>(_d_x_tile_1);
// CHECK: _z1 = &_d_y[i];
// CHECK: meshad::tileWriteBack<1, -1, 1>(_d_x_tile_1, _d_x);
// CHECK-NEXT: if (_z1) {

__global__ void chainNames(const double *x, double *E, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i + 1 < n) {
    double _e = x[i + 1] - x[i];
    double _threads = _e * _e;
    int _j = 2;
    double _d_x_sum = _threads * _threads + _j * cos(_e);
    atomicAdd(&E[0], _d_x_sum);
  }
}
// CHECK-LABEL: __global__ void chainNames_grad(const double *x, double *E, int n, double *_d_x, double *_d_E) {
// CHECK: long long _threads_1 = (long long)gridDim.x * blockDim.x;
// CHECK-NEXT: for (long long _j_1 = (long long)blockIdx.x * blockDim.x + threadIdx.x; _j_1 < meshad::gatherSlots<0, 1>(_threads_1); _j_1 += _threads_1) {
// CHECK-NEXT: long long _e_1 = meshad::gatherElement<0, 1>(_j_1, _threads_1);
// CHECK-NEXT: double _d_x_sum_1 = 0.;
// CHECK: meshad::exclusiveAdd(&_d_x[_e_1], _d_x_sum_1);

__global__ void scaleNames(int n, double a, const double *w, const double *x,
                           double *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    double _d_a_part = a * x[i];
    double _d_w_0_part = w[0] * _d_a_part;
    out[i] = _d_a_part * _d_w_0_part;
  }
}
// CHECK-LABEL: __global__ void scaleNames_grad(int n, double a, const double *w, const double *x, double *out, double *_d_a, double *_d_w, double *_d_x, double *_d_out) {
// CHECK-DAG: double _d_a_part;
// CHECK-DAG: double _d_w_0_part;
// CHECK-DAG: double _d_a_part_1 = 0.;
// CHECK-DAG: double _d_w_0_part_1 = 0.;
// CHECK: meshad::blockReduceAtomicAdd(_d_a, _d_a_part_1);
// CHECK: meshad::blockReduceAtomicAdd(&_d_w[0], _d_w_0_part_1);

#define TILE 16
__global__ void sharedNames(int n, const double *u, double *v) {
  __shared__ double tile[TILE];
  int _i0 = threadIdx.x;
  int i = blockIdx.x * TILE + _i0;
  tile[_i0] = i < n ? u[i] : 0.0;
  __syncthreads();
  if (i < n)
    v[i] = tile[_i0] * sin(tile[TILE - 1 - _i0]);
}
// CHECK-LABEL: __global__ void sharedNames_grad(int n, const double *u, double *v, double *_d_u, double *_d_v) {
// CHECK: for (int _i1 = (int)(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)); _i1 < 16;

namespace mt = meshad::test;
constexpr int N = 45; // three blocks of 16, the last one partial
const dim3 Grid((N + TILE - 1) / TILE), Block(TILE);

int main() {
  mt::RandomInputs Rng;
  std::vector<double> W(N);
  Rng.fill(W.data(), N, 0.5, 1);
  mt::DeviceArray<double> X(N), Y(N), DX(N), DY(N), E(1), DE(1);
  mt::DeviceArray<double> Wp(1), DWp(1), DA(1);
  Rng.fill(X.host(), N, 0.2, 1.2);
  Wp[0] = Rng.uniform(0.5, 1.5);
  Wp.upload();
  double A = Rng.uniform(0.5, 1.5);
  auto SetSeeds = [&] {
    for (int I = 0; I < N; ++I)
      DY[I] = W[I];
    DY.upload();
    X.upload();
    DX.zero();
  };
  auto Loss = [&](auto Run) {
    return [&, Run] {
      X.upload();
      Run();
      Y.download();
      return mt::weightedSum(W.data(), Y.host(), N);
    };
  };

  auto LStencil = Loss([&] {
    MESHAD_LAUNCH(stencilNames, Grid, Block)(X.device(), Y.device(), N);
  });
  std::vector<double> Ref = mt::fdGradient(LStencil, X.host(), N);
  SetSeeds();
  meshad::gradient(stencilNames, "x, y")
      .execute_kernel(Grid, Block, X.device(), Y.device(), N, DX.device(),
                      DY.device());
  mt::checkLaunch("stencilNames_grad");
  DX.download();
  mt::checkArray("d stencilNames/dx", DX.host(), Ref.data(), N);

  auto LChain = [&] {
    X.upload();
    E.zero();
    MESHAD_LAUNCH(chainNames, Grid, Block)(X.device(), E.device(), N);
    E.download();
    return E[0];
  };
  Ref = mt::fdGradient(LChain, X.host(), N);
  SetSeeds();
  DE[0] = 1;
  DE.upload();
  meshad::gradient(chainNames, "x, E")
      .execute_kernel(Grid, Block, X.device(), E.device(), N, DX.device(),
                      DE.device());
  mt::checkLaunch("chainNames_grad");
  DX.download();
  mt::checkArray("d chainNames/dx", DX.host(), Ref.data(), N);

  auto LScale = Loss([&] {
    Wp.upload();
    MESHAD_LAUNCH(scaleNames, Grid, Block)(N, A, Wp.device(), X.device(),
                                           Y.device());
  });
  Ref = mt::fdGradient(LScale, X.host(), N);
  double RefA = mt::fdGradient(LScale, &A, 1)[0];
  double RefW = mt::fdGradient(LScale, Wp.host(), 1)[0];
  SetSeeds();
  Wp.upload(); // The finite differences left a perturbed copy there.
  DA.zero();
  DWp.zero();
  meshad::gradient(scaleNames, "a, w, x, out")
      .execute_kernel(Grid, Block, N, A, Wp.device(), X.device(), Y.device(),
                      DA.device(), DWp.device(), DX.device(), DY.device());
  mt::checkLaunch("scaleNames_grad");
  DX.download();
  DA.download();
  DWp.download();
  mt::checkArray("d scaleNames/dx", DX.host(), Ref.data(), N);
  MESHAD_CHECK_CLOSE("d scaleNames/da", DA[0], RefA);
  MESHAD_CHECK_CLOSE("d scaleNames/dw[0]", DWp[0], RefW);

  auto LShared = Loss([&] {
    MESHAD_LAUNCH(sharedNames, Grid, Block)(N, X.device(), Y.device());
  });
  Ref = mt::fdGradient(LShared, X.host(), N);
  SetSeeds();
  meshad::gradient(sharedNames, "u, v")
      .execute_kernel(Grid, Block, N, X.device(), Y.device(), DX.device(),
                      DY.device());
  mt::checkLaunch("sharedNames_grad");
  DX.download();
  mt::checkArray("d sharedNames/du", DX.host(), Ref.data(), N);
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
