// The parameterization demo (demos/parameterization) on a disk-shaped patch
// of 600 triangles of CGAL's lion head, on the CPU emulation: Tutte's
// embedding (uniform, then cotangent weights), Newton (runtime/solve) on the
// symmetric Dirichlet energy; the local gradient and Hessian
// (meshad::gradient, MESHAD_HESSIAN) of random triangles and the global
// gradient against central differences, the energy decreasing, no flipped
// triangle, a PNG that reads back.
//
// REQUIRES: meshes
// RUN: %clangxx %cpu_cuda_flags -O2 -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%test_inputs %S/../../demos/parameterization/parameterization.cu -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t %mesh_dir/lion-head.off 600 %t.png | FileCheck %s --check-prefix=NUM
// RUN: python3 %test_inputs/png_check.py %t.png | FileCheck %s --check-prefix=PNG
// RUN: %t %mesh_dir/lion-head.off 600 %t.cot.png cotangent | FileCheck %s --check-prefixes=COT,NUM
// CHECK-LABEL: __host__ __device__ void symmetricDirichlet_hessian_0(const double *x, const double *p, double *H) {
// CHECK: Hessian pattern: 6 x 6, 21 unique values
// CHECK-LABEL: __host__ __device__ void symmetricDirichlet_hessian_0_packed(const double *x, const double *p, double *vals) {
// CHECK-LABEL: __host__ __device__ void symmetricDirichlet_grad_0(const double *x, const double *p, double *_d_x) {
// COT: Tutte's embedding, cotangent weights
// NUM-NOT: FAIL
// NUM: newton: stop: gradient tolerance
// NUM: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
// NUM: parameterization: OK
// PNG: PNG OK {{.*}} 1224x300
