//===- tools/fuzz/FuzzCheck.h - Checks of the differential fuzzer -*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Header-only helpers of the test programs that tools/fuzz/meshad-fuzz.py
/// generates: random inputs from a fixed seed, finite differences of a
/// vector of outputs that also tell whether the function is smooth around
/// the point, and per-unit counts of passed, failed and skipped checks,
/// printed as lines the runner parses:
///
///   @@BEGIN <unit>
///   FAIL <unit> <what> got G expected E
///   @@END <unit> pass P fail F skip S
///
/// A check is skipped (neither passed nor failed) when the fourth-order
/// central differences at three step sizes disagree: a kink or a jump of
/// the function (fabs, fmin, a branch on a value) lies within a few steps of
/// the point, where finite differences say nothing.
///
/// Compiled with -DMESHAD_FUZZ_SELFTEST, every expected value is perturbed
/// (relatively by 1e-3, plus 1e-3): each unit with a smooth check must then
/// fail, which proves that the checks can see a wrong derivative.
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_FUZZ_FUZZCHECK_H
#define MESHAD_FUZZ_FUZZCHECK_H

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace meshad {
namespace fuzz {

/// Relative tolerance of a check; the absolute part scales with the size of
/// the function's values (round-off of the differences).
constexpr double RelTol = 1e-5;
constexpr double AbsTolPerValue = 1e-8;

/// Uniform random inputs (splitmix64: the same on every platform).
class Rng {
public:
  explicit Rng(std::uint64_t Seed) : State(Seed) {}
  double uniform(double Lo, double Hi) {
    return Lo + (Hi - Lo) * static_cast<double>(next() >> 11) * 0x1.0p-53;
  }
  void fill(double *A, int N, double Lo, double Hi) {
    for (int I = 0; I < N; ++I)
      A[I] = uniform(Lo, Hi);
  }

private:
  std::uint64_t next() {
    std::uint64_t Z = (State += 0x9E3779B97F4A7C15ull);
    Z = (Z ^ (Z >> 30)) * 0xBF58476D1CE4E5B9ull;
    Z = (Z ^ (Z >> 27)) * 0x94D049BB133111EBull;
    return Z ^ (Z >> 31);
  }
  std::uint64_t State;
};

/// d Outputs / dX for each output, and whether it is trustworthy.
struct Column {
  std::vector<double> D;
  std::vector<char> Smooth;
  double Scale = 1; ///< max(1, |outputs|) at the point.
};

inline bool agree(double A, double B, double Scale) {
  return std::fabs(A - B) <=
         1e-6 * std::max(std::fabs(A), std::fabs(B)) + 1e-9 * Scale;
}

/// Fourth-order central differences of \p Eval (double -> vector<double>)
/// at \p X with steps H, H/4, H/16 (H = 1e-3 max(1, |X|)); an output is
/// smooth when all are finite and successive estimates agree.
template <class F> Column fdColumn(F &&Eval, double X) {
  std::vector<double> F0 = Eval(X);
  size_t N = F0.size();
  Column C;
  for (double V : F0)
    if (std::isfinite(V))
      C.Scale = std::max(C.Scale, std::fabs(V));
  std::vector<double> Est[3];
  double H = 1e-3 * std::max(1.0, std::fabs(X));
  for (int K = 0; K < 3; ++K, H /= 4) {
    volatile double Up = X + H;
    double Hx = Up - X;
    std::vector<double> P1 = Eval(X + Hx), M1 = Eval(X - Hx);
    std::vector<double> P2 = Eval(X + 2 * Hx), M2 = Eval(X - 2 * Hx);
    Est[K].resize(N);
    for (size_t I = 0; I < N; ++I)
      Est[K][I] = (8 * (P1[I] - M1[I]) - (P2[I] - M2[I])) / (12 * Hx);
  }
  C.D.resize(N);
  C.Smooth.resize(N);
  for (size_t I = 0; I < N; ++I) {
    C.D[I] = Est[1][I];
    bool Finite = std::isfinite(F0[I]) && std::isfinite(Est[0][I]) &&
                  std::isfinite(Est[1][I]) && std::isfinite(Est[2][I]);
    C.Smooth[I] = Finite && agree(Est[0][I], Est[1][I], C.Scale) &&
                  agree(Est[1][I], Est[2][I], C.Scale);
  }
  return C;
}

/// The counts of one unit (a program in one mode); prints @@BEGIN/@@END.
class Unit {
public:
  explicit Unit(const char *Name) : Name(Name) {
    std::printf("@@BEGIN %s\n", Name);
    std::fflush(stdout);
  }
  ~Unit() {
    std::printf("@@END %s pass %u fail %u skip %u\n", Name, Pass, Fail, Skip);
    std::fflush(stdout);
  }
  Unit(const Unit &) = delete;
  Unit &operator=(const Unit &) = delete;

  /// Checks \p Got against component \p I of \p C.
  void check(const std::string &What, double Got, const Column &C, size_t I) {
    if (!C.Smooth[I]) {
      ++Skip;
      return;
    }
    double Expected = C.D[I];
#ifdef MESHAD_FUZZ_SELFTEST
    Expected = Expected * (1 + 1e-3) + 1e-3;
#endif
    double Tol = RelTol * std::max(std::fabs(Got), std::fabs(Expected)) +
                 AbsTolPerValue * C.Scale;
    if (std::fabs(Got - Expected) <= Tol) { // False for NaN.
      ++Pass;
      return;
    }
    if (Fail++ < 6)
      std::printf("FAIL %s %s got %.17g expected %.17g\n", Name,
                  What.c_str(), Got, Expected);
  }

  /// Checks every component of \p Got against \p C.
  void checkAll(const std::string &What, const std::vector<double> &Got,
                const Column &C) {
    for (size_t I = 0; I < Got.size() && I < C.D.size(); ++I)
      check(What + "[" + std::to_string(I) + "]", Got[I], C, I);
  }

private:
  const char *Name;
  unsigned Pass = 0, Fail = 0, Skip = 0;
};

/// Appends A[0..N) to V.
inline void append(std::vector<double> &V, const double *A, int N) {
  V.insert(V.end(), A, A + N);
}

struct Entry {
  const char *Name;
  void (*Run)(Unit &);
};

/// Runs the units named on the command line (all without arguments).
inline int runUnits(const Entry *Units, int N, int Argc, char **Argv) {
  for (int I = 0; I < N; ++I) {
    bool Wanted = Argc <= 1;
    for (int A = 1; A < Argc; ++A)
      Wanted |= std::strcmp(Argv[A], Units[I].Name) == 0;
    if (!Wanted)
      continue;
    Unit U(Units[I].Name);
    Units[I].Run(U);
  }
  return 0;
}

} // namespace fuzz
} // namespace meshad

#endif // MESHAD_FUZZ_FUZZCHECK_H
