//===- test/Inputs/NumericCheck.h - Numerical checks for tests ---*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Header-only helpers for the numerical half of a test: random inputs from a
/// fixed (printed) seed, central finite differences in double, and relative
/// error checks that print one `PASS name` / `FAIL name ...` line each.
/// Host code only; compiles as C++17 or later, as CUDA (clang or nvcc) and
/// under the CUDA-on-CPU emulation (%cpu_cuda_flags).
///
/// \code
///   // RUN: %clangxx -fplugin=%meshad_plugin -I%I -I%test_inputs %s -o %t
///   // RUN: %t | FileCheck %s
///   // CHECK-NOT: FAIL
///   // CHECK: PASS d/dx f
///   #include "NumericCheck.h"
///   #include <meshad/Differentiator.h>
///   double f(double x, double y) { return x * x * y; }
///   int main() {
///     meshad::test::RandomInputs Rng;          // prints its seed
///     auto df = meshad::differentiate(f, "x");
///     for (int I = 0; I < 5; ++I) {
///       double X = Rng.uniform(-2, 2), Y = Rng.uniform(-2, 2);
///       double Fd = meshad::test::centralDifference(
///           [&](double V) { return f(V, Y); }, X);
///       MESHAD_CHECK_CLOSE("d/dx f", df.execute(X, Y), Fd);
///     }
///     return meshad::test::summary();          // non-zero on any failure
///   }
/// \endcode
///
/// Array elements: `centralDifferenceAt([&] { return g(P, Q); }, P, 1)`
/// perturbs P[1] in place (restoring it) and differentiates the nullary
/// callable.
///
/// Tolerances: 1e-6 relative for double results, FloatTolerance (1e-5) for
/// float results compared with a double reference. The finite differences use
/// the fourth-order central stencil with a step chosen among H, H/2, ...
/// H/1024 by agreement of successive estimates: about 1e-11 relative for
/// smooth functions of O(1) inputs, so 1e-6 leaves room for the differences
/// only, never for a wrong derivative. Keep inputs away (by much more than
/// 2H = 2e-3 max(1,|x|)) from points where the function is not smooth. For a
/// float function, compute the reference with a double instance of it (e.g.
/// a template) and check the float result.
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_TEST_NUMERICCHECK_H
#define MESHAD_TEST_NUMERICCHECK_H

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <type_traits>

namespace meshad {
namespace test {

/// Relative tolerance for double results against a double reference.
constexpr double DoubleTolerance = 1e-6;
/// Relative tolerance for float results against a double reference (about
/// 80 float ulps).
constexpr double FloatTolerance = 1e-5;

/// The default tolerance for a result of type T.
template <class T> constexpr double toleranceFor() {
  return std::is_same<std::decay_t<T>, float>::value ? FloatTolerance
                                                     : DoubleTolerance;
}

/// Uniform random inputs from a fixed seed, printed so that a failure can be
/// replayed. The seed is 20240611 unless MESHAD_TEST_SEED is set.
class RandomInputs {
public:
  explicit RandomInputs(std::uint64_t Seed = defaultSeed()) : Engine(Seed) {
    std::printf("meshad::test seed %llu\n",
                static_cast<unsigned long long>(Seed));
  }

  /// A double uniform in [Lo, Hi).
  double uniform(double Lo, double Hi) {
    // Engine bits to [0,1) by hand: the same on every standard library.
    double Unit = static_cast<double>(Engine() >> 11) * 0x1.0p-53;
    return Lo + (Hi - Lo) * Unit;
  }

  /// Fills A[0..N) with values uniform in [Lo, Hi).
  template <class T> void fill(T *A, std::size_t N, double Lo, double Hi) {
    for (std::size_t I = 0; I < N; ++I)
      A[I] = static_cast<T>(uniform(Lo, Hi));
  }

  static std::uint64_t defaultSeed() {
    const char *Env = std::getenv("MESHAD_TEST_SEED");
    return Env ? std::strtoull(Env, nullptr, 10) : 20240611u;
  }

private:
  std::mt19937_64 Engine;
};

/// The default step for differentiating at \p X: about the optimum of the
/// fourth-order stencil in double (eps^(1/5) relative).
inline double defaultStep(double X) {
  return 1e-3 * std::max(1.0, std::fabs(X));
}

/// One fourth-order central difference with step \p H (made exactly
/// representable as a difference of inputs):
/// (-f(x+2h) + 8 f(x+h) - 8 f(x-h) + f(x-2h)) / 12h.
template <class F> double fourthOrderDifference(F &Fn, double X, double H) {
  volatile double Up = X + H;
  H = Up - X;
  double F1 = static_cast<double>(Fn(X + H)) - static_cast<double>(Fn(X - H));
  double F2 = static_cast<double>(Fn(X + 2 * H)) -
              static_cast<double>(Fn(X - 2 * H));
  return (8 * F1 - F2) / (12 * H);
}

/// d Fn / dX at \p X in double, by fourth-order central differences with
/// steps H, H/2, ..., H/2^10 (H defaults to defaultStep(X)): returns the
/// estimate that agrees best with the one of the previous step, so that
/// rapidly varying functions (sin of a large argument, high powers) get a
/// small enough step while smooth ones stay far from round-off. \p Fn takes
/// a double and returns something convertible to double.
template <class F>
double centralDifference(F &&Fn, double X, double H = 0.0) {
  if (H == 0.0)
    H = defaultStep(X);
  double Previous = fourthOrderDifference(Fn, X, H);
  double Best = Previous;
  double BestDisagreement = std::numeric_limits<double>::infinity();
  for (int Halving = 1; Halving <= 10; ++Halving) {
    double Current = fourthOrderDifference(Fn, X, std::ldexp(H, -Halving));
    double Disagreement = std::fabs(Current - Previous);
    if (Disagreement < BestDisagreement) {
      BestDisagreement = Disagreement;
      Best = Current;
    }
    Previous = Current;
  }
  return Best;
}

/// d Fn / d A[Index]: perturbs A[Index] in place (restored afterwards) and
/// differentiates the nullary callable \p Fn, which reads A.
template <class F, class T>
double centralDifferenceAt(F &&Fn, T *A, std::size_t Index, double H = 0.0) {
  T Saved = A[Index];
  double Result = centralDifference(
      [&](double V) {
        A[Index] = static_cast<T>(V);
        return static_cast<double>(Fn());
      },
      static_cast<double>(Saved), H);
  A[Index] = Saved;
  return Result;
}

/// |Got - Expected| relative to the larger magnitude of the two (0 when both
/// are 0).
inline double relativeError(double Got, double Expected) {
  double Scale = std::max(std::fabs(Got), std::fabs(Expected));
  if (Scale == 0.0)
    return 0.0;
  return std::fabs(Got - Expected) / Scale;
}

/// Counts and prints checks. Tests use the process-wide checker() through
/// MESHAD_CHECK_CLOSE; separate instances are for testing this header.
class Checker {
public:
  /// Checks |Got - Expected| <= Tolerance relatively; prints `PASS Name` or
  /// `FAIL Name got G expected E relerr R (tol T)`. NaNs fail.
  bool close(const std::string &Name, double Got, double Expected,
             double Tolerance) {
    double Err = relativeError(Got, Expected);
    bool Ok = Err <= Tolerance; // False for NaN.
    if (Ok) {
      ++Passed;
      std::printf("PASS %s  (relerr %.3g)\n", Name.c_str(), Err);
    } else {
      ++Failed;
      std::printf("FAIL %s got %.17g expected %.17g relerr %.3g (tol %.3g)\n",
                  Name.c_str(), Got, Expected, Err, Tolerance);
    }
    return Ok;
  }

  /// Prints `numeric checks: N passed, M failed`; returns 0 only when at
  /// least one check ran and none failed.
  int summary() const {
    std::printf("numeric checks: %u passed, %u failed\n", Passed, Failed);
    std::fflush(stdout);
    return (Failed == 0 && Passed > 0) ? 0 : 1;
  }

  unsigned passed() const { return Passed; }
  unsigned failed() const { return Failed; }

private:
  unsigned Passed = 0;
  unsigned Failed = 0;
};

/// The checker that MESHAD_CHECK_CLOSE and summary() use.
inline Checker &checker() {
  static Checker Global;
  return Global;
}

/// Checks \p Got against \p Expected with the tolerance of Got's type.
template <class T>
bool checkClose(const std::string &Name, T Got, double Expected) {
  return checker().close(Name, static_cast<double>(Got), Expected,
                         toleranceFor<T>());
}

/// The end of a test's main: `return meshad::test::summary();`.
inline int summary() { return checker().summary(); }

} // namespace test
} // namespace meshad

/// Checks a derivative (float or double) against a double reference.
#define MESHAD_CHECK_CLOSE(Name, Got, Expected)                                \
  ::meshad::test::checkClose((Name), (Got), (Expected))

/// The same with an explicit relative tolerance (justify it in the test).
#define MESHAD_CHECK_CLOSE_TOL(Name, Got, Expected, Tolerance)                 \
  ::meshad::test::checker().close((Name), static_cast<double>(Got),            \
                                  (Expected), (Tolerance))

#endif // MESHAD_TEST_NUMERICCHECK_H
