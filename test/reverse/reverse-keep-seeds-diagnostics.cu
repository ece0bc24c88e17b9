// meshad::KeepSeeds where a seed cannot simply be kept is an error at the
// store or at the option, never a wrong gradient: a function that is not a
// kernel, an array the kernel reads back (in place), an output stored twice
// on one path (also when a return in a branch between the stores leaves
// both on the path that falls through; also for meshad::hvp, which keeps
// the seeds) or in a loop, and a scatter that two threads may store to.
//
// RUN: %clangxx %cpu_cuda_flags -fsyntax-only -fplugin=%meshad_plugin %s -Xclang -verify
#include <meshad/Differentiator.h>

double hostSquare(double x) { return x * x; }

__global__ void inPlace(int n, double *v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    v[i] = v[i] * v[i]; // expected-error {{meshad::KeepSeeds: the seed of 'v' cannot be kept: the kernel also reads it, so its adjoint on entry is the seed of its final contents and on exit that of its initial contents; use the default (meshad::ResetSeeds)}}
}

__global__ void twice(int n, const double *x, double *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    y[i] = x[i]; // expected-error {{meshad::KeepSeeds: the seed of 'y' cannot be kept: it is stored by 2 statements on one path}}
    y[i] = x[i] * x[i];
  }
}

__global__ void twicePastReturn(int n, const int *mask, const double *x,
                                double *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    y[i] = x[i]; // expected-error 2 {{meshad::KeepSeeds: the seed of 'y' cannot be kept: it is stored by 2 statements on one path}}
    if (mask[i] != 0)
      return;
    y[i] = x[i] * x[i];
  }
}

__global__ void looped(int n, const double *x, double *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < 3; ++k)
    if (i < n)
      y[3 * i + k] = x[i] * k; // expected-error {{meshad::KeepSeeds: the seed of 'y' cannot be kept: it is stored in a loop}}
}

__global__ void scatter(int n, const int *to, const double *x, double *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[to[i]] = x[i] * x[i]; // expected-error-re {{meshad::KeepSeeds: the seed of 'y' cannot be kept: no proof that two threads never store to the same element ({{.*}}); declare it MESHAD_THREAD_EXCLUSIVE if they do not}}
}

void requests() {
  meshad::gradient(hostSquare, "x", meshad::KeepSeeds); // expected-error {{meshad::KeepSeeds applies to kernels; 'hostSquare' is not a __global__ function}}
  meshad::gradient(inPlace, "v", meshad::KeepSeeds);
  meshad::gradient(twice, "x, y", meshad::KeepSeeds);
  meshad::gradient(twicePastReturn, "x, y", meshad::KeepSeeds);
  meshad::hvp(twicePastReturn, "x"); // keeps the seeds too
  meshad::gradient(looped, "x, y", meshad::KeepSeeds);
  meshad::gradient(scatter, "x, y", meshad::KeepSeeds);
}
