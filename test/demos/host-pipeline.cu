// The host-pipeline demo (demos/host-pipeline): meshad::gradient of a host
// function doing cudaMalloc, cudaMemcpy, two kernel launches, cudaMemcpy
// back and cudaFree, against central differences; on the CPU emulation.
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%test_inputs %S/../../demos/host-pipeline/host-pipeline.cu -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
// CHECK-LABEL: void pipeline_grad(const double *xHost, int n, double *_d_xHost) {
// CHECK: cudaMalloc(&_d_x,
// CHECK: MESHAD_LAUNCH(warp,
// CHECK: MESHAD_LAUNCH(sumSquares,
// CHECK: MESHAD_LAUNCH(sumSquares_grad,
// CHECK: MESHAD_LAUNCH(warp_grad,
// CHECK: cudaFree(_d_x);
// NUM-NOT: FAIL
// NUM: numeric checks: 45 passed, 0 failed
// NUM: host-pipeline: OK
