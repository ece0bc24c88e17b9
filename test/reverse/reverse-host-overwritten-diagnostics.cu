// A launch whose gradient kernel reads a buffer that the launch (or a later
// operation) overwrites needs the buffer restored from a copy taken before
// the launch (reverse-host-overwritten-buffers.cu); the copy needs the
// buffer's size, known only for buffers the function allocates itself. A
// parameter, or a pointer that may alias one, is an error at the launch,
// never a gradient computed from the overwritten values.
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
    z[i] = y[i];
}

void inPlace(double *y, int n) {
  MESHAD_LAUNCH(damp, dim3(1), dim3(32))(n, y); // expected-error {{the gradient of this launch of 'damp' reads 'y' as it was before the launch, but the launch or a later operation overwrites it; meshad restores it from a device copy, which needs its size: allocate 'y' with cudaMalloc in 'inPlace' (not a parameter or an alias of one), or write the kernel's result to a separate buffer}}
}

void viaAlias(double *y, double *z, int n, bool Swap) {
  double *a = Swap ? z : y;
  MESHAD_LAUNCH(damp, dim3(1), dim3(32))(n, a); // expected-error {{the gradient of this launch of 'damp' reads 'a' as it was before the launch}}
}

/// Nothing overwrites y after it is read: no copy, no error.
void readOnly(const double *y, double *z, int n) {
  MESHAD_LAUNCH(copyOut, dim3(1), dim3(32))(n, y, z);
}

void requests() {
  meshad::gradient(inPlace, "y");
  meshad::gradient(viaAlias, "y, z");
  meshad::gradient(readOnly, "y, z");
}
