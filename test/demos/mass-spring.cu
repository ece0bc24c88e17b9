// The mass-spring demo (demos/mass-spring): gradient of a spring energy over
// the edges of a grid mesh, summed with atomicAdd, w.r.t. the vertex
// positions against central differences; on the CPU emulation.
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%test_inputs %S/../../demos/mass-spring/mass-spring.cu -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
// CHECK-LABEL: __global__ void springEnergy_grad_4_5(int nEdges, const int *edges, const double *rest, double k, const double *x, double *E, double *_d_x, double *_d_E, const int *_offsets, const int *_incident, int _nv) {
// CHECK: _d_E[0]
// NUM-NOT: FAIL
// NUM: numeric checks: 40 passed, 0 failed
// NUM: mass-spring: OK
