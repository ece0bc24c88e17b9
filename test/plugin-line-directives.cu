// The plugin wraps the generated text in #line directives: warnings in user
// code after a generated insertion keep their original lines, on the device
// and the host side (-verify), in CUDA and in C++. Without the directives the
// same warnings move down. The dumped file is what meshad-gen writes with
// --line-directives, the same for both sides, and the derivative is right.
//
// RUN: %clangxx -x cuda %cuda_flags -fplugin=%meshad_plugin -I%I -I%test_inputs -fsyntax-only -Wunused-variable -Xclang -verify %s
// RUN: %clangxx -x c++ -std=c++17 -DNOT_CUDA -fplugin=%meshad_plugin -I%I -I%test_inputs -fsyntax-only -Wunused-variable -Xclang -verify %s
// RUN: %clangxx -x cuda %cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-no-line-directives -I%I -I%test_inputs -fsyntax-only -Wunused-variable %s 2>&1 | FileCheck %s --check-prefix=SHIFTED
// SHIFTED-NOT: plugin-line-directives.cu:42:
// SHIFTED: warning: unused variable 'unusedInG'
// SHIFTED-NOT: plugin-line-directives.cu:42:
//
// RUN: rm -rf %t.device %t.host
// RUN: %clangxx -x cuda %cuda_flags --cuda-device-only -fplugin=%meshad_plugin -fplugin-arg-meshad-dump-dir=%t.device -I%I -I%test_inputs -fsyntax-only %s
// RUN: %clangxx -x cuda %cuda_flags --cuda-host-only -fplugin=%meshad_plugin -fplugin-arg-meshad-dump-dir=%t.host -I%I -I%test_inputs -fsyntax-only %s
// RUN: diff %t.device/plugin-line-directives.cu %t.host/plugin-line-directives.cu
// RUN: %meshad_gen %s --line-directives -o %t.gen.cu -- -I%I -I%test_inputs
// RUN: diff %t.gen.cu %t.host/plugin-line-directives.cu
// RUN: FileCheck %s --check-prefix=DUMPED < %t.host/plugin-line-directives.cu
// The prototypes and handles map to the primal's line, the compiled
// definition's lines to the user's constructs, and the user's code resumes
// on its own line:
// DUMPED: {{^}}#line [[#PRIMAL:]] "{{.*}}plugin-line-directives.cu"
// DUMPED-NEXT: {{^}}__host__ __device__ double f_darg0(double x, double y);
// DUMPED: {{^}}#pragma GCC diagnostic ignored "-Wunused-parameter"
// DUMPED-NEXT: {{^}}#line [[#PRIMAL]] "{{.*}}plugin-line-directives.cu"
// DUMPED-NEXT: {{^}}__host__ __device__ double f_darg0(double x, double y) {
// DUMPED-NEXT: {{^}}#line [[#PRIMAL]] "{{.*}}plugin-line-directives.cu"
// DUMPED-NEXT: {{^}}  return 2. * x * y + cos(x);
// DUMPED: {{^}}#pragma GCC diagnostic pop
// DUMPED-NEXT: {{^}}#line [[#PRIMAL+1]] "{{.*}}plugin-line-directives.cu"
// DUMPED-NOT: meshad generated
//
// RUN: %clangxx -x cuda %cuda_flags -fplugin=%meshad_plugin -I%I -I%test_inputs %s -o %t %cuda_link
// RUN: %t | FileCheck %s --check-prefix=NUM
// NUM-NOT: FAIL
// NUM: numeric checks: 20 passed, 0 failed
// REQUIRES: cuda
#include "NumericCheck.h"
#include <meshad/Differentiator.h>
#ifdef NOT_CUDA
#include <cmath>
#define __host__
#define __device__
using std::sin;
#endif

__host__ __device__ double f(double x, double y) { return x * x * y + sin(x); }

__host__ __device__ double g(double x) {
  int unusedInG = 0; // expected-warning {{unused variable 'unusedInG'}}
  return x;
}

int main() {
  meshad::test::RandomInputs Rng;
  auto df = meshad::differentiate(f, "x");
  int unusedInMain; // expected-warning {{unused variable 'unusedInMain'}}
  for (int I = 0; I < 20; ++I) {
    double X = Rng.uniform(-2, 2), Y = Rng.uniform(-2, 2);
    MESHAD_CHECK_CLOSE("df/dx", df.execute(X, Y),
        meshad::test::centralDifference([&](double V) { return f(V, Y); }, X));
  }
  return meshad::test::summary();
}
