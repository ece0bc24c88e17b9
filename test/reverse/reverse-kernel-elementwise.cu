// Reverse mode of elementwise kernels (i = blockIdx.x * blockDim.x +
// threadIdx.x, guarded by i < n, a grid larger than n), run on the CPU
// emulation: an out-of-place kernel (the output's adjoint is the seed and is
// zero on exit), an in-place kernel (one array is seed and result), and a
// float template kernel checked against its double instance. The derived
// kernel is launched through the handle and by its name.
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "KernelCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

__global__ void squash(int n, const double *x, double *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = x[i] * sin(x[i]) + exp(0.5 * x[i]);
}
// CHECK-LABEL: __global__ void squash_grad(int n, const double *x, double *y, double *_d_x, double *_d_y) {
// CHECK: blockIdx.x * blockDim.x + threadIdx.x
// CHECK: i < n

__global__ void relaxInPlace(int n, double *v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    double t = v[i];
    v[i] = 0.5 * t * t + cos(t);
  }
}
// CHECK-LABEL: __global__ void relaxInPlace_grad(int n, double *v, double *_d_v) {

template <class T> __global__ void softplus(int n, const T *x, T *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = log(T(1) + exp(x[i])) * x[i];
}
// CHECK-LABEL: __global__ void softplus_grad(int n, const float *x, float *y, float *_d_x, float *_d_y) {

namespace mt = meshad::test;
constexpr int N = 37;
const dim3 Grid(3), Block(16);

int main() {
  mt::RandomInputs Rng;
  auto gs = meshad::gradient(squash, "x, y");
  auto gr = meshad::gradient(relaxInPlace, "v");
  auto gf = meshad::gradient(softplus<float>, "x, y");

  // squash: L = sum_i w_i y_i.
  std::vector<double> W(N);
  Rng.fill(W.data(), N, -1, 1);
  mt::DeviceArray<double> X(N), Y(N), DX(N), DY(N);
  Rng.fill(X.host(), N, -1.5, 1.5);
  auto LossSquash = [&] {
    X.upload();
    MESHAD_LAUNCH(squash, Grid, Block)(N, X.device(), Y.device());
    Y.download();
    return mt::weightedSum(W.data(), Y.host(), N);
  };
  std::vector<double> Ref = mt::fdGradient(LossSquash, X.host(), N);
  X.upload();
  DX.zero();
  for (int I = 0; I < N; ++I)
    DY[I] = W[I];
  DY.upload();
  gs.execute_kernel(Grid, Block, N, X.device(), Y.device(), DX.device(),
                    DY.device());
  mt::checkLaunch("squash_grad");
  DX.download();
  DY.download();
  mt::checkArray("d squash/dx", DX.host(), Ref.data(), N);
  mt::checkZero("d squash/dy_initial", DY.host(), N);

  // The same kernel by name.
  DX.zero();
  for (int I = 0; I < N; ++I)
    DY[I] = W[I];
  DY.upload();
  MESHAD_LAUNCH(squash_grad, Grid, Block)(N, X.device(), Y.device(),
                                          DX.device(), DY.device());
  mt::checkLaunch("squash_grad by name");
  DX.download();
  mt::checkArray("d squash/dx by name", DX.host(), Ref.data(), N);

  // relaxInPlace: v is input and output; L = sum_i w_i v_final_i.
  mt::DeviceArray<double> V(N), DV(N);
  std::vector<double> V0(N);
  Rng.fill(V0.data(), N, 0.6, 1.5); // v - sin(v) far from 0
  auto LossRelax = [&] {
    for (int I = 0; I < N; ++I)
      V[I] = V0[I];
    V.upload();
    MESHAD_LAUNCH(relaxInPlace, Grid, Block)(N, V.device());
    V.download();
    return mt::weightedSum(W.data(), V.host(), N);
  };
  Ref = mt::fdGradient(LossRelax, V0.data(), N);
  for (int I = 0; I < N; ++I) {
    V[I] = V0[I];
    DV[I] = W[I];
  }
  V.upload();
  DV.upload();
  gr.execute_kernel(Grid, Block, N, V.device(), DV.device());
  mt::checkLaunch("relaxInPlace_grad");
  DV.download();
  mt::checkArray("d relaxInPlace/dv", DV.host(), Ref.data(), N);

  // softplus<float> against finite differences of softplus<double>.
  mt::DeviceArray<double> XD(N), YD(N);
  Rng.fill(XD.host(), N, 0.2, 2.0);
  auto LossSoftplus = [&] {
    XD.upload();
    MESHAD_LAUNCH(softplus<double>, Grid, Block)(N, XD.device(), YD.device());
    YD.download();
    return mt::weightedSum(W.data(), YD.host(), N);
  };
  mt::DeviceArray<float> XF(N), YF(N), DXF(N), DYF(N);
  for (int I = 0; I < N; ++I) {
    XF[I] = static_cast<float>(XD[I]);
    XD[I] = XF[I]; // the reference at the float inputs
    DYF[I] = static_cast<float>(W[I]);
    W[I] = DYF[I];
  }
  Ref = mt::fdGradient(LossSoftplus, XD.host(), N);
  XF.upload();
  DYF.upload();
  gf.execute_kernel(Grid, Block, N, XF.device(), YF.device(), DXF.device(),
                    DYF.device());
  mt::checkLaunch("softplus_grad<float>");
  DXF.download();
  mt::checkArray("d softplus<float>/dx", DXF.host(), Ref.data(), N);
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 185 passed, 0 failed
