// meshad's diagnostics from the nested planning parse are real clang
// diagnostics of the compilation: at the user's location, seen by -verify on
// both CUDA sides, and errors fail the compilation. With errors nothing is
// generated (the calls stay incomplete, so the header's static_assert fires)
// and dump-dir gets the file unchanged.
//
// RUN: %clangxx -x cuda %cuda_flags -fplugin=%meshad_plugin -I%I -fsyntax-only -Xclang -verify %s
// RUN: %clangxx -x c++ -std=c++17 -DNOT_CUDA -fplugin=%meshad_plugin -I%I -fsyntax-only -Xclang -verify %s
// RUN: rm -rf %t.dir
// RUN: not %clangxx -x cuda %cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump-dir=%t.dir -I%I -c %s -o %t.o 2>&1 | FileCheck %s
// CHECK: plugin-diagnostics.cu:[[#@LINE+17]]:13: error: 'f' has no parameter named 'z'
// RUN: diff %s %t.dir/plugin-diagnostics.cu
// RUN: not test -e %t.o
#include <meshad/Differentiator.h>
#ifdef NOT_CUDA
#define __host__
#define __device__
#endif

__host__ __device__ double f(double x, double y) { return x * x * y; }

// The static_assert fires once: both calls instantiate the same template.
// expected-error@meshad/Differentiator.h:* {{needs the meshad plugin}}

int main() {
  // expected-error@+2 {{'f' has no parameter named 'z'}}
  // expected-note@+1 {{in instantiation of function template specialization}}
  auto df = meshad::differentiate(f, "z");
  // expected-error@+1 {{invalid argument spec "x[": }}
  auto dg = meshad::differentiate(f, "x[");
  return 0;
}
