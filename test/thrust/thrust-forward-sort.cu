// Forward mode of thrust::sort_by_key (the Tangent "record" of the recipe
// table): the recording helper sorts instead of the call, keeping the
// permutation in a local, and the tangents of the keys and the values are
// permuted by it (meshad::thrust_ad::permuteTangents). Checked against
// central differences along a direction and for a scalar that the values
// carry. Managed memory, so that the test reads the buffers on a GPU too.
//
// REQUIRES: thrust
// RUN: %clangxx %cpu_thrust_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include <thrust/copy.h>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/sort.h>
#include <thrust/transform.h>
#include <thrust/transform_reduce.h>

#include "ThrustCheck.h"
#include <meshad/Differentiator.h>

/// v = x * c sorted by the keys; E = sum w_i v_i^2 (w weighs positions).
double sortedEnergy(const double *x, const double *keysIn, const double *w,
                    double *keys, double *v, double *u, int n, double c) {
  thrust::copy(thrust::device, keysIn, keysIn + n, keys);
  thrust::copy(thrust::device, x, x + n, v);
  thrust::transform(thrust::device, v, v + n, v, thrust::negate<double>());
  thrust::sort_by_key(thrust::device, keys, keys + n, v);
  thrust::transform(thrust::device, v, v + n, w, u,
                    thrust::multiplies<double>());
  return c * thrust::transform_reduce(thrust::device, u, u + n,
                                      thrust::square<double>(), 0.0,
                                      thrust::plus<double>());
}
// CHECK-LABEL: double sortedEnergy_darg0(const double *x, const double *keysIn, const double *w, double *keys, double *v, double *u, int n, double c, const double *_d_x, double *_d_keys, double *_d_v, double *_d_u) {
// CHECK: meshad::thrust_ad::Saved<int> [[PERM:_t[0-9]+]];
// CHECK-NEXT: meshad::thrust_ad::sortByKeyRecording([[PERM]], keys, keys + n, v);
// CHECK-NEXT: meshad::thrust_ad::permuteTangents([[PERM]], _d_keys, _d_v);
// CHECK-NOT: thrust::sort_by_key
// CHECK-LABEL: double sortedEnergy_darg7(

namespace mt = meshad::test;

int main() {
  const int N = 23;
  mt::RandomInputs Rng;
  double *X = mt::managed<double>(N), *V = mt::managed<double>(N);
  double *Keys = mt::managed<double>(N), *KeysIn = mt::managed<double>(N);
  double *W = mt::managed<double>(N), *Vals = mt::managed<double>(N);
  double *U = mt::managed<double>(N);
  double *DKeys = mt::managed<double>(N), *DVals = mt::managed<double>(N);
  double *DU = mt::managed<double>(N);
  Rng.fill(X, N, -1.0, 1.0);
  Rng.fill(V, N, -1.0, 1.0);
  Rng.fill(KeysIn, N, -1.0, 1.0);
  for (int I = 0; I < N; ++I)
    W[I] = 1.0 + I; // Positions weigh differently: the order matters.
  double C = Rng.uniform(0.5, 1.5);

  auto DX = meshad::differentiate(sortedEnergy, "x");
  double Got = DX.execute(X, KeysIn, W, Keys, Vals, U, N, C, V, DKeys, DVals,
                          DU);
  double Ref = mt::directionalDifference(
      [&](const double *P) { return sortedEnergy(P, KeysIn, W, Keys, Vals, U, N, C); }, X, V, N);
  MESHAD_CHECK_CLOSE("dE/dx . v", Got, Ref);

  auto DC = meshad::differentiate(sortedEnergy, "c");
  Got = DC.execute(X, KeysIn, W, Keys, Vals, U, N, C);
  Ref = mt::centralDifference(
      [&](double Cv) {
        return sortedEnergy(X, KeysIn, W, Keys, Vals, U, N, Cv);
      },
      C);
  MESHAD_CHECK_CLOSE("dE/dc", Got, Ref);
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 2 passed, 0 failed
