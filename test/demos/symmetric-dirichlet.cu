// The symmetric Dirichlet demo (demos/symmetric-dirichlet): gradient of a
// per-triangle parameterization energy summed with atomicAdd w.r.t. the uv
// coordinates against central differences; on the CPU emulation.
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%test_inputs %S/../../demos/symmetric-dirichlet/symmetric-dirichlet.cu -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
// The cost model's choice for these triangles: the gather, confirmed at
// run time from the numbering (else the two-phase copy, _slots).
// CHECK-LABEL: __global__ void symmetricDirichlet_grad_4_5(int nTris, const int *tris, const double *restInv, const double *area, const double *uv, double *E, double *_d_uv, double *_d_E, const int *_offsets, const int *_incident, int _nv) {
// CHECK-NOT: atomicAdd(&_d_uv
// CHECK: symmetricDirichlet_element_grad(
// CHECK-LABEL: __global__ void symmetricDirichlet_grad_4_5_slots(int nTris, const int *tris, const double *restInv, const double *area, const double *uv, double *E, double *_d_uv, double *_d_E, double *_slots) {
// CHECK-NOT: atomicAdd(&_d_uv
// CHECK: meshad::slotStore<3, 2>(_slots, nTris, t, 3 * t + 2, 1, _r3);
// NUM-NOT: FAIL
// NUM: numeric checks: 40 passed, 0 failed
// NUM: symmetric-dirichlet: OK
