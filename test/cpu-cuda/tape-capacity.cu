// CUDA-on-CPU emulation: a kernel's tape keeps the device's capacity (64
// values per thread by default). A gradient whose loop pushes 40 values
// per thread runs and is checked against the analytic derivative
// d(prod_k s_k)/ds_j = prod_k s_k / s_j; with 100 values it aborts with the
// message a GPU prints before it traps (host code's tapes keep growing).
//
// RUN: %clangxx %cpu_cuda_flags -O1 -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s --check-prefix=CODE < %t.dump
// RUN: %t 40 | FileCheck %s
// RUN: not --crash %t 100 2>&1 | FileCheck %s --check-prefix=OVERFLOW
// CHECK-NOT: FAIL
// CHECK: numeric checks: 80 passed, 0 failed
// OVERFLOW: meshad: tape overflow (more than 64 values in one thread of a kernel); define MESHAD_TAPE_CAPACITY larger

#include "KernelCheck.h"
#include <meshad/Differentiator.h>
#include <cstdlib>

/// The product of row i of s; P may be zero, so each P is taped.
__global__ void rowProduct(int n, int K, const double *s, double *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  double P = 1;
  for (int k = 0; k < K; ++k)
    P *= s[i * K + k];
  out[i] = P;
}
// CODE-LABEL: __global__ void rowProduct_grad(
// CODE: meshad::Tape<double> _t{{[0-9]+}};
// CODE: meshad::push(_t{{[0-9]+}}, P);

namespace mt = meshad::test;

int main(int Argc, char **Argv) {
  const int N = 2, K = std::atoi(Argv[1]);
  mt::RandomInputs Rng;
  mt::DeviceArray<double> S(N * K), Out(N), DS(N * K), DOut(N);
  Rng.fill(S.host(), N * K, 0.8, 1.2);
  S.upload();
  for (int I = 0; I < N; ++I)
    DOut.host()[I] = 1;
  DOut.upload();
  DS.zero();
  auto G = meshad::gradient(rowProduct, "s, out");
  G.execute_kernel(dim3(1), dim3(32), N, K, S.device(), Out.device(),
                   DS.device(), DOut.device());
  mt::checkLaunch("rowProduct_grad");
  DS.download();
  for (int I = 0; I < N; ++I) {
    double P = 1;
    for (int J = 0; J < K; ++J)
      P *= S.host()[I * K + J];
    for (int J = 0; J < K; ++J)
      mt::checkClose("d out/d s", DS.host()[I * K + J],
                     P / S.host()[I * K + J]);
  }
  return mt::summary();
}
