// A launch whose gradient kernel reads a buffer that the launch (or a later
// operation) overwrites gets the buffer put back before the gradient kernel
// (reverse-host-overwritten-buffers.cu). Under meshad::WithValue, that
// buffer, or one the gradient kernel writes, must not be memory the caller
// sees (a parameter or a pointer that may alias one): the caller would get
// the earlier contents, not the primal's result. An error at the launch.
//
// RUN: %clangxx %cpu_cuda_flags -fsyntax-only -fplugin=%meshad_plugin %s -Xclang -verify
#include <meshad/Differentiator.h>

__global__ void damp(int n, double *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = y[i] * sin(y[i]);
}

__global__ void copyOut(int n, const double *y, double *z) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    z[i] = 2 * y[i];
}

__global__ void energy(int n, const double *y, double *E) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(E, y[i] * y[i]);
}

void inPlace(double *y, int n) {
  MESHAD_LAUNCH(damp, dim3(1), dim3(32))(n, y); // expected-error {{meshad::WithValue: the gradient kernel 'damp_grad' writes 'y' again, memory the caller sees, so it would not keep the primal's result; request the gradient without meshad::WithValue and run the primal for the value}}
}

/// z is read by energy's gradient and overwritten afterwards.
void reused(double *y, double *z, double *E, int n, bool Swap) {
  double *a = Swap ? z : y;
  MESHAD_LAUNCH(copyOut, dim3(1), dim3(32))(n, a, z);
  MESHAD_LAUNCH(energy, dim3(1), dim3(32))(n, z, E); // expected-error {{meshad::WithValue: the gradient of this launch of 'energy' reads 'z' as it was before the launch, so the reverse sweep puts back its earlier contents, memory the caller sees; request the gradient without meshad::WithValue, or let the kernel write a separate buffer}}
  MESHAD_LAUNCH(copyOut, dim3(1), dim3(32))(n, y, z);
}

/// Nothing overwrites y after it is read: no copy, no error.
double readOnly(const double *y, double *E, int n) {
  double *z;
  cudaMalloc(&z, n * sizeof(double));
  MESHAD_LAUNCH(copyOut, dim3(1), dim3(32))(n, y, z);
  MESHAD_LAUNCH(energy, dim3(1), dim3(32))(n, z, E);
  cudaFree(z);
  return 0;
}

void requests() {
  meshad::gradient(inPlace, "y", meshad::WithValue);
  meshad::gradient(reused, "y, z, E", meshad::WithValue);
  meshad::gradient(readOnly, "y, E", meshad::WithValue);
}
