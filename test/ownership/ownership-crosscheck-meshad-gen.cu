// meshad-gen --ownership-crosscheck: the development check of the plugin's
// -fplugin-arg-meshad-ownership-crosscheck (GPU/OwnershipCrossCheck), the
// ownership of each gradient kernel's adjoint array classified on the
// primal and on the finished function, a warning at each difference. It
// changes nothing in what meshad-gen writes. The kernel's index p is assigned
// after an early return inside a branch: in the finished function its
// assignment is in a nested branch (`if (_cond0) { ... if (!_cond1) { p =
// 2 * i; } }`), which Analysis/SweepDefs does not follow: the decision comes
// from the primal reads its adds record (thread-exclusive), and the check
// says so. The
// written file, compiled without the plugin under the CPU emulation, gives
// the gradient that central finite differences give.
//
// RUN: %meshad_gen %s --ownership-crosscheck --remarks -o %t.cu -- -I%I -I%test_inputs -x c++ -std=c++20 -include meshad/cpu/CudaOnCpu.h 2> %t.log
// RUN: FileCheck %s --check-prefix=WARN < %t.log
// RUN: %meshad_gen %s -o %t.plain.cu -- -I%I -I%test_inputs -x c++ -std=c++20 -include meshad/cpu/CudaOnCpu.h
// RUN: diff %t.cu %t.plain.cu
// RUN: FileCheck %s < %t.cu
// RUN: %clangxx %cpu_cuda_flags -I%test_inputs %t.cu -o %t
// RUN: %t | FileCheck %s --check-prefix=NUM
// RUN: %meshad_gen --help | FileCheck %s --check-prefix=HELP
// HELP: --ownership-crosscheck
#include "KernelCheck.h"
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

__global__ void gated(const double *x, double *y, int n, int skip) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    if (skip > 0)
      return;
    int p = 2 * i;
    y[i] = x[p] * sin(x[p + 1]);
  }
}
// WARN: ownership-crosscheck-meshad-gen.cu:[[#@LINE-3]]:12: warning: ownership cross-check of x in gated_grad: decided on the primal reads that its adds record
// WARN: ownership-crosscheck-meshad-gen.cu:[[#@LINE-4]]:12: remark: adjoint store to 'x': plain += (thread-exclusive:
// CHECK-LABEL: __global__ void gated_grad(
// CHECK-NOT: atomicAdd(&_d_x
// CHECK: meshad::exclusiveAdd(&_d_x[p],

int main() {
  const int N = 100;
  meshad::test::RandomInputs Rng;
  meshad::test::DeviceArray<double> W(2 * N), Y(N), DW(2 * N), DY(N);
  Rng.fill(W.host(), 2 * N, 0.2, 1.2);
  std::vector<double> Weights(N);
  Rng.fill(Weights.data(), N, -1, 1);
  auto Loss = [&] {
    W.upload();
    Y.zero();
    MESHAD_LAUNCH(gated, dim3(2), dim3(64))(W.device(), Y.device(), N, 0);
    Y.download();
    return meshad::test::weightedSum(Weights.data(), Y.host(), N);
  };
  std::vector<double> Expected =
      meshad::test::fdGradient(Loss, W.host(), 2 * N);
  W.upload();
  for (int I = 0; I < N; ++I)
    DY[I] = Weights[I];
  DY.upload();
  DW.zero();
  auto g = meshad::gradient(gated, "x, y");
  g.execute_kernel(dim3(2), dim3(64), W.device(), Y.device(), N, 0,
                   DW.device(), DY.device());
  meshad::test::checkLaunch("gated");
  DW.download();
  meshad::test::checkArray("gated", DW.host(), Expected.data(), 2 * N);
  return meshad::test::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: {{[0-9]+}} passed, 0 failed
