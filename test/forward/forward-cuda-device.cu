// Forward mode of CUDA __host__ __device__ and __device__ functions in a .cu
// file compiled by clang for both sides: the derivative keeps the CUDA
// qualifiers, float3 members carry tangents, and the host side runs it.
//
// RUN: %clangxx -x cuda %cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%I -I%test_inputs %s -o %t %cuda_link 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
// REQUIRES: cuda
#include "NumericCheck.h"
#include <meshad/Differentiator.h>

__host__ __device__ double springEnergy(double3 p, double3 q, double k) {
  double dx = p.x - q.x, dy = p.y - q.y, dz = p.z - q.z;
  double len = sqrt(dx * dx + dy * dy + dz * dz);
  return 0.5 * k * (len - 1.0) * (len - 1.0);
}
// CHECK-LABEL: __host__ __device__ double springEnergy_darg2(double3 p, double3 q, double k) {
// CHECK-LABEL: __host__ __device__ double springEnergy_darg0(double3 p, double3 q, double k, double3 _d_p) {
// CHECK: _d_p.x

int main() {
  meshad::test::RandomInputs Rng;
  auto dk = meshad::differentiate(springEnergy, "k");
  auto dp = meshad::differentiate(springEnergy, "p");
  for (int I = 0; I < 10; ++I) {
    double3 P = make_double3(Rng.uniform(-1, 1), Rng.uniform(-1, 1), Rng.uniform(-1, 1));
    double3 Q = make_double3(Rng.uniform(2, 3), Rng.uniform(-1, 1), Rng.uniform(-1, 1));
    double K = Rng.uniform(0.5, 2);
    MESHAD_CHECK_CLOSE("d spring/dk", dk.execute(P, Q, K),
        meshad::test::centralDifference([&](double V) { return springEnergy(P, Q, V); }, K));
    double3 Dir = make_double3(Rng.uniform(-1, 1), Rng.uniform(-1, 1), Rng.uniform(-1, 1));
    double Ref = 0;
    Ref += Dir.x * meshad::test::centralDifference([&](double V) { double3 T = P; T.x = V; return springEnergy(T, Q, K); }, P.x);
    Ref += Dir.y * meshad::test::centralDifference([&](double V) { double3 T = P; T.y = V; return springEnergy(T, Q, K); }, P.y);
    Ref += Dir.z * meshad::test::centralDifference([&](double V) { double3 T = P; T.z = V; return springEnergy(T, Q, K); }, P.z);
    MESHAD_CHECK_CLOSE("spring jvp", dp.execute(P, Q, K, Dir), Ref);
  }
  return meshad::test::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 20 passed, 0 failed
