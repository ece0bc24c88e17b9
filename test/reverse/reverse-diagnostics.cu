// Reverse-mode requests and code that meshad cannot differentiate correctly
// are errors at the construct, never wrong gradients. (A return inside a
// loop is supported since issue 13: test/cxx/return-in-loop.cpp.)
//
// RUN: %clangxx %cpu_cuda_flags -fsyntax-only -fplugin=%meshad_plugin %s -Xclang -verify
#include <meshad/Differentiator.h>

double early(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) {
    if (x[i] < 0)
      return s;
    s += x[i] * x[i];
  }
  return s;
}

__global__ void square(const double *x, double *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = x[i] * x[i];
}

// What a callee overwrites through a pointer of unknown size is logged and
// rolled back around its pullback (test/reverse/reverse-callee-writes.cpp);
// an atomic update cannot be.
__device__ void bump(double a, double *v) {
  atomicAdd(&v[0], a * v[1]); // expected-error {{cannot undo the atomic update of memory that 'bump' was given}}
}
__device__ double bumpedNorm(double a, double *v) {
  bump(a, v);
  return v[0] * v[1];
}

int main() {
  meshad::gradient(early, "x");
  meshad::gradient(square, "x");       // expected-error {{'square' writes values that depend on the selected inputs into 'y'; add it to the argument spec}}
  meshad::gradient(early, "x[0:2]");   // expected-error {{meshad::gradient takes whole parameters}}
  meshad::gradient(early, "n");        // expected-error {{parameter 'n' has type int, which carries no derivative}}
  meshad::gradient(bumpedNorm, "a, v");
  return 0;
}
