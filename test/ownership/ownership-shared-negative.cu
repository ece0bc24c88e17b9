// Negative cases of the ownership analysis: each keeps atomicAdd, and the
// remark names the reason. x[i / 2] (two threads per element), threadIdx.x
// alone (the same elements in every block), blockIdx.x alone (every thread
// of a block), a gather through an index array, and an array passed to a
// device function. Each gradient is checked against central finite
// differences.
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-remarks -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.log
// RUN: FileCheck %s --check-prefix=REMARK < %t.log
// RUN: FileCheck %s < %t.log
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "KernelCheck.h"
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

__global__ void halves(const double *x, double *y, const int *idx, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = sin(x[i / 2]);
}
// REMARK: ownership-shared-negative.cu:[[#@LINE-2]]:16: remark: adjoint store to 'x': atomicAdd (shared: index i / 2 is not affine)
// CHECK-LABEL: __global__ void halves_grad(
// CHECK: atomicAdd(&_d_x[i / 2],

__global__ void perBlock(const double *x, double *y, const int *idx, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = x[threadIdx.x] * x[threadIdx.x];
}
// REMARK: ownership-shared-negative.cu:[[#@LINE-2]]:12: remark: adjoint store to 'x': atomicAdd (shared: threadIdx.x alone repeats in every block
// CHECK-LABEL: __global__ void perBlock_grad(
// CHECK: atomicAdd(&_d_x[threadIdx.x],

__global__ void blockOnly(const double *x, double *y, const int *idx, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = exp(x[blockIdx.x]);
}
// REMARK: ownership-shared-negative.cu:[[#@LINE-2]]:16: remark: adjoint store to 'x': atomicAdd (shared: blockIdx.x without threadIdx.x is the same for all threads of a block
// CHECK-LABEL: __global__ void blockOnly_grad(
// CHECK: atomicAdd(&_d_x[blockIdx.x],

__global__ void gathered(const double *x, double *y, const int *idx, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = x[idx[i]] * x[idx[i]];
}
// REMARK: ownership-shared-negative.cu:[[#@LINE-2]]:12: remark: adjoint store to 'x': atomicAdd (shared: x[idx[i]]: gather through an index array idx; x: element map through idx (arity 1, stride 1), n elements (guard), element work small (1 operation, 0 math calls): atomic-free strategies possible)
// CHECK-LABEL: __global__ void gathered_grad_atomics(
// CHECK: atomicAdd(&_d_x[idx[i]],

__device__ double twice(const double *p, int i) { return 2 * p[i] * p[i]; }
__global__ void passed(const double *x, double *y, const int *idx, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = twice(x, i);
}
// CHECK-LABEL: __device__ void twice_pullback(
// CHECK: atomicAdd(&_d_p[i],

/// Checks d/dx of L = sum_i w_i y_i for \p Kernel with inputs of \p Inputs
/// elements and outputs of \p N.
template <class K, class G>
void check(const char *Name, K Kernel, G Grad, int Inputs, int N) {
  meshad::test::RandomInputs Rng;
  meshad::test::DeviceArray<double> X(Inputs), Y(N), W(N), DX(Inputs), DY(N);
  meshad::test::DeviceArray<int> Idx(N);
  for (int I = 0; I < N; ++I)
    Idx[I] = (I * 7) % Inputs;
  Idx.upload();
  Rng.fill(X.host(), Inputs, -1, 1);
  Rng.fill(W.host(), N, -1, 1);
  auto Loss = [&] {
    X.upload();
    MESHAD_LAUNCH(Kernel, 3, 32)(X.device(), Y.device(), Idx.device(), N);
    meshad::test::checkLaunch(Name);
    Y.download();
    return meshad::test::weightedSum(W.host(), Y.host(), N);
  };
  std::vector<double> Expected = meshad::test::fdGradient(Loss, X.host(), Inputs);
  X.upload();
  for (int I = 0; I < N; ++I)
    DY[I] = W[I];
  DY.upload();
  DX.zero();
  Grad.execute_kernel(dim3(3), dim3(32), X.device(), Y.device(), Idx.device(),
                      N, DX.device(), DY.device());
  meshad::test::checkLaunch(Name);
  DX.download();
  meshad::test::checkArray(Name, DX.host(), Expected.data(), Inputs);
}

int main() {
  const int N = 90;
  check("halves", halves, meshad::gradient(halves, "x, y"), N / 2, N);
  check("perBlock", perBlock, meshad::gradient(perBlock, "x, y"), 32, N);
  check("blockOnly", blockOnly, meshad::gradient(blockOnly, "x, y"), 3, N);
  check("gathered", gathered, meshad::gradient(gathered, "x, y", meshad::ElementStrategy::Atomics), 40, N);
  check("passed", passed, meshad::gradient(passed, "x, y"), N, N);
  return meshad::test::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 210 passed, 0 failed
