// meshad::hessian of an element kernel that uses dynamic shared memory
// (issue 13, item 5 of session 9, not supported yet): the error of any
// __shared__ memory in a kernel's Hessian (hessian/hessian-element-
// diagnostics.cu has the fixed-size array), at the request, never a wrong
// Hessian. Its gradient and HVP are supported (cxx/dynamic-shared-hvp.cu).
//
// RUN: %clangxx %cpu_cuda_flags -fsyntax-only -fplugin=%meshad_plugin %s -Xclang -verify
#include <meshad/Differentiator.h>
#include <meshad/ElementHessian.h>
#include <meshad/cpu/Portable.h>

__global__ void dynamicSum(int n, const int *edges, const double *x,
                           double *E) {
  MESHAD_DYNAMIC_SHARED(double, s);
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < n) {
    double d = x[edges[2 * t]] - x[edges[2 * t + 1]];
    s[threadIdx.x] = d * d;
    atomicAdd(E, s[threadIdx.x]);
  }
}

int main() {
  auto f = meshad::hessian(dynamicSum, "x"); // expected-error {{meshad::hessian of the kernel 'dynamicSum': it uses the __shared__ 's': an element's work must be its thread's alone}}
}
