// meshad-gen writes meshad::hessian's generated code into a plain .cu that
// nvcc compiles; the Hessian of the nvcc build (run on the host) matches
// central differences of the gradient.
//
// RUN: %meshad_gen %s -o %t.cu -- -I%I -I%test_inputs
// RUN: FileCheck %s < %t.cu
// RUN: %nvcc %t.cu -I%I -I%test_inputs -o %t
// RUN: %t | FileCheck %s --check-prefix=NUM
// REQUIRES: cuda
#include "HessianCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

__host__ __device__ double bond(const double *x, double k) {
  double d = x[0] - x[1];
  return k * d * d * exp(-x[2] * d);
}
// CHECK-LABEL: {{^}}__host__ __device__ void bond_hessian_0(const double *x, double k, double *H) {
// CHECK-NEXT: // Hessian pattern: 3 x 3, 3 unique values
// CHECK-NEXT: {{^  //    v0  -v0   v1$}}
// CHECK: {{^  }}H[1] = -H[0];

int main() {
  meshad::test::RandomInputs Rng;
  auto h = meshad::hessian(bond, "x[0:3]");
  auto g = meshad::gradient(bond, "x");
  for (int I = 0; I < 3; ++I) {
    double K = Rng.uniform(0.5, 2);
    std::vector<double> X(3);
    Rng.fill(X.data(), 3, -1, 1);
    meshad::test::checkHessian(
        "bond", X, 0, 3, [&](double *P, double *H) { h.execute(P, K, H); },
        [&](double *P, double *G) { g.execute(P, K, G); });
  }
  return meshad::test::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
