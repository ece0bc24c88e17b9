// Forward mode of host code calling linear Thrust primitives on device
// buffers (thrust::device, raw pointers): the tangent of copy, the scans,
// transform with minus, gather, fill and reduce is the same call on the
// tangents; a sequence's tangent range is filled with its start's tangent;
// a copy of values without derivative zeroes the output's tangent. Checked
// against central differences, for a scalar (c) and along a direction
// (x). Managed memory, so that the test reads the buffers on a GPU too.
//
// REQUIRES: thrust
// RUN: %clangxx %cpu_thrust_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include <thrust/copy.h>
#include <thrust/execution_policy.h>
#include <thrust/fill.h>
#include <thrust/functional.h>
#include <thrust/gather.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sequence.h>
#include <thrust/transform.h>

#include "ThrustCheck.h"
#include <meshad/Differentiator.h>

/// y, z: work buffers of n elements; map: n indices into z.
double chain(const double *x, double *y, double *z, const int *map, int n,
             double c) {
  thrust::copy(thrust::device, x, x + n, y);
  thrust::inclusive_scan(thrust::device, y, y + n, y);
  thrust::exclusive_scan(thrust::device, y, y + n, z, c);
  thrust::transform(thrust::device, z, z + n, y, z, thrust::minus<double>());
  thrust::gather(thrust::device, map, map + n, z, y);
  thrust::sequence(thrust::device, z, z + 2, c);
  thrust::fill(thrust::device, y + 1, y + 3, c);
  double s = thrust::reduce(thrust::device, y, y + n, 0.0);
  return s * s + thrust::reduce(thrust::device, z, z + n, c);
}
// CHECK-LABEL: double chain_darg5(const double *x, double *y, double *z, const int *map, int n, double c, double *_d_y, double *_d_z) {
// CHECK: thrust::copy(thrust::device, x, x + n, y);
// CHECK-NEXT: thrust::fill(thrust::device, _d_y, _d_y + n, 0.);
// CHECK-NEXT: thrust::inclusive_scan(thrust::device, y, y + n, y);
// CHECK-NEXT: thrust::inclusive_scan(thrust::device, _d_y, _d_y + n, _d_y);
// CHECK-NEXT: thrust::exclusive_scan(thrust::device, y, y + n, z, c);
// CHECK-NEXT: thrust::exclusive_scan(thrust::device, _d_y, _d_y + n, _d_z, _d_c);
// CHECK: thrust::gather(thrust::device, map, map + n, _d_z, _d_y);
// CHECK-NEXT: thrust::sequence(thrust::device, z, z + 2, c);
// CHECK-NEXT: thrust::fill(thrust::device, _d_z, _d_z + 2, _d_c);
// CHECK: double _d__t0 = thrust::reduce(thrust::device, _d_z, _d_z + n, _d_c);
// CHECK-LABEL: double chain_darg0(const double *x, double *y, double *z, const int *map, int n, double c, const double *_d_x, double *_d_y, double *_d_z) {
// CHECK: thrust::copy(thrust::device, _d_x, _d_x + n, _d_y);
// CHECK: thrust::exclusive_scan(thrust::device, _d_y, _d_y + n, _d_z, 0.);
// CHECK: thrust::transform(thrust::device, _d_z, _d_z + n, _d_y, _d_z, thrust::minus<double>());

namespace mt = meshad::test;

int main() {
  const int N = 19;
  mt::RandomInputs Rng;
  double *X = mt::managed<double>(N), *V = mt::managed<double>(N);
  double *Y = mt::managed<double>(N), *Z = mt::managed<double>(N);
  double *DY = mt::managed<double>(N), *DZ = mt::managed<double>(N);
  int *Map = mt::managed<int>(N);
  Rng.fill(X, N, -1.0, 1.0);
  Rng.fill(V, N, -1.0, 1.0);
  for (int I = 0; I < N; ++I)
    Map[I] = (3 * I + 1) % N;
  double C = Rng.uniform(-1.0, 1.0);

  auto DC = meshad::differentiate(chain, "c");
  double Got = DC.execute(X, Y, Z, Map, N, C, DY, DZ);
  double Ref = mt::centralDifference(
      [&](double Cv) { return chain(X, Y, Z, Map, N, Cv); }, C);
  MESHAD_CHECK_CLOSE("dE/dc", Got, Ref);

  auto DX = meshad::differentiate(chain, "x");
  Got = DX.execute(X, Y, Z, Map, N, C, V, DY, DZ);
  Ref = mt::directionalDifference(
      [&](const double *P) { return chain(P, Y, Z, Map, N, C); }, X, V, N);
  MESHAD_CHECK_CLOSE("dE/dx . v", Got, Ref);
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 2 passed, 0 failed
