// Forward mode of the nonlinear Thrust recipes (issue 15): the TangentHelper
// column of Rules/ThrustRecipes.def. reduce with thrust::maximum/minimum and
// a constant init (the tangent of the first element equal to the result,
// zero when the init wins), transform_reduce with square (sum of 2 x dx plus
// the init's tangent; the init's alone when x carries none), transform with
// square, in place too (the helper runs before the call overwrites its
// input), and the binary transform with multiplies. Checked against central differences along a direction and in
// the init.
//
// REQUIRES: thrust
// RUN: %clangxx %cpu_thrust_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/reduce.h>
#include <thrust/transform.h>
#include <thrust/transform_reduce.h>

#include "ThrustCheck.h"
#include <meshad/Differentiator.h>

/// y, z: work buffers of n elements.
double nonlinear(const double *x, double *y, double *z, int n, double c) {
  double hi = thrust::reduce(thrust::device, x, x + n, -1e300,
                             thrust::maximum<double>());
  double lo = thrust::reduce(thrust::device, x, x + n, 1e300,
                             thrust::minimum<double>());
  double capped = thrust::reduce(thrust::device, x, x + n, 5.0,
                                 thrust::maximum<double>());
  double q = thrust::transform_reduce(thrust::device, x, x + n,
                                      thrust::square<double>(), c,
                                      thrust::plus<double>());
  thrust::transform(thrust::device, x, x + n, y, thrust::square<double>());
  thrust::transform(thrust::device, y, y + n, y, thrust::square<double>());
  thrust::transform(thrust::device, x, x + n, y, z,
                    thrust::multiplies<double>());
  double t = thrust::reduce(thrust::device, z, z + n, 0.0);
  return hi * hi + 3 * lo + capped + q * q + t;
}
// CHECK-LABEL: double nonlinear_darg0(const double *x, double *y, double *z, int n, double c, const double *_d_x, double *_d_y, double *_d_z) {
// CHECK: double _d_hi = meshad::thrust_ad::extremumReduceTangent(n, x, _d_x, -1e300, thrust::maximum<double>());
// CHECK: double _d_lo = meshad::thrust_ad::extremumReduceTangent(n, x, _d_x, 1e300, thrust::minimum<double>());
// CHECK: double _d_q = meshad::thrust_ad::transformReduceTangent(n, x, _d_x, thrust::square<double>(), 0., thrust::plus<double>());
// CHECK: meshad::thrust_ad::transformTangent(n, x, _d_x, _d_y, thrust::square<double>());
// CHECK-NEXT: thrust::transform(thrust::device, x, x + n, y, thrust::square<double>());
// CHECK-NEXT: meshad::thrust_ad::transformTangent(n, y, _d_y, _d_y, thrust::square<double>());
// CHECK-NEXT: thrust::transform(thrust::device, y, y + n, y, thrust::square<double>());
// CHECK-NEXT: meshad::thrust_ad::transformTangent(n, x, _d_x, y, _d_y, _d_z, thrust::multiplies<double>());
// CHECK-NEXT: thrust::transform(thrust::device, x, x + n, y, z, thrust::multiplies<double>());
// CHECK-LABEL: double nonlinear_darg4(const double *x, double *y, double *z, int n, double c) {
// CHECK-NOT: thrust_ad
// CHECK: return 2. * q;

namespace mt = meshad::test;

int main() {
  const int N = 17;
  mt::RandomInputs Rng;
  double *X = mt::managed<double>(N), *V = mt::managed<double>(N);
  double *Y = mt::managed<double>(N), *Z = mt::managed<double>(N);
  double *DY = mt::managed<double>(N), *DZ = mt::managed<double>(N);
  auto DX = meshad::differentiate(nonlinear, "x");
  auto DC = meshad::differentiate(nonlinear, "c");
  for (int Trial = 0; Trial < 2; ++Trial) {
    Rng.fill(X, N, -2.0, 2.0);
    Rng.fill(V, N, -1.0, 1.0);
    if (Trial == 1)
      X[7] = 6.0; // Above the init 5: capped follows x[7].
    double C = Rng.uniform(-1.0, 1.0);
    double Got = DX.execute(X, Y, Z, N, C, V, DY, DZ);
    double Ref = mt::directionalDifference(
        [&](const double *P) { return nonlinear(P, Y, Z, N, C); }, X, V, N);
    MESHAD_CHECK_CLOSE("dE/dx . v", Got, Ref);
    Got = DC.execute(X, Y, Z, N, C);
    Ref = mt::centralDifference(
        [&](double Cv) { return nonlinear(X, Y, Z, N, Cv); }, C);
    MESHAD_CHECK_CLOSE("dE/dc", Got, Ref);
  }
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 4 passed, 0 failed
