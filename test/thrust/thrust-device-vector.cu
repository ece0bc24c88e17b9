// thrust::device_vector in the caller (issue 15): the function to
// differentiate takes raw device pointers, and its caller keeps the data in
// device_vectors and passes thrust::raw_pointer_cast(v.data()) to the
// primal and to the derivatives (device_vector inside the function is an
// error that says so: thrust-diagnostics.cu). The gradient and a tangent
// are checked against central differences of the primal, whose inputs are
// copied into device_vectors for each evaluation.
//
// REQUIRES: thrust
// RUN: %clangxx %cpu_thrust_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/transform.h>
#include <thrust/transform_reduce.h>

#include "KernelCheck.h"
#include "ThrustCheck.h"
#include <meshad/Differentiator.h>
#include <vector>


struct Wave {
  double w;
  __host__ __device__ double operator()(double v) const { return sin(w * v); }
};

/// y = Wave(x), E = the sum of a y^2.
double energy(const double *x, double *y, int n, double a) {
  thrust::transform(thrust::device, x, x + n, y, Wave{1.5});
  auto term = [=] HD(double v) { return a * v * v; };
  return thrust::transform_reduce(thrust::device, y, y + n, term, 0.0,
                                  thrust::plus<double>());
}
// CHECK-LABEL: void energy_grad(const double *x, double *y, int n, double a, double *_d_x, double *_d_y, double *_d_a) {
// CHECK-LABEL: __host__ __device__ void Wave_call_pullback(Wave self, double v, double _d_y, double *_d_v) {
// CHECK-LABEL: inline void term_lambda_pullback(double a, double v, double _d_y, double *_d_a, double *_d_v) {
// CHECK-LABEL: double energy_darg0(const double *x, double *y, int n, double a, const double *_d_x, double *_d_y) {
// CHECK-LABEL: __host__ __device__ meshad::ValueAndPushforward<double, double> Wave_call_pushforward(Wave self, double v, double _d_v) {
// CHECK-LABEL: inline meshad::ValueAndPushforward<double, double> term_lambda_pushforward_1(double a, double v, double _d_v) {
// CHECK-LABEL: inline double term_lambda(double a, double v) {

namespace mt = meshad::test;
using Vec = thrust::device_vector<double>;

static double *raw(Vec &V) { return thrust::raw_pointer_cast(V.data()); }

int main() {
  const int N = 19;
  mt::RandomInputs Rng;
  std::vector<double> Xh(N), Vh(N);
  Rng.fill(Xh.data(), N, -1.0, 1.0);
  Rng.fill(Vh.data(), N, -1.0, 1.0);
  double A = Rng.uniform(0.5, 1.5);
  auto Primal = [&] {
    Vec X(Xh.begin(), Xh.end()), Y(N);
    return energy(raw(X), raw(Y), N, A);
  };
  std::vector<double> Ref = mt::fdGradient(Primal, Xh.data(), N);

  Vec X(Xh.begin(), Xh.end()), Y(N), DX(N, 0.0), DY(N, 0.0);
  double DA = 0;
  auto G = meshad::gradient(energy, "x, y, a");
  G.execute(raw(X), raw(Y), N, A, raw(DX), raw(DY), &DA);
  std::vector<double> Got(DX.begin(), DX.end());
  mt::checkArray("reverse: dE/dx through device_vector", Got.data(),
                 Ref.data(), N);
  MESHAD_CHECK_CLOSE("reverse: dE/da", DA, mt::centralDifference(
      [&](double H) {
        Vec X1(Xh.begin(), Xh.end()), Y1(N);
        return energy(raw(X1), raw(Y1), N, H);
      }, A));

  Vec V(Vh.begin(), Vh.end());
  auto F = meshad::differentiate(energy, "x");
  double Tangent = F.execute(raw(X), raw(Y), N, A, raw(V), raw(DY));
  double Expected = 0;
  for (int I = 0; I < N; ++I)
    Expected += Ref[I] * Vh[I];
  MESHAD_CHECK_CLOSE("forward: dE/dx . v through device_vector", Tangent,
                     Expected);
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 21 passed, 0 failed
