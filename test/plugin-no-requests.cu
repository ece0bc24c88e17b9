// A .cu file without derivative requests compiles unchanged through the
// plugin, for both the device and the host side: it includes the meshad header
// and mentions meshad, so the nested planning parse runs and finds nothing.
//
// RUN: %clangxx -x cuda %cuda_flags -fplugin=%meshad_plugin -I%I -fsyntax-only -Wunused-variable -Xclang -verify %s
// RUN: %clangxx -x cuda %cuda_flags -fplugin=%meshad_plugin -I%I -c %s -o %t.o
// RUN: %clangxx -x cuda %cuda_flags -fplugin=%meshad_plugin -I%I -c --cuda-device-only %s -o %t.device.o
// RUN: %clangxx -x cuda %cuda_flags -fplugin=%meshad_plugin -I%I -c --cuda-host-only %s -o %t.host.o
//
// Both sides write the same (unchanged) text; help and dump print once.
// RUN: rm -rf %t.dir
// RUN: %clangxx -x cuda %cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump-dir=%t.dir -I%I -fsyntax-only %s
// RUN: diff %s %t.dir/plugin-no-requests.cu
// RUN: %clangxx -x cuda %cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-help -fplugin-arg-meshad-dump -I%I -fsyntax-only %s 2>&1 | grep -c "^usage:" | FileCheck %s --check-prefix=ONCE
// ONCE: {{^1$}}
//
// The result runs correctly (host side; the kernel too where there is a GPU).
// RUN: %clangxx -x cuda %cuda_flags -fplugin=%meshad_plugin -I%I %s -o %t %cuda_link
// RUN: %t | FileCheck %s --check-prefix=OUT
// OUT-NOT: FAIL
// OUT: host 6
// REQUIRES: cuda
#include <meshad/Differentiator.h>
#include <cstdio>

__host__ __device__ double cube(double x) {
  int unused = 0; // expected-warning {{unused variable 'unused'}}
  return x * x * x;
}

__global__ void cubeAll(double *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    a[i] = cube(a[i]);
}

int main() {
  double v = cube(2.0) - 2.0;
  std::printf("host %g\n", v);
  double *d = nullptr;
  if (cudaMalloc(&d, 4 * sizeof(double)) != cudaSuccess)
    return 0; // No GPU here.
  double h[4] = {1, 2, 3, 4};
  cudaMemcpy(d, h, sizeof(h), cudaMemcpyHostToDevice);
  cubeAll<<<1, 4>>>(d, 4);
  cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost);
  cudaFree(d);
  for (int i = 0; i < 4; ++i)
    if (h[i] != (i + 1.0) * (i + 1.0) * (i + 1.0))
      std::printf("FAIL kernel %d\n", i);
  return 0;
}
