// meshad-gen writes a plain .cu with the requested derivatives that nvcc
// compiles (-c and a full build); the derivative computed by the nvcc build
// matches central finite differences. The output has no #line directives by
// default.
//
// RUN: %meshad_gen %s -o %t.cu -- -I%I -I%test_inputs
// RUN: FileCheck %s < %t.cu
// RUN: %nvcc -c %t.cu -I%I -I%test_inputs -o %t.o
// RUN: %nvcc %t.cu -I%I -I%test_inputs -o %t
// RUN: %t | FileCheck %s --check-prefix=NUM
// REQUIRES: cuda
#include "NumericCheck.h"
#include <meshad/Differentiator.h>

__host__ __device__ double bond(double r, double k) {
  double d = r - 1.5;
  return k * d * d * exp(-r);
}
// The output contains these lines too: anchor the patterns at line starts.
// CHECK-NOT: {{^}}#line
// CHECK-LABEL: {{^}}__host__ __device__ double bond_darg0(double r, double k) {
// CHECK: {{^}}  auto dr = meshad::differentiate(bond, "r", {{[:a-zA-Z_0-9]+}});
// CHECK-NOT: {{^}}#line

__global__ void energies(const double *r, double *e, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    e[i] = bond(r[i], 2.0);
}

int main() {
  meshad::test::RandomInputs Rng;
  auto dr = meshad::differentiate(bond, "r");
  for (int I = 0; I < 20; ++I) {
    double R = Rng.uniform(0.5, 3), K = Rng.uniform(0.5, 2);
    MESHAD_CHECK_CLOSE("d bond/dr", dr.execute(R, K),
        meshad::test::centralDifference([&](double V) { return bond(V, K); }, R));
  }
  return meshad::test::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 20 passed, 0 failed
