// Forward mode of a kernel staging its inputs in DYNAMIC shared memory: the
// tangent of the buffer would need dynamic shared memory of its own, which
// meshad does not provide yet, so the kernel is rejected with an error at
// the buffer's declaration in both spellings (before, the CPU emulation's
// spelling got a null tangent pointer, `double *_d_buf = {};`, and the
// derived kernel wrote through it). Reverse mode rejects the same kernel
// (reverse-diagnostics.cu).
//
// RUN: %clangxx %cpu_cuda_flags -fsyntax-only -fplugin=%meshad_plugin %s -Xclang -verify=cpu
// RUN: %if cuda %{ %clangxx -x cuda %cuda_flags --cuda-host-only -fsyntax-only -fplugin=%meshad_plugin -I%I %s -Xclang -verify=cuda %}
#include <meshad/Differentiator.h>
#include <meshad/cpu/Portable.h>

__global__ void ring(int n, const double *x, double *y) {
  MESHAD_DYNAMIC_SHARED(double, buf); // cpu-error {{cannot find the tangent memory of pointer 'buf': it is not derived from a differentiated parameter or local array (dynamic shared memory and pointers returned by calls are not supported in forward mode yet)}} cuda-error {{extern (dynamic) __shared__ memory is not supported yet}}
  int t = threadIdx.x, b = blockDim.x;
  int i = blockIdx.x * b + t;
  buf[t] = x[i];
  __syncthreads();
  y[i] = buf[t] * buf[(t + 1) % b] + sin(buf[(t + b - 1) % b]);
}

// The buffer is reached through another pointer: the error is at the
// buffer. A null pointer needs no tangent memory.
__global__ void reassigned(int n, const double *x, double *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  double *p = nullptr;
  p = y;
  MESHAD_DYNAMIC_SHARED(double, buf); // cpu-error {{cannot find the tangent memory of pointer 'buf'}} cuda-error {{extern (dynamic) __shared__ memory is not supported yet}}
  if (i == 0)
    p = buf;
  p[i] = x[i] * x[i];
}

__global__ void nullFirst(int n, const double *x, double *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  double *p = nullptr;
  if (i < n)
    p = y;
  if (p)
    p[i] = x[i] * x[i];
}

void requests() {
  meshad::differentiate(ring, "x");
  meshad::differentiate(reassigned, "x");
  meshad::differentiate(nullFirst, "x");
}
