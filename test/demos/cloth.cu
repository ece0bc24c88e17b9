// The cloth demo (demos/cloth): mass-spring + dihedral bending + inertia and
// gravity on a 10 x 10 grid, implicit Euler steps solved by Newton
// (meshad/runtime/solve) with two pinned corners; the problem's gradient,
// global sparse Hessian and HVP against central differences on a 4 x 4
// cloth (--check); every Newton iteration decreases the energy; the OBJ and
// the PNG (rest and draped, read back by png_check.py); with the sparse
// Cholesky (--linear=cholesky) every step converges in a few iterations.
// On the CPU emulation; the GPU runs it on a large grid (README.md).
//
// RUN: %clangxx %cpu_cuda_flags -O1 -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%test_inputs %S/../../demos/cloth/cloth.cu -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t --n=10 --steps=8 --check --obj=%t.obj --png=%t.png | FileCheck %s --check-prefix=NUM
// RUN: FileCheck %s --check-prefix=OBJ < %t.obj
// RUN: python3 %test_inputs/png_check.py %t.png | FileCheck %s --check-prefix=PNG
// RUN: %t --n=10 --steps=8 --linear=cholesky | FileCheck %s --check-prefix=CHOL
// CHECK-LABEL: __host__ __device__ void spring_hessian_0(const double *x, const double *p, double *H) {
// CHECK-LABEL: __host__ __device__ void bending_hessian_0(const double *x, const double *p, double *H) {
// CHECK-LABEL: __host__ __device__ void inertia_hessian_0(const double *x, const double *p, double *H) {
// CHECK-LABEL: __host__ __device__ void spring_grad_0(const double *x, const double *p, double *_d_x) {
// CHECK-LABEL: __host__ __device__ void bending_grad_0(const double *x, const double *p, double *_d_x) {
// CHECK-LABEL: __host__ __device__ void inertia_grad_0(const double *x, const double *p, double *_d_x) {
// NUM-NOT: FAIL
// NUM: cloth: 10 x 10 vertices, 261 springs, 225 diamonds, 8 steps
// NUM: newton  it    0  E
// NUM: newton: stop: gradient tolerance
// NUM: step   0: E
// NUM: step   7: E
// NUM: numeric checks: {{[0-9]+}} passed, 0 failed
// NUM: cloth: OK
// CHOL-NOT: FAIL
// CHOL: cloth: 10 x 10 vertices, 261 springs, 225 diamonds, 8 steps of 0.01 s, stretch 18000 N/m, cholesky
// CHOL: cloth: 8 of 8 steps converged, {{[0-9.]+}} Newton iterations a step (at most {{[1-6]}}), {{.*}} (cholesky)
// CHOL: cloth: OK
// PNG: PNG OK {{.*}} 968x480
// OBJ: # meshad cloth demo: 10 x 10 vertices
// OBJ-COUNT-100: v
// OBJ-COUNT-162: f
