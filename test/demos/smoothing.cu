// The smoothing demo (demos/smoothing) on CGAL's cow (5.8k triangles) with
// noise along the normals, on the CPU emulation: Newton (runtime/solve) on an
// edge membrane term and a pseudo-Huber data term; the local gradients and
// Hessians (meshad::gradient, MESHAD_HESSIAN) of random edges and vertices
// and the assembled gradient against central differences, the energy
// decreasing, the result closer to the clean mesh, a PNG that reads back.
//
// REQUIRES: meshes
// RUN: %clangxx %cpu_cuda_flags -O2 -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%test_inputs %S/../../demos/smoothing/smoothing.cu -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t %mesh_dir/cow.off 0 %t.png | FileCheck %s --check-prefix=NUM
// RUN: python3 %test_inputs/png_check.py %t.png | FileCheck %s --check-prefix=PNG
// CHECK-LABEL: __host__ __device__ void membrane_hessian_0(const double *x, double w, double *H) {
// CHECK: Hessian pattern: 6 x 6, 1 unique values
// CHECK-LABEL: __host__ __device__ void membrane_hessian_0_packed(const double *x, double w, double *vals) {
// CHECK-LABEL: __host__ __device__ void dataTerm_hessian_0(const double *x, const double *p, double *H) {
// CHECK: Hessian pattern: 3 x 3, 6 unique values
// CHECK-LABEL: __host__ __device__ void dataTerm_hessian_0_packed(const double *x, const double *p, double *vals) {
// CHECK-LABEL: __host__ __device__ void membrane_grad_0(const double *x, double w, double *_d_x) {
// CHECK-LABEL: __host__ __device__ void dataTerm_grad_0(const double *x, const double *p, double *_d_x) {
// NUM-NOT: FAIL
// NUM: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
// NUM: smoothing: OK
// PNG: PNG OK {{.*}} 728x360
