// MESHAD_THREAD_EXCLUSIVE asserts what the analysis cannot prove: x is read
// through a permutation, so no two threads share an element. The gradient
// adds to _d_x with plain stores, and the remark says the class was
// asserted (with what the analysis alone found). Misplaced or unknown meshad
// annotations are errors at the annotation. The gradient is checked against
// central finite differences.
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-remarks -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.log
// RUN: FileCheck %s --check-prefix=REMARK < %t.log
// RUN: FileCheck %s < %t.log
// RUN: %t | FileCheck %s --check-prefix=NUM
// RUN: not %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -I%test_inputs %s -fsyntax-only -DBAD 2>&1 | FileCheck %s --check-prefix=BAD
#include "KernelCheck.h"
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

__global__ void permuted(const int *perm, const double *x MESHAD_THREAD_EXCLUSIVE,
                         double *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = sin(x[perm[i]]) * x[perm[i]];
}
// REMARK: ownership-asserted.cu:[[#@LINE-2]]:{{[0-9]+}}: remark: adjoint store to 'x': plain += (thread-exclusive (asserted by the user): MESHAD_THREAD_EXCLUSIVE on x; the analysis alone found it shared (x[perm[i]]: gather through an index array perm; x: element map through perm (arity 1, stride 1), n elements (guard), element work small (1 operation, 1 math call): atomic-free strategies possible))
// CHECK-LABEL: __global__ void permuted_grad(
// CHECK-NOT: atomicAdd
// CHECK: meshad::exclusiveAdd(&_d_x[perm[i]],
// CHECK: }

#ifdef BAD
__global__ void scalar(double k MESHAD_THREAD_EXCLUSIVE, double *y) {
  // BAD: ownership-asserted.cu:[[#@LINE-1]]:33: error: MESHAD_THREAD_EXCLUSIVE applies to pointer parameters; 'k' is not a pointer
  y[threadIdx.x] = k;
}
__global__ void unknown(double *x __attribute__((annotate("meshad::tiled")))) {
  // BAD: ownership-asserted.cu:[[#@LINE-1]]:50: error: unknown meshad annotation 'meshad::tiled'
  x[threadIdx.x] *= 2;
}
void bad(double *y, double *dy, double *x, double *dx) {
  meshad::gradient(scalar, "y").execute_kernel(dim3(1), dim3(1), 1.0, y, dy);
  meshad::gradient(unknown, "x").execute_kernel(dim3(1), dim3(1), x, dx);
}
#endif

int main() {
  const int N = 100;
  meshad::test::RandomInputs Rng;
  meshad::test::DeviceArray<int> Perm(N);
  meshad::test::DeviceArray<double> X(N), Y(N), W(N), DX(N), DY(N);
  for (int I = 0; I < N; ++I)
    Perm[I] = (37 * I + 11) % N; // 37 and 100 are coprime: a permutation.
  Perm.upload();
  Rng.fill(X.host(), N, -1, 1);
  Rng.fill(W.host(), N, -1, 1);
  auto Loss = [&] {
    X.upload();
    MESHAD_LAUNCH(permuted, 4, 32)(Perm.device(), X.device(), Y.device(), N);
    meshad::test::checkLaunch("permuted");
    Y.download();
    return meshad::test::weightedSum(W.host(), Y.host(), N);
  };
  std::vector<double> Expected = meshad::test::fdGradient(Loss, X.host(), N);
  X.upload();
  for (int I = 0; I < N; ++I)
    DY[I] = W[I];
  DY.upload();
  DX.zero();
  meshad::gradient(permuted, "x, y")
      .execute_kernel(dim3(4), dim3(32), Perm.device(), X.device(), Y.device(),
                      N, DX.device(), DY.device());
  meshad::test::checkLaunch("permuted_grad");
  DX.download();
  meshad::test::checkArray("dx", DX.host(), Expected.data(), N);
  return meshad::test::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 100 passed, 0 failed
