// meshad::KeepSeeds: the gradient kernel reads the seeds of outputs that the
// kernel only writes, once per element, and leaves them as they are (the
// default resets the seed of every element the kernel overwrites: the
// adjoint of its initial contents is 0). Checked on an elementwise kernel, a
// 2D kernel and a kernel with two outputs, against central finite
// differences, and the seeds against their values before; the default
// request of the same kernel in the same file still resets them.
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
    y[i] = x[i] * sin(x[i]) + exp(-x[i]);
}
// CHECK-LABEL: __global__ void squash_grad_keep_seeds(int n, const double *x, double *y, double *_d_x, double *_d_y) {
// CHECK: double _r0 = _d_y[i];
// CHECK-NEXT: meshad::exclusiveAdd(&_d_x[i], {{.*}});
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-LABEL: __global__ void squash_grad(int n, const double *x, double *y, double *_d_x, double *_d_y) {
// CHECK: _d_y[i] = 0.;

__global__ void image(int W, int H, const double *x, double *img) {
  int gx = blockIdx.x * blockDim.x + threadIdx.x;
  int gy = blockIdx.y * blockDim.y + threadIdx.y;
  if (gx < W && gy < H)
    img[gy * W + gx] = x[gy * W + gx] * x[gy * W + gx] * cos(x[gy * W + gx]);
}
// CHECK-LABEL: __global__ void image_grad_keep_seeds(
// CHECK-NOT: _d_img[{{.*}}] = 0.
// CHECK: {{^}}}

__global__ void polar(int n, const double *r, const double *t, double *px,
                      double *py) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    double ri = r[i];
    px[i] = ri * cos(t[i]);
    py[i] = ri * sin(t[i]);
  }
}
// CHECK-LABEL: __global__ void polar_grad_keep_seeds(
// CHECK-NOT: _d_p{{x|y}}[i] = 0.;
// CHECK: {{^}}}

namespace mt = meshad::test;

int main() {
  mt::RandomInputs Rng;
  const int N = 77;
  const dim3 Grid(3), Block(32);

  // squash: L = sum_i w_i y_i.
  {
    std::vector<double> W(N);
    Rng.fill(W.data(), N, -1, 1);
    mt::DeviceArray<double> X(N), Y(N), DX(N), DY(N);
    Rng.fill(X.host(), N, -1.5, 1.5);
    auto Loss = [&] {
      X.upload();
      MESHAD_LAUNCH(squash, Grid, Block)(N, X.device(), Y.device());
      Y.download();
      return mt::weightedSum(W.data(), Y.host(), N);
    };
    std::vector<double> Ref = mt::fdGradient(Loss, X.host(), N);
    auto Keep = meshad::gradient(squash, "x, y", meshad::KeepSeeds);
    auto Reset = meshad::gradient(squash, "x, y");
    for (int Variant = 0; Variant < 2; ++Variant) {
      X.upload();
      DX.zero();
      for (int I = 0; I < N; ++I)
        DY[I] = W[I];
      DY.upload();
      if (Variant == 0)
        Keep.execute_kernel(Grid, Block, N, X.device(), Y.device(),
                            DX.device(), DY.device());
      else
        Reset.execute_kernel(Grid, Block, N, X.device(), Y.device(),
                             DX.device(), DY.device());
      mt::checkLaunch("squash_grad");
      DX.download();
      DY.download();
      mt::checkArray(Variant == 0 ? "squash kept dx" : "squash reset dx",
                     DX.host(), Ref.data(), N);
      if (Variant == 0)
        mt::checkArray("squash kept dy", DY.host(), W.data(), N);
      else
        mt::checkZero("squash reset dy", DY.host(), N);
    }
  }

  // image: 2D, 13 x 9 pixels on 8 x 4 blocks.
  {
    const int Wd = 13, Ht = 9, P = Wd * Ht;
    const dim3 Grid2(2, 3), Block2(8, 4);
    std::vector<double> W(P);
    Rng.fill(W.data(), P, -1, 1);
    mt::DeviceArray<double> X(P), Img(P), DX(P), DImg(P);
    Rng.fill(X.host(), P, -1.5, 1.5);
    auto Loss = [&] {
      X.upload();
      MESHAD_LAUNCH(image, Grid2, Block2)(Wd, Ht, X.device(), Img.device());
      Img.download();
      return mt::weightedSum(W.data(), Img.host(), P);
    };
    std::vector<double> Ref = mt::fdGradient(Loss, X.host(), P);
    X.upload();
    DX.zero();
    for (int I = 0; I < P; ++I)
      DImg[I] = W[I];
    DImg.upload();
    meshad::gradient(image, "x, img", meshad::KeepSeeds)
        .execute_kernel(Grid2, Block2, Wd, Ht, X.device(), Img.device(),
                        DX.device(), DImg.device());
    mt::checkLaunch("image_grad_keep_seeds");
    DX.download();
    DImg.download();
    mt::checkArray("image dx", DX.host(), Ref.data(), P);
    mt::checkArray("image dimg kept", DImg.host(), W.data(), P);
  }

  // polar: two outputs, L = sum_i a_i px_i + b_i py_i.
  {
    std::vector<double> A(N), Bw(N);
    Rng.fill(A.data(), N, -1, 1);
    Rng.fill(Bw.data(), N, -1, 1);
    mt::DeviceArray<double> R(N), T(N), PX(N), PY(N), DR(N), DT(N), DPX(N),
        DPY(N);
    Rng.fill(R.host(), N, 0.5, 2.0);
    Rng.fill(T.host(), N, -3.0, 3.0);
    auto Loss = [&] {
      R.upload();
      T.upload();
      MESHAD_LAUNCH(polar, Grid, Block)(N, R.device(), T.device(), PX.device(),
                                        PY.device());
      PX.download();
      PY.download();
      return mt::weightedSum(A.data(), PX.host(), N) +
             mt::weightedSum(Bw.data(), PY.host(), N);
    };
    std::vector<double> RefR = mt::fdGradient(Loss, R.host(), N);
    std::vector<double> RefT = mt::fdGradient(Loss, T.host(), N);
    R.upload();
    T.upload();
    DR.zero();
    DT.zero();
    for (int I = 0; I < N; ++I) {
      DPX[I] = A[I];
      DPY[I] = Bw[I];
    }
    DPX.upload();
    DPY.upload();
    meshad::gradient(polar, "r, t, px, py", meshad::KeepSeeds)
        .execute_kernel(Grid, Block, N, R.device(), T.device(), PX.device(),
                        PY.device(), DR.device(), DT.device(), DPX.device(),
                        DPY.device());
    mt::checkLaunch("polar_grad_keep_seeds");
    DR.download();
    DT.download();
    DPX.download();
    DPY.download();
    mt::checkArray("polar dr", DR.host(), RefR.data(), N);
    mt::checkArray("polar dt", DT.host(), RefT.data(), N);
    mt::checkArray("polar dpx kept", DPX.host(), A.data(), N);
    mt::checkArray("polar dpy kept", DPY.host(), Bw.data(), N);
  }
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 850 passed, 0 failed
