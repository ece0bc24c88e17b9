// The Black-Scholes demo (demos/black-scholes): call/put Greeks (delta, vega,
// rho, theta) of a batch of options from the reverse-mode gradient of the
// pricing kernel, against the closed-form Greeks; on the CPU emulation.
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%test_inputs %S/../../demos/black-scholes/black-scholes.cu -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
// CHECK-LABEL: __global__ void blackScholes_grad_1_3_4_5_6_7(int n, const double *S, const double *K, const double *sigma, const double *r, const double *T, double *call, double *put, double *_d_S, double *_d_sigma, double *_d_r, double *_d_T, double *_d_call, double *_d_put) {
// CHECK: normCdf_pullback
// NUM-NOT: FAIL
// NUM: numeric checks: 256 passed, 0 failed
// NUM: black-scholes: OK
