// meshad::WithValue where the gradient cannot leave the primal's results is
// an error at the construct, never a wrong value: a store that the reverse
// sweep restores (an in-place update of a kernel's array, each store of a
// host function's output that overwrites a value the derivative reads), a callee whose writes
// to the caller's memory are rolled back after its pullback, a host
// function that launches a kernel whose gradient kernel writes the caller's
// device memory again; meshad::KeepSeeds in the combination
// still applies to kernels only.
//
// RUN: %clangxx %cpu_cuda_flags -fsyntax-only -fplugin=%meshad_plugin %s -Xclang -verify
#include <meshad/Differentiator.h>

__global__ void inPlace(int n, double *v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    v[i] = v[i] * v[i]; // expected-error {{meshad::WithValue: the reverse sweep restores 'v[i]' (the store overwrites a value that the derivative reads), so 'v' would hold its initial contents afterwards, not the primal's result; compute the value in a local and store it once, or request the gradient without meshad::WithValue}}
}

double overwrite(double x, double *y) {
  y[0] = x * x; // expected-error {{meshad::WithValue: the reverse sweep restores 'y[0]'}}
  y[0] = sin(y[0]); // expected-error {{meshad::WithValue: the reverse sweep restores 'y[0]'}}
  return y[0];
}

__device__ void scale(double *p, double s) { p[0] = p[0] * s; }

__device__ double viaCallee(double *p, double s) {
  scale(p, s); // expected-error {{meshad::WithValue: the call of 'scale' overwrites memory of 'p' that the derivative reads, which the reverse sweep restores after the call's pullback, so 'p' would hold its initial contents afterwards; request the gradient without meshad::WithValue}}
  return p[0] * p[0];
}

__global__ void square(int n, double *x) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] = x[i] * x[i];
}

void launches(double *x, int n) {
  MESHAD_LAUNCH(square, dim3(1), dim3(32))(n, x); // expected-error {{meshad::WithValue: the gradient kernel 'square_grad' writes 'x' again, memory the caller sees, so it would not keep the primal's result; request the gradient without meshad::WithValue and run the primal for the value}}
}

double hostSquare(double x) { return x * x; }

void requests() {
  meshad::gradient(inPlace, "v", meshad::WithValue);
  meshad::gradient(overwrite, "x, y", meshad::WithValue);
  meshad::gradient(viaCallee, "p, s", meshad::WithValue);
  meshad::gradient(launches, "x", meshad::WithValue);
  meshad::gradient(hostSquare, "x", meshad::WithValue | meshad::KeepSeeds); // expected-error {{meshad::KeepSeeds applies to kernels}}
}
