// The spherical-map demo (demos/spherical-map) on CGAL's cow (genus 0,
// 5.8k triangles), 15 Newton steps, on the CPU emulation: the initial map
// (Tutte's embedding of the mesh less a vertex, stereographic projection),
// Riemannian Newton (runtime/solve; the triangles' Hessians on the tangent
// planes and the per-vertex multiplier term of SphereMultiplier.h) on MIPS +
// an area term + an orientation barrier on the sphere + a radius gauge, its
// line search bounded by InjectiveStepSphere; the local gradients and
// Hessians (meshad::gradient,
// MESHAD_HESSIAN) of random triangles (also of the energy of corners on
// the sphere, sphereTriangleOn) and vertices and the assembled
// gradient against central differences (where the stencil stays far from
// the barrier), the unprojected Riemannian Hessian against meshad's exact
// y-Hessian (u^T H v), the energy decreasing, no flipped triangle on the
// sphere, a PNG that reads back.
//
// REQUIRES: meshes
// RUN: %clangxx %cpu_cuda_flags -O2 -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%test_inputs %S/../../demos/spherical-map/spherical-map.cu -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t %mesh_dir/cow.off %t.png 15 | FileCheck %s --check-prefix=NUM
// RUN: python3 %test_inputs/png_check.py %t.png | FileCheck %s --check-prefix=PNG
// CHECK-LABEL: __host__ __device__ void sphereTriangle_hessian_0(const double *y, const double *p, double *H) {
// CHECK: Hessian pattern: 9 x 9, 45 unique values
// CHECK-LABEL: __host__ __device__ void sphereTriangle_hessian_0_packed(const double *y, const double *p, double *vals) {
// CHECK-LABEL: __host__ __device__ void sphereTriangleOn_hessian_0(const double *q, const double *p, double *H) {
// CHECK-LABEL: __host__ __device__ void sphereTriangleOn_hessian_0_packed(const double *q, const double *p, double *vals) {
// CHECK-LABEL: __host__ __device__ void radiusGauge_hessian_0(const double *y, double k, double *H) {
// CHECK-LABEL: __host__ __device__ void radiusGauge_hessian_0_packed(const double *y, double k, double *vals) {
// CHECK-LABEL: __host__ __device__ void sphereTriangle_grad_0(const double *y, const double *p, double *_d_y) {
// CHECK-LABEL: __host__ __device__ void sphereTriangleOn_grad_0(const double *q, const double *p, double *_d_q) {
// CHECK-LABEL: __host__ __device__ void radiusGauge_grad_0(const double *y, double k, double *_d_y) {
// NUM-NOT: FAIL
// NUM: spherical-map: stop: max iterations after 15 Newton iterations
// NUM: derivative checks: {{[1-9][0-9]*}} of 8712 DOFs far enough from the barrier
// NUM: PASS Riemannian Hessian v^T H u, pair 0
// NUM: PASS Riemannian Hessian v^T H u, pair 2
// NUM: smallest orientation on the sphere {{[0-9.]+}}e-{{(0[0-9]|1[0-3])$}}
// NUM: 0 flipped on the sphere
// NUM: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
// NUM: spherical-map: OK
// PNG: PNG OK {{.*}} 1096x360
