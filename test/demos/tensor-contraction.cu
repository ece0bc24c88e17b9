// The tensor-contraction demo (demos/tensor-contraction): the gradient of
// C[i][j] = sum_{k,l} A[i][k][l] B[k][l][j] w.r.t. A and B against the
// analytic gradient computed on the CPU; on the CPU emulation.
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%test_inputs %S/../../demos/tensor-contraction/tensor-contraction.cu -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
// CHECK-LABEL: __global__ void contract_grad(int ni, int nk, int nl, int nj, const double *A, const double *B, double *C, double *_d_A, double *_d_B, double *_d_C) {
// NUM-NOT: FAIL
// NUM: numeric checks: 132 passed, 0 failed
// NUM: tensor-contraction: OK
