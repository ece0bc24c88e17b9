//===- meshad/codegen/Polygamma.h - Derivatives of lgamma -------*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// meshad::polygamma(n, x): the n-th derivative of the digamma function
/// psi = lgamma', which derivatives of lgamma and tgamma call (the rules in
/// lib/Rules/DerivativeRules.def); n is a whole number. The recurrence
/// psi^(n)(x) = psi^(n)(x + 1) - (-n)! ... moves x to 10 or more, where the
/// asymptotic series is accurate to about 1e-15 (relative).
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_CODEGEN_POLYGAMMA_H
#define MESHAD_CODEGEN_POLYGAMMA_H

#include <cmath>

#if defined(__CUDACC__)
#define MESHAD_POLYGAMMA_HD __host__ __device__
#else
#define MESHAD_POLYGAMMA_HD
#endif

namespace meshad {

/// psi^(n)(x) for x > -1e4 away from the poles 0, -1, -2, ...
template <class T> MESHAD_POLYGAMMA_HD T polygamma(T N, T X) {
  const int Order = static_cast<int>(N);
  double X0 = static_cast<double>(X), Shift = 0;
  double Factorial = 1; // n!
  for (int I = 2; I <= Order; ++I)
    Factorial *= I;
  // (-1)^(n+1): the sign of psi^(n) for large x (n >= 1).
  const double Sign = Order % 2 == 1 ? 1.0 : -1.0;
  // psi^(n)(x) = psi^(n)(x + 1) + (-1)^(n+1) n! / x^(n+1)
  // (psi(x) = psi(x + 1) - 1 / x for n = 0).
  for (; X0 < 10; X0 += 1)
    Shift += Order == 0 ? -1 / X0 : Sign * Factorial / pow(X0, Order + 1);
  // Bernoulli numbers B2, B4, ..., B12.
  const double B[6] = {1.0 / 6, -1.0 / 30, 1.0 / 42,
                       -1.0 / 30, 5.0 / 66, -691.0 / 2730};
  double Series;
  if (Order == 0) {
    Series = log(X0) - 0.5 / X0;
    for (int K = 1; K <= 6; ++K)
      Series -= B[K - 1] / (2 * K * pow(X0, 2 * K));
  } else {
    // (n-1)!/x^n + n!/(2 x^(n+1)) + sum B2k (2k+n-1)!/(2k)! / x^(2k+n).
    Series = Factorial / Order / pow(X0, Order) +
             Factorial / (2 * pow(X0, Order + 1));
    for (int K = 1; K <= 6; ++K) {
      double Rising = 1; // (2k+1) (2k+2) ... (2k+n-1)
      for (int J = 1; J < Order; ++J)
        Rising *= 2 * K + J;
      Series += B[K - 1] * Rising / pow(X0, 2 * K + Order);
    }
    Series *= Sign;
  }
  return static_cast<T>(Shift + Series);
}

} // namespace meshad

#undef MESHAD_POLYGAMMA_HD

#endif // MESHAD_CODEGEN_POLYGAMMA_H
