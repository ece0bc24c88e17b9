// meshad-gen passes a file without requests through unchanged (to stdout or
// to -o), for CUDA and C++ inputs, and reports bad command lines and files it
// cannot parse.
//
// RUN: %meshad_gen %s -- -I%I | diff %s -
// RUN: %meshad_gen %s -o %t.cu -- -I%I -std=c++17
// RUN: diff %s %t.cu
// RUN: %meshad_gen %s --line-directives -o %t.lines.cu -- -I%I
// RUN: diff %s %t.lines.cu
// RUN: cp %s %t.cpp
// RUN: %meshad_gen %t.cpp -o %t.out.cpp -- -I%I -DNOT_CUDA
// RUN: diff %s %t.out.cpp
//
// RUN: not %meshad_gen 2>&1 | FileCheck %s --check-prefix=NO-INPUT
// NO-INPUT: meshad-gen: error: no input file
// NO-INPUT: usage: meshad-gen <input>
// RUN: not %meshad_gen %s --bogus 2>&1 | FileCheck %s --check-prefix=BAD-ARG
// BAD-ARG: meshad-gen: error: unexpected argument '--bogus'
// RUN: not %meshad_gen %s -o %t.none.cu -- -DMISSING_INCLUDE -I%I 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: meshad-gen: error: could not parse '{{.*}}meshad-gen-passthrough.cu' (see why with --show-clang-diagnostics)
// RUN: not %meshad_gen %s --show-clang-diagnostics -- -DMISSING_INCLUDE -I%I 2>&1 | FileCheck %s --check-prefix=SHOW
// SHOW: fatal error: 'no-such-header.h' file not found
// RUN: not test -e %t.none.cu
#include <meshad/Differentiator.h>
#ifdef MISSING_INCLUDE
#include "no-such-header.h"
#endif

#ifdef NOT_CUDA
#define __host__
#define __device__
#endif

__host__ __device__ float halve(float x) { return 0.5f * x; }

int main() { return halve(4.0f) == 2.0f ? 0 : 1; }
