// Dynamic shared memory (extern __shared__) that meshad cannot differentiate
// correctly: errors at the construct, never wrong derivatives. Second
// derivatives would need a third and fourth copy of the buffer. Forward and
// reverse mode of the buffer itself (pointers into it:
// cxx/dynamic-shared-pointers.cu):
// forward/forward-kernel-dynamic-shared.cu, reverse/reverse-kernel-dynamic-shared.cu.
//
// RUN: %clangxx %cpu_cuda_flags -fsyntax-only -fplugin=%meshad_plugin %s -Xclang -verify
#include <meshad/Differentiator.h>

__global__ void energy(const double *x, double *e) {
  MESHAD_DYNAMIC_SHARED(double, buf); // expected-error {{dynamic shared memory is not supported in second derivatives (meshad::hvp, meshad::hessian) yet: give the kernel a __shared__ array of fixed size}}
  int t = threadIdx.x;
  buf[t] = x[t] * x[t];
  __syncthreads();
  atomicAdd(e, buf[t] * buf[(t + 1) % blockDim.x]);
}

// Without derivative-carrying values in it, the buffer needs no shadow.
__global__ void indices(const int *idx, const double *x, double *y) {
  MESHAD_DYNAMIC_SHARED(int, slot);
  int t = threadIdx.x;
  slot[t] = idx[t];
  __syncthreads();
  y[t] = x[slot[(t + 1) % blockDim.x]] * x[t];
}

int main() {
  meshad::hvp(energy, "x");
  meshad::gradient(indices, "x, y");
  meshad::differentiate(indices, "x");
  return 0;
}
