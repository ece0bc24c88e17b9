// The derivative of a __global__ kernel (its gradient, or its forward-mode
// derivative) is a kernel too: execute(args...) would call it as one host
// thread, so it is a compile-time error that names execute_kernel, for the
// CPU emulation and for CUDA. Handles of host functions keep execute, and
// kernel handles keep execute_kernel.
//
// RUN: %clangxx %cpu_cuda_flags -fsyntax-only -fplugin=%meshad_plugin %s -Xclang -verify
// RUN: %if cuda %{ %clangxx -x cuda %cuda_flags --cuda-host-only -fsyntax-only -fplugin=%meshad_plugin -I%I %s -Xclang -verify %}
#include <meshad/Differentiator.h>

__global__ void square(int n, const double *x, double *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = x[i] * x[i];
}

double host(double x) { return x * x; }

// expected-error@meshad/Differentiator.h:* 2 {{meshad: this derivative is a __global__ kernel: launch it with execute_kernel(grid, block, args...), not execute(args...)}}

void run(double *x, double *y, double *dx, double *dy) {
  auto g = meshad::gradient(square, "x, y");
  g.execute(4, x, y, dx, dy); // expected-note {{requested here}}
  g.execute_kernel(dim3(1), dim3(4), 4, x, y, dx, dy);
  auto f = meshad::differentiate(square, "x");
  f.execute(4, x, y, dx, dy); // expected-note {{requested here}}
  f.execute_kernel(dim3(1), dim3(4), 4, x, y, dx, dy);
  auto h = meshad::gradient(host, "x");
  double d = 0;
  h.execute(2.0, &d);
  (void)meshad::differentiate(host, "x").execute(2.0);
}
