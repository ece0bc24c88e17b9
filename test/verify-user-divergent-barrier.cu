// The IR verifier (-fplugin-arg-meshad-verify, on in every lit test) reports
// a block barrier under a thread-dependent branch in generated code as an
// internal error, but not when the user's kernel already has it: the
// gradient repeats the user's barrier, and the problem is not meshad's.
//
// RUN: %clangxx -fsyntax-only %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump %s 2>&1 | FileCheck %s
// CHECK-NOT: internal error
// CHECK: __global__ void half_grad(
// CHECK: if (_cond0) {
// CHECK-NEXT: __syncthreads();
// CHECK-NOT: internal error
#include <meshad/Differentiator.h>

__global__ void half(const double *u, double *v) {
  __shared__ double s[64];
  int t = threadIdx.x;
  s[t] = u[t] * u[t];
  if (t < 32) // a user bug, kept as written
    __syncthreads();
  v[t] = s[t] * u[t];
}

int main() { auto g = meshad::gradient(half, "u, v"); }
