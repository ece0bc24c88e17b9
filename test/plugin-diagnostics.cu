// meshad's diagnostics from the nested planning parse are real clang
// diagnostics of the compilation: at the user's location, seen by -verify on
// both CUDA sides, and errors fail the compilation. With errors nothing is
// generated (what would follow from the incomplete calls is silenced) and
// dump-dir gets the file unchanged.
//
// RUN: %clangxx -x cuda %cuda_flags -fplugin=%meshad_plugin -I%I -fsyntax-only -Xclang -verify %s
// RUN: %clangxx -x c++ -std=c++17 -DNOT_CUDA -fplugin=%meshad_plugin -I%I -fsyntax-only -Xclang -verify %s
// RUN: rm -rf %t.dir
// RUN: not %clangxx -x cuda %cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump-dir=%t.dir -I%I -c %s -o %t.o 2>&1 | FileCheck %s
// CHECK-DAG: plugin-diagnostics.cu:[[#@LINE+18]]:13: error: 'f' has no parameter named 'z'
// CHECK-DAG: plugin-diagnostics.cu:[[#@LINE+19]]:13: error: invalid argument spec "x["
// CHECK-NOT: static assertion
// RUN: diff %s %t.dir/plugin-diagnostics.cu
// RUN: not test -e %t.o
#include <meshad/Differentiator.h>
#ifdef NOT_CUDA
#define __host__
#define __device__
#endif

__host__ __device__ double f(double x, double y) { return x * x * y; }

// After meshad's own errors the plugin silences what follows from them (the
// header's "needs the meshad plugin" fallback), so only the cause shows.

int main() {
  // expected-error@+1 {{'f' has no parameter named 'z'}}
  auto df = meshad::differentiate(f, "z");
  // expected-error@+1 {{invalid argument spec "x[": }}
  auto dg = meshad::differentiate(f, "x[");
  return 0;
}
