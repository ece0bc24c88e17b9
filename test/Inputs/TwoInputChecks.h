//===- test/Inputs/TwoInputChecks.h - All modes of f(x, y) -----*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// checkAll: the forward derivatives, the gradient and the HVP of a scalar
/// function of two doubles against central differences (of the function,
/// and of the gradient along a random direction), at four random points in
/// [Lo, Hi]^2. Used by the construct tests of test/cxx.
///
/// \code
///   mt::RandomInputs Rng;
///   checkAll("f", f, meshad::differentiate(f, "x"),
///            meshad::differentiate(f, "y"), meshad::gradient(f, "x, y"),
///            meshad::hvp(f, "x, y"), Rng);
/// \endcode
///
//===----------------------------------------------------------------------===//
#ifndef MESHAD_TEST_TWOINPUTCHECKS_H
#define MESHAD_TEST_TWOINPUTCHECKS_H

#include "NumericCheck.h"

#include <string>

template <class F, class D0, class D1, class Gr, class H>
void checkAll(const char *Name, F Fn, const D0 &f0, const D1 &f1, const Gr &g,
              const H &h, meshad::test::RandomInputs &Rng, double Lo = -1,
              double Hi = 1) {
  namespace mt = meshad::test;
  std::string N = Name;
  for (int Trial = 0; Trial < 4; ++Trial) {
    double X = Rng.uniform(Lo, Hi), Y = Rng.uniform(Lo, Hi);
    double VX = Rng.uniform(-1, 1), VY = Rng.uniform(-1, 1);
    double GX = 0, GY = 0, HX = 0, HY = 0;
    g.execute(X, Y, &GX, &GY);
    double FdX = mt::centralDifference([&](double T) { return Fn(T, Y); }, X);
    double FdY = mt::centralDifference([&](double T) { return Fn(X, T); }, Y);
    MESHAD_CHECK_CLOSE((N + " fwd d/dx").c_str(), f0.execute(X, Y), FdX);
    MESHAD_CHECK_CLOSE((N + " fwd d/dy").c_str(), f1.execute(X, Y), FdY);
    MESHAD_CHECK_CLOSE((N + " rev d/dx").c_str(), GX, FdX);
    MESHAD_CHECK_CLOSE((N + " rev d/dy").c_str(), GY, FdY);
    h.execute(X, Y, VX, VY, &HX, &HY);
    for (int I = 0; I < 2; ++I) {
      double Ref = mt::centralDifference(
          [&](double T) {
            double G[2] = {};
            g.execute(X + T * VX, Y + T * VY, &G[0], &G[1]);
            return G[I];
          },
          0.0);
      MESHAD_CHECK_CLOSE((N + " hvp").c_str(), I == 0 ? HX : HY, Ref);
    }
  }
}

#endif // MESHAD_TEST_TWOINPUTCHECKS_H
