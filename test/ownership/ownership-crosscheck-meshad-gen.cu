// meshad-gen --ownership-crosscheck: the development check of the plugin's
// -fplugin-arg-meshad-ownership-crosscheck (GPU/OwnershipCrossCheck), the
// ownership of each gradient kernel's adjoint array classified on the
// primal and on the finished function, a warning at each difference. It
// changes nothing in what meshad-gen writes. The kernel's inner loop counter
// is recomputed from a trip count taped per outer iteration, which the
// finished function does not bound: the decision comes from the primal
// reads its adds record (thread-exclusive), and the check says so. The
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

__global__ void nested(const double *w, double *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    double s = 0;
    for (int a = 0; a < 2; ++a)
      for (int c = 0; c < 2; ++c)
        s += w[4 * i + 2 * a + c] * sin(s);
    y[i] = s * s;
  }
}
// WARN: ownership-crosscheck-meshad-gen.cu:[[#@LINE-4]]:14: warning: ownership cross-check of w in nested_grad: decided on the primal reads that its adds record
// WARN: ownership-crosscheck-meshad-gen.cu:[[#@LINE-5]]:14: remark: adjoint store to 'w': plain += (thread-exclusive:
// CHECK-LABEL: __global__ void nested_grad(
// CHECK-NOT: atomicAdd(&_d_w
// CHECK: meshad::exclusiveAdd(&_d_w[4 * i + 2 * a + c],

int main() {
  const int N = 100;
  meshad::test::RandomInputs Rng;
  meshad::test::DeviceArray<double> W(4 * N), Y(N), DW(4 * N), DY(N);
  Rng.fill(W.host(), 4 * N, 0.2, 1.2);
  std::vector<double> Weights(N);
  Rng.fill(Weights.data(), N, -1, 1);
  auto Loss = [&] {
    W.upload();
    Y.zero();
    MESHAD_LAUNCH(nested, dim3(2), dim3(64))(W.device(), Y.device(), N);
    Y.download();
    return meshad::test::weightedSum(Weights.data(), Y.host(), N);
  };
  std::vector<double> Expected =
      meshad::test::fdGradient(Loss, W.host(), 4 * N);
  W.upload();
  for (int I = 0; I < N; ++I)
    DY[I] = Weights[I];
  DY.upload();
  DW.zero();
  auto g = meshad::gradient(nested, "w, y");
  g.execute_kernel(dim3(2), dim3(64), W.device(), Y.device(), N, DW.device(),
                   DY.device());
  meshad::test::checkLaunch("nested");
  DW.download();
  meshad::test::checkArray("nested", DW.host(), Expected.data(), 4 * N);
  return meshad::test::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: {{[0-9]+}} passed, 0 failed
