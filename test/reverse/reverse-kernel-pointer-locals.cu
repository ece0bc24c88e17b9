// Reverse mode of kernels whose pointer locals alias memory: adds through a
// pointer into a parameter's memory are atomic (every thread of `shift`
// reads p[0] = x[1], so every thread adds to its adjoint: a plain += there
// raced on a GPU, which the CPU emulation's fibers do not show), adds
// through a pointer into the thread's own local array stay plain.
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "KernelCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

__global__ void shift(int n, const double *x, double *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  const double *p = x + 1;
  if (i < n)
    y[i] = x[i] * p[0] + sin(p[i % 3]);
}
// CHECK-LABEL: __global__ void shift_grad(int n, const double *x, double *y, double *_d_x, double *_d_y) {
// CHECK:         _d_p = _d_x + 1;
// CHECK:         atomicAdd(&_d_p[0], x[i] * _r0);
// CHECK-NEXT:    atomicAdd(&_d_p[i % 3], _r0 * cos(p[i % 3]));

__global__ void staged(int n, const double *x, double *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  double buf[2];
  double *w = buf;
  if (i < n) {
    w[0] = x[i];
    w[1] = x[i] * x[i];
    y[i] = w[0] * w[1] + w[1];
  }
}
// CHECK-LABEL: __global__ void staged_grad(int n, const double *x, double *y, double *_d_x, double *_d_y) {
// CHECK-NOT:     atomicAdd(&_d_w
// CHECK:         _d_w[1] +=
// CHECK-NOT:     atomicAdd(&_d_w
// CHECK:       }

namespace mt = meshad::test;
constexpr int B = 16, N = 40;

template <class K, class G>
void check(const char *Name, K Kernel, const G &Grad, mt::RandomInputs &Rng) {
  std::vector<double> W(N);
  Rng.fill(W.data(), N, 0.5, 1);
  mt::DeviceArray<double> X(N), Y(N), DX(N), DY(N);
  Rng.fill(X.host(), N, 0.2, 1.2);
  dim3 Grid((N + B - 1) / B), Block(B);
  auto Loss = [&] {
    X.upload();
    MESHAD_LAUNCH(Kernel, Grid, Block)(N, X.device(), Y.device());
    Y.download();
    return mt::weightedSum(W.data(), Y.host(), N);
  };
  std::vector<double> Ref = mt::fdGradient(Loss, X.host(), N);
  X.upload();
  DX.zero();
  for (int I = 0; I < N; ++I)
    DY[I] = W[I];
  DY.upload();
  Grad.execute_kernel(Grid, Block, N, X.device(), Y.device(), DX.device(),
                      DY.device());
  mt::checkLaunch(Name);
  DX.download();
  mt::checkArray(Name, DX.host(), Ref.data(), N);
}

int main() {
  mt::RandomInputs Rng;
  check("d shift/dx", shift, meshad::gradient(shift, "x, y"), Rng);
  check("d staged/dx", staged, meshad::gradient(staged, "x, y"), Rng);
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 80 passed, 0 failed
