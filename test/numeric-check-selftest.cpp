// Self-test of test/Inputs/NumericCheck.h (no plugin): the finite
// differences reproduce known derivatives, and wrong values are reported.
//
// RUN: %clangxx -std=c++17 -O1 -I%test_inputs %s -o %t
// RUN: %t > %t.out
// RUN: FileCheck %s < %t.out
// RUN: env MESHAD_TEST_SEED=7 %t | FileCheck %s --check-prefix=SEED
//
// Also as CUDA host code, where a toolkit is present.
// RUN: %if cuda %{ %clangxx -x cuda %cuda_flags -I%test_inputs %s -o %t.cuda %cuda_link %}
// RUN: %if cuda %{ %t.cuda | FileCheck %s %}

// CHECK: meshad::test seed 20240611
// SEED: meshad::test seed 7
// CHECK-NOT: FAIL
// CHECK: PASS d/dx sin(x)exp(x)
// CHECK: PASS d/dx sqrt(x^2+1)
// CHECK: PASS d/dy x^3/y
// CHECK: PASS d/dx sin(1000x)
// CHECK: PASS d/dp[1] spring energy
// CHECK: PASS d/dp[1] float spring energy
// CHECK: PASS array restored
// CHECK: PASS wrong value rejected
// CHECK: PASS float value within float tolerance
// CHECK: PASS float tolerance stricter than 1e-4
// CHECK: PASS NaN rejected
// CHECK: PASS zero matches zero
// CHECK: PASS empty checker fails
// CHECK: numeric checks: {{[1-9][0-9]*}} passed, 0 failed

#include "NumericCheck.h"

#include <cmath>
#include <cstdio>
#include <limits>

namespace {

using meshad::test::centralDifference;
using meshad::test::centralDifferenceAt;

/// 0.5 k (|p - q| - L)^2 and its analytic derivative w.r.t. p[1].
template <class T> T springEnergy(const T *P, const T *Q, T K, T L) {
  T Dx = P[0] - Q[0], Dy = P[1] - Q[1], Dz = P[2] - Q[2];
  T Len = std::sqrt(Dx * Dx + Dy * Dy + Dz * Dz);
  return T(0.5) * K * (Len - L) * (Len - L);
}
double springEnergyDp1(const double *P, const double *Q, double K, double L) {
  double Dx = P[0] - Q[0], Dy = P[1] - Q[1], Dz = P[2] - Q[2];
  double Len = std::sqrt(Dx * Dx + Dy * Dy + Dz * Dz);
  return K * (Len - L) * Dy / Len;
}

void checkScalarFunctions(meshad::test::RandomInputs &Rng) {
  for (int I = 0; I < 5; ++I) {
    double X = Rng.uniform(-3, 3);
    MESHAD_CHECK_CLOSE(
        "d/dx sin(x)exp(x)",
        centralDifference([](double V) { return std::sin(V) * std::exp(V); },
                          X),
        (std::cos(X) + std::sin(X)) * std::exp(X));
    MESHAD_CHECK_CLOSE(
        "d/dx sqrt(x^2+1)",
        centralDifference([](double V) { return std::sqrt(V * V + 1); }, X),
        X / std::sqrt(X * X + 1));
    // Large input: the step scales with |y|.
    double Y = Rng.uniform(50, 500);
    MESHAD_CHECK_CLOSE(
        "d/dy x^3/y",
        centralDifference([&](double V) { return X * X * X / V; }, Y),
        -X * X * X / (Y * Y));
    // Rapidly varying: the first step (1e-3) is far too coarse here.
    MESHAD_CHECK_CLOSE(
        "d/dx sin(1000x)",
        centralDifference([](double V) { return std::sin(1000 * V); }, X),
        1000 * std::cos(1000 * X));
  }
}

void checkArrayElements(meshad::test::RandomInputs &Rng) {
  for (int I = 0; I < 5; ++I) {
    double P[3], Q[3];
    Rng.fill(P, 3, -1, 1);
    Rng.fill(Q, 3, -1, 1);
    double K = Rng.uniform(0.5, 2), L = Rng.uniform(0.1, 0.5);
    double P1 = P[1];
    double Fd = centralDifferenceAt(
        [&] { return springEnergy(P, Q, K, L); }, P, 1);
    MESHAD_CHECK_CLOSE("d/dp[1] spring energy", Fd,
                       springEnergyDp1(P, Q, K, L));
    MESHAD_CHECK_CLOSE_TOL("array restored", P[1], P1, 0.0);

    // A float result (here: the float instance's derivative, itself by
    // differences of the analytic float formula) against the double one.
    float Pf[3] = {float(P[0]), float(P[1]), float(P[2])};
    float Qf[3] = {float(Q[0]), float(Q[1]), float(Q[2])};
    double Pd[3] = {Pf[0], Pf[1], Pf[2]}, Qd[3] = {Qf[0], Qf[1], Qf[2]};
    float Kf = float(K), Lf = float(L);
    float Dx = Pf[0] - Qf[0], Dy = Pf[1] - Qf[1], Dz = Pf[2] - Qf[2];
    float Len = std::sqrt(Dx * Dx + Dy * Dy + Dz * Dz);
    float GotF = Kf * (Len - Lf) * Dy / Len;
    MESHAD_CHECK_CLOSE("d/dp[1] float spring energy", GotF,
                       springEnergyDp1(Pd, Qd, Kf, Lf));
  }
}

/// The checks themselves, on a private checker (its lines are printed too,
/// so the expected FAIL lines below are prefixed to stay apart).
void checkChecker() {
  meshad::test::Checker Private;
  std::printf("[private checker begin]\n");
  bool WrongAccepted = Private.close("  expected-fail: 1 vs 1+1e-5", 1.0,
                                     1.0 + 1e-5, 1e-6);
  MESHAD_CHECK_CLOSE_TOL("wrong value rejected", WrongAccepted ? 1 : 0, 0, 0);

  float NearF = 1.0f + 4 * std::numeric_limits<float>::epsilon();
  MESHAD_CHECK_CLOSE("float value within float tolerance", NearF, 1.0);
  MESHAD_CHECK_CLOSE_TOL("float tolerance stricter than 1e-4",
                         meshad::test::toleranceFor<float>() < 1e-4 ? 1 : 0,
                         1, 0);

  bool NanAccepted = Private.close("  expected-fail: NaN",
                                   std::numeric_limits<double>::quiet_NaN(),
                                   1.0, 1e-6);
  MESHAD_CHECK_CLOSE_TOL("NaN rejected", NanAccepted ? 1 : 0, 0, 0);
  MESHAD_CHECK_CLOSE_TOL("zero matches zero", 0.0, 0.0, 0.0);

  meshad::test::Checker Empty;
  MESHAD_CHECK_CLOSE_TOL("empty checker fails", Empty.summary(), 1, 0);
  std::printf("[private checker end]\n");
}

} // namespace

int main() {
  meshad::test::RandomInputs Rng;
  checkScalarFunctions(Rng);
  checkArrayElements(Rng);
  checkChecker();
  return meshad::test::summary();
}
