// The 2D stencil demo (demos/stencil-2d): gradient of a five-point stencil
// tiled in __shared__ memory with halos and __syncthreads(), on partial
// blocks, against central differences; on the CPU emulation.
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%test_inputs %S/../../demos/stencil-2d/stencil-2d.cu -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
// CHECK-LABEL: __global__ void diffuse_grad_3_4(int nx, int ny, double dt, const double *u, double *v, double *_d_u, double *_d_v) {
// CHECK: __shared__
// CHECK: __syncthreads()
// NUM-NOT: FAIL
// NUM: numeric checks: 247 passed, 0 failed
// NUM: stencil-2d: OK
