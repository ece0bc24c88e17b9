// Dynamic shared memory (extern __shared__) that carries no derivative needs
// no shadow: no error, no doubled launch. Forward and reverse mode of the
// buffer itself: forward/forward-kernel-dynamic-shared.cu,
// reverse/reverse-kernel-dynamic-shared.cu; pointers into it:
// cxx/dynamic-shared-pointers.cu; HVPs: cxx/dynamic-shared-hvp.cu. (A
// kernel's meshad::hessian rejects any __shared__ memory: its elements'
// work must be their threads' alone.)
//
// RUN: %clangxx %cpu_cuda_flags -fsyntax-only -fplugin=%meshad_plugin %s -Xclang -verify
// expected-no-diagnostics
#include <meshad/Differentiator.h>

// Without derivative-carrying values in it, the buffer needs no shadow.
__global__ void indices(const int *idx, const double *x, double *y) {
  MESHAD_DYNAMIC_SHARED(int, slot);
  int t = threadIdx.x;
  slot[t] = idx[t];
  __syncthreads();
  y[t] = x[slot[(t + 1) % blockDim.x]] * x[t];
}

int main() {
  meshad::gradient(indices, "x, y");
  meshad::differentiate(indices, "x");
  return 0;
}
