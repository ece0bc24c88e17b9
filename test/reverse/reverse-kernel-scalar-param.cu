// Reverse mode w.r.t. scalar kernel parameters: out[i] = a * x[i] + ...;
// the adjoint of a is one device scalar that every thread adds to, so it
// must accumulate safely over all threads and blocks. Also a partial
// selection ("a, out": the kernel <name>_grad_<i>_<j>, launched by name).
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "KernelCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

__global__ void affine(int n, double a, double b, const double *x,
                       double *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = a * x[i] + b * sin(a * x[i]) + b * b;
}
// CHECK-LABEL: __global__ void affine_grad(int n, double a, double b, const double *x, double *out, double *_d_a, double *_d_b, double *_d_x, double *_d_out) {
// CHECK-LABEL: __global__ void affine_grad_1_4(int n, double a, double b, const double *x, double *out, double *_d_a, double *_d_out) {

namespace mt = meshad::test;
constexpr int N = 45;
const dim3 Grid(3), Block(16);

int main() {
  mt::RandomInputs Rng;
  auto gAll = meshad::gradient(affine, "a, b, x, out");
  auto gA = meshad::gradient(affine, "a, out");

  std::vector<double> W(N);
  Rng.fill(W.data(), N, 0.5, 1); // positive: d_a, d_b far from zero
  mt::DeviceArray<double> X(N), Out(N), DX(N), DOut(N), DA(1), DB(1);
  Rng.fill(X.host(), N, 0.1, 0.6);
  double A = Rng.uniform(0.5, 1.5), B = Rng.uniform(0.5, 1.5);
  auto Loss = [&] {
    X.upload();
    MESHAD_LAUNCH(affine, Grid, Block)(N, A, B, X.device(), Out.device());
    Out.download();
    return mt::weightedSum(W.data(), Out.host(), N);
  };
  std::vector<double> RefX = mt::fdGradient(Loss, X.host(), N);
  double RefA = mt::fdGradient(Loss, &A, 1)[0];
  double RefB = mt::fdGradient(Loss, &B, 1)[0];
  // d L / d a analytically: sum_i w_i x_i (1 + b cos(a x_i)).
  double AnalyticA = 0;
  for (int I = 0; I < N; ++I)
    AnalyticA += W[I] * X[I] * (1 + B * std::cos(A * X[I]));

  X.upload();
  DX.zero();
  DA[0] = 0.125; // accumulates onto what is there
  DA.upload();
  DB.zero();
  for (int I = 0; I < N; ++I)
    DOut[I] = W[I];
  DOut.upload();
  gAll.execute_kernel(Grid, Block, N, A, B, X.device(), Out.device(),
                      DA.device(), DB.device(), DX.device(), DOut.device());
  mt::checkLaunch("affine_grad");
  DX.download();
  DA.download();
  DB.download();
  mt::checkArray("d affine/dx", DX.host(), RefX.data(), N);
  MESHAD_CHECK_CLOSE("d affine/da (accumulated onto 0.125)", DA[0],
                     0.125 + RefA);
  MESHAD_CHECK_CLOSE("d affine/da analytic", DA[0] - 0.125, AnalyticA);
  MESHAD_CHECK_CLOSE("d affine/db", DB[0], RefB);

  // Only a (and the seed carrier out): affine_grad_1_4, launched by name.
  DA.zero();
  DOut.upload();
  MESHAD_LAUNCH(affine_grad_1_4, Grid, Block)(N, A, B, X.device(),
                                              Out.device(), DA.device(),
                                              DOut.device());
  mt::checkLaunch("affine_grad_1_4");
  DA.download();
  MESHAD_CHECK_CLOSE("d affine/da via affine_grad_1_4", DA[0], RefA);
  DA.zero();
  for (int I = 0; I < N; ++I)
    DOut[I] = W[I];
  DOut.upload();
  gA.execute_kernel(Grid, Block, N, A, B, X.device(), Out.device(),
                    DA.device(), DOut.device());
  mt::checkLaunch("affine_grad_1_4 handle");
  DA.download();
  MESHAD_CHECK_CLOSE("d affine/da via handle", DA[0], RefA);
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 50 passed, 0 failed
