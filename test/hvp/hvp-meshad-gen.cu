// meshad-gen writes meshad::hvp's generated code into a plain .cu that nvcc
// compiles; the Hessian-vector product of the nvcc build (run on the host)
// matches central differences of the gradient.
//
// RUN: %meshad_gen %s -o %t.cu -- -I%I -I%test_inputs
// RUN: FileCheck %s < %t.cu
// RUN: %nvcc %t.cu -I%I -I%test_inputs -o %t
// RUN: %t | FileCheck %s --check-prefix=NUM
// REQUIRES: cuda
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

__host__ __device__ double bond(double r, double k) {
  double d = r - 1.5;
  return k * d * d * exp(-r);
}
// CHECK-LABEL: {{^}}__host__ __device__ void bond_hvp(double r, double k, double _d2_r, double _d2_k, double *_d2_d_r, double *_d2_d_k) {

int main() {
  meshad::test::RandomInputs Rng;
  auto h = meshad::hvp(bond, "r, k");
  auto g = meshad::gradient(bond, "r, k");
  for (int I = 0; I < 4; ++I) {
    double R = Rng.uniform(0.5, 2.5), K = Rng.uniform(0.5, 2);
    double VR = Rng.uniform(-1, 1), VK = Rng.uniform(-1, 1);
    double HR = 0, HK = 0;
    h.execute(R, K, VR, VK, &HR, &HK);
    auto Grad = [&](double T, int J) {
      double GR = 0, GK = 0;
      g.execute(R + T * VR, K + T * VK, &GR, &GK);
      return J ? GK : GR;
    };
    MESHAD_CHECK_CLOSE("Hv_r", HR, meshad::test::centralDifference(
                                       [&](double T) { return Grad(T, 0); }, 0.0));
    MESHAD_CHECK_CLOSE("Hv_k", HK, meshad::test::centralDifference(
                                       [&](double T) { return Grad(T, 1); }, 0.0));
  }
  return meshad::test::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 8 passed, 0 failed
