// The injectivity-preserving step on the sphere (meshad/runtime/solve/
// Injectivity.h, InjectiveStepSphere): per triangle of 3D points, the
// first positive root of its orientation a . (b x c) along the step (a
// cubic in t), then a min-reduction. Checked: smallestPositiveCubicRoot
// against cubics of known roots (three, one, a double root, none, a
// falling and a rising tail); the step of random triangles near the unit
// sphere along random directions against the orientation sampled densely
// along the path (positive everywhere below the step, not positive just
// above it); a step that flips a triangle and unflips it again before
// t = 1 (which an end-point check of the energy cannot see) stopped at the
// first root; several triangles: the smallest of their steps. On the CPU
// emulation; also on a GPU (scripts/gpu/tests.txt).
//
// RUN: %clangxx %cpu_cuda_flags -I%test_inputs %s -o %t
// RUN: %t | FileCheck %s
#include "NumericCheck.h"
#include <meshad/runtime/solve/Injectivity.h>

#include <cmath>
#include <string>
#include <vector>

using namespace meshad::runtime::solve;
namespace mt = meshad::test;

/// The orientation of triangle (0, 1, 2) of X + S D.
static double orientationAt(const std::vector<double> &X,
                            const std::vector<double> &D, double S) {
  double Y[9];
  for (int I = 0; I < 9; ++I)
    Y[I] = X[I] + S * D[I];
  return Y[0] * (Y[4] * Y[8] - Y[5] * Y[7]) + Y[1] * (Y[5] * Y[6] - Y[3] * Y[8]) +
         Y[2] * (Y[3] * Y[7] - Y[4] * Y[6]);
}

/// -k (t - r1)(t - r2)(t - r3) and friends: the first positive root.
static void checkCubicRoots() {
  struct Case {
    const char *Name;
    double C3, C2, C1, C0, Root;
  };
  // -(t - 1)(t - 2)(t - 3) = -t^3 + 6 t^2 - 11 t + 6.
  // (t - 0.5)^2 (t + 1) = t^3 - 0.75 t + 0.25: touches 0 at 0.5.
  // t^3 + 1: no positive root. -t^3 + 8: 2. t^2 - 3t + 2.25 = (t - 1.5)^2.
  // 2 - t (linear): 2. -(t + 1)(t + 2)(t - 4): 4 after two negative roots.
  const Case Cases[] = {
      {"three roots", -1, 6, -11, 6, 1},
      {"double root", 1, 0, -0.75, 0.25, 0.5},
      {"no positive root", 1, 0, 0, 1, HUGE_VAL},
      {"falling tail", -1, 0, 0, 8, 2},
      {"quadratic double root", 0, 1, -3, 2.25, 1.5},
      {"linear", 0, 0, -1, 2, 2},
      {"roots below zero", -1, 1, 10, 8, 4},
  };
  for (const Case &C : Cases) {
    double R = smallestPositiveCubicRoot(C.C3, C.C2, C.C1, C.C0);
    std::printf("%s: %.17g\n", C.Name, R);
    if (std::isinf(C.Root))
      MESHAD_CHECK_CLOSE_TOL(C.Name, std::isinf(R), 1, 0);
    else
      MESHAD_CHECK_CLOSE_TOL(C.Name, R, C.Root, 1e-7);
    // Conservative: never past the root.
    MESHAD_CHECK_CLOSE_TOL(std::string(C.Name) + " not past the root",
                           R <= C.Root, 1, 0);
  }
  MESHAD_CHECK_CLOSE_TOL("already flipped: 0",
                         smallestPositiveCubicRoot(1.0, 0.0, 0.0, -1.0), 0, 0);
}

/// Random triangles near the unit sphere, random steps.
static void checkRandomSteps(mt::RandomInputs &Rng) {
  DeviceBuffer<int> DT;
  DT.upload(std::vector<int>{0, 1, 2});
  DeviceBuffer<double> DX(9), DD(9);
  InjectiveStepSphere<double> Step(DT.data(), 1);
  int Finite = 0, Checked = 0;
  while (Checked < 40) {
    std::vector<double> X(9), D(9);
    // A small triangle around a random point of the sphere, then a step of
    // the triangle's size or larger.
    double C[3], N = 0;
    Rng.fill(C, 3, -1.0, 1.0);
    for (double V : C)
      N += V * V;
    double Size = Rng.uniform(0.05, 0.5);
    for (int I = 0; I < 9; ++I)
      X[I] = C[I % 3] / std::sqrt(N) + Size * Rng.uniform(-1, 1);
    Rng.fill(D.data(), 9, -Size, Size);
    double D0 = orientationAt(X, D, 0);
    if (D0 <= 1e-6)
      continue; // flipped or nearly degenerate at the start: another one
    ++Checked;
    DX.upload(X.data());
    DD.upload(D.data());
    double T = Step(DX.data(), DD.data());
    bool Ok = true;
    double Until = std::isinf(T) ? 100.0 : T;
    for (int K = 0; K < 2000; ++K) // the whole path below the step
      Ok &= orientationAt(X, D, Until * K / 2000.0) > 0;
    if (!std::isinf(T)) {
      ++Finite;
      Ok &= orientationAt(X, D, T * (1 + 1e-6)) <= 0 ||
            std::fabs(orientationAt(X, D, T)) <= 1e-12 * D0;
    }
    MESHAD_CHECK_CLOSE_TOL("sphere step " + std::to_string(Checked), Ok, 1, 0);
  }
  std::printf("sphere step: %d of 40 random steps flip their triangle\n",
              Finite);
}

/// A step that flips a triangle and unflips it before t = 1: the end point
/// is valid, the path is not; the step stops at the first root. With a
/// second, unflipped triangle: the smaller step is the answer.
static void checkFlipAndBack() {
  // a = e_x, b(t) = (0, 1 - 1.6 t, 0), c(t) = (0, 0, 0.5 - t): the
  // orientation a . (b x c) = (1 - 1.6 t)(0.5 - t) is negative between its
  // roots 0.5 and 0.625 and positive again after them.
  std::vector<double> X = {1, 0, 0, 0, 1, 0, 0, 0, 0.5};
  std::vector<double> D = {0, 0, 0, 0, -1.6, 0, 0, 0, -1};
  MESHAD_CHECK_CLOSE_TOL("flip and back: valid at t = 1",
                         orientationAt(X, D, 1.0) > 0, 1, 0);
  MESHAD_CHECK_CLOSE_TOL("flip and back: flipped at t = 0.55",
                         orientationAt(X, D, 0.55) < 0, 1, 0);
  std::vector<double> Two = X;
  Two.insert(Two.end(), {1, 0, 0, 0, 1, 0, 0, 0, 1});
  std::vector<double> TwoD = D;
  TwoD.insert(TwoD.end(), {0, 0, 0, 0, 0, 0, 0, 0, -0.8}); // root 1.25
  DeviceBuffer<int> DT;
  DT.upload(std::vector<int>{3, 4, 5, 0, 1, 2});
  DeviceBuffer<double> DX, DD;
  DX.upload(Two);
  DD.upload(TwoD);
  double T = InjectiveStepSphere<double>(DT.data(), 2)(DX.data(), DD.data());
  std::printf("flip and back: step %.17g\n", T);
  MESHAD_CHECK_CLOSE_TOL("flip and back: the first root", T, 0.5, 1e-12);
}

int main() {
  mt::RandomInputs Rng;
  checkCubicRoots();
  checkRandomSteps(Rng);
  checkFlipAndBack();
  return mt::summary();
}
// CHECK-NOT: FAIL
// CHECK: sphere step: {{[1-9][0-9]*}} of 40 random steps flip their triangle
// CHECK: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
