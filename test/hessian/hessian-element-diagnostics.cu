// meshad::hessian(kernel, "x") of kernels that are not element kernels the
// analysis can map: each an error at the request naming what breaks the
// pattern, never a wrong Hessian. No element map (a thread-indexed read),
// x read through two index arrays, a break out of a grid-stride loop, a second array
// written, the energy's atomicAdd result used, shared memory, statements after the guard, no guard (no element count), a
// selected integer parameter.
//
// RUN: %clangxx %cpu_cuda_flags -fsyntax-only -fplugin=%meshad_plugin %s -Xclang -verify
#include <meshad/Differentiator.h>
#include <meshad/ElementHessian.h>

__global__ void noMap(int n, const double *x, double *E) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < n)
    atomicAdd(E, x[t] * x[t]);
}
__global__ void twoMaps(int n, const int *edges, const int *hinges,
                        const double *x, double *E) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < n) {
    double d = x[edges[2 * t]] - x[hinges[2 * t + 1]];
    atomicAdd(E, d * d);
  }
}
__global__ void gridStride(int n, const int *edges, const double *x,
                           double *E) {
  for (int t = blockIdx.x * blockDim.x + threadIdx.x; t < n;
       t += blockDim.x * gridDim.x) {
    double d = x[edges[2 * t]] - x[edges[2 * t + 1]];
    if (d > 1)
      break;
    atomicAdd(E, d * d);
  }
}
__global__ void twoOutputs(int n, const int *edges, const double *x,
                           double *E, double *lengths) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < n) {
    double d = x[edges[2 * t]] - x[edges[2 * t + 1]];
    lengths[t] = d;
    atomicAdd(E, d * d);
  }
}
__global__ void usedOld(int n, const int *edges, const double *x, double *E,
                        double *F) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < n) {
    double d = x[edges[2 * t]] - x[edges[2 * t + 1]];
    double old = atomicAdd(E, d * d);
    atomicAdd(F, old);
  }
}
__global__ void sharedSum(int n, const int *edges, const double *x,
                          double *E) {
  __shared__ double s[32];
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < n) {
    double d = x[edges[2 * t]] - x[edges[2 * t + 1]];
    s[threadIdx.x] = d * d;
    atomicAdd(E, s[threadIdx.x]);
  }
}
__global__ void afterGuard(int n, const int *edges, const double *x,
                           double *E) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < n) {
    double d = x[edges[2 * t]] - x[edges[2 * t + 1]];
    atomicAdd(E, d * d);
  }
  if (t == 0)
    atomicAdd(E, 1.0);
}
__global__ void noGuard(const int *edges, const double *x, double *E) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  double d = x[edges[2 * t]] - x[edges[2 * t + 1]];
  atomicAdd(E, d * d);
}

int main() {
  auto a = meshad::hessian(noMap, "x"); // expected-error {{meshad::hessian of the kernel 'noMap': 'x' is not read through an element map}}
  auto b = meshad::hessian(twoMaps, "x"); // expected-error {{meshad::hessian of the kernel 'twoMaps': 'x' is read through 2 index arrays; one index array per kernel is supported}}
  auto c = meshad::hessian(gridStride, "x"); // expected-error {{meshad::hessian of the kernel 'gridStride': a break or continue of the grid-stride loop: an element's work must not decide whether the thread's next elements run}}
  auto d = meshad::hessian(twoOutputs, "x"); // expected-error {{meshad::hessian of the kernel 'twoOutputs': it writes 'lengths' besides the energy 'E': the kernel must only add a local energy into one array with atomicAdd}}
  auto e = meshad::hessian(usedOld, "x"); // expected-error {{meshad::hessian of the kernel 'usedOld': it writes 'F' besides the energy 'E'}}
  auto f = meshad::hessian(sharedSum, "x"); // expected-error {{meshad::hessian of the kernel 'sharedSum': it uses the __shared__ 's': an element's work must be its thread's alone}}
  auto g = meshad::hessian(afterGuard, "x"); // expected-error {{meshad::hessian of the kernel 'afterGuard': statements follow the guard `if (t < n) {...}`: put the element's work inside it}}
  auto h = meshad::hessian(noGuard, "x"); // expected-error {{meshad::hessian of the kernel 'noGuard': no element count}}
  auto i = meshad::hessian(noMap, "n"); // expected-error {{meshad::hessian of the kernel 'noMap': 'n' is not a pointer to floating-point DOFs}}
}
