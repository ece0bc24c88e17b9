// Virtual member functions in kernels (issue 13): `__host__ __device__`
// virtual functions of a class whose bases are interfaces, called on a
// local object, a value parameter of a `__device__` helper and through a
// reference to a `final` class: the dynamic type is known, and meshad
// inlines the final overrider (host code: cxx/virtual-calls.cpp,
// cxx/virtual-bases.cpp). Forward and reverse mode on the CPU emulation
// against central differences.
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "ElementwiseKernelChecks.h"
#include <cmath>
#include <meshad/Differentiator.h>

struct Law {
  __host__ __device__ virtual double stress(double e) const { return e; }
  __host__ __device__ virtual double weight() const { return 1.0; }
};

struct Cubic final : Law {
  double c;
  __host__ __device__ double stress(double e) const override {
    return c * e * e * e + e;
  }
};

struct Soft : Law {
  __host__ __device__ double weight() const override { return 0.5; }
};

__device__ double energyOf(Cubic law, double e) { return law.stress(e) * e; }
__device__ double viaRef(const Cubic &law, double e) {
  return law.stress(e) * law.weight();
}

__global__ void strain(int n, const double *x, double *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  Cubic law;
  law.c = x[i] * 0.5;
  Soft soft;
  double e = x[(i + 1) % n] - x[i];
  y[i] = energyOf(law, e) + viaRef(law, x[i]) +
         soft.weight() * soft.stress(e * e);
}
// CHECK-LABEL: __global__ void strain_darg1(int n, const double *x, double *y, const double *_d_x, double *_d_y) {
// CHECK-NOT: stress(
// CHECK-LABEL: __global__ void strain_grad(int n, const double *x, double *y, double *_d_x, double *_d_y) {
// CHECK-NOT: stress(

int main() {
  meshad::test::RandomInputs Rng;
  checkKernel("strain", strain, meshad::differentiate(strain, "x"),
              meshad::gradient(strain, "x, y"), Rng);
  return meshad::test::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
