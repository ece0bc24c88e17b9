//===- demos/quickstart/quickstart.cu - meshad in five minutes ------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
//
// Forward-mode derivatives of a spring energy, the building block of a mass-
// spring mesh: E = 0.5 k (|p - q| - L)^2. The energies are __host__
// __device__ functions, so meshad's derivatives are too; main() calls them on
// the host, which needs no GPU.
//
// Build and run (scripts/quickstart.sh does this):
//   clang++-22 -x cuda --cuda-path=/usr/local/cuda -Wno-unknown-cuda-version \
//     --cuda-gpu-arch=sm_90 -fplugin=build/lib/libmeshad.so \
//     -fplugin-arg-meshad-dump -Iinclude -Itest/Inputs \
//     demos/quickstart/quickstart.cu -o build/quickstart \
//     -L/usr/local/cuda/lib64 -lcudart && build/quickstart
//
//===----------------------------------------------------------------------===//

#include <meshad/Differentiator.h>

#include "NumericCheck.h"

#include <cmath>
#include <cstdio>

/// A 2D spring between (px, py) and (qx, qy): stiffness k, rest length rest.
__host__ __device__ double springEnergy2D(double px, double py, double qx,
                                          double qy, double k, double rest) {
  double dx = px - qx;
  double dy = py - qy;
  double len = sqrt(dx * dx + dy * dy);
  double stretch = len - rest;
  return 0.5 * k * stretch * stretch;
}

/// The same in 3D, with the end points as arrays (as they come out of a
/// mesh's vertex buffer).
__host__ __device__ double springEnergy(const double *p, const double *q,
                                        double k, double rest) {
  double dx = p[0] - q[0];
  double dy = p[1] - q[1];
  double dz = p[2] - q[2];
  double len = sqrt(dx * dx + dy * dy + dz * dz);
  double stretch = len - rest;
  return 0.5 * k * stretch * stretch;
}

int main() {
  // Two requests: d E / d px (a scalar parameter) and d E / d p[1] (one
  // element of an array parameter). meshad generates springEnergy2D_darg0 and
  // springEnergy_darg0_1 and fills in the handles at compile time.
  auto dEdPx = meshad::differentiate(springEnergy2D, "px");
  auto dEdP1 = meshad::differentiate(springEnergy, "p[1]");

  std::printf("---- generated: %s\n%s", dEdPx.getName(), dEdPx.getCode());
  std::printf("---- generated: %s\n%s", dEdP1.getName(), dEdP1.getCode());

  using meshad::test::centralDifference;
  using meshad::test::centralDifferenceAt;
  using meshad::test::relativeError;
  meshad::test::RandomInputs Rng;
  const double Tolerance = meshad::test::DoubleTolerance;
  bool Ok = true;

  std::printf("%-10s %22s %22s %10s\n", "request", "meshad", "finite diff.",
              "rel. err.");
  for (int Trial = 0; Trial < 4; ++Trial) {
    double P[3], Q[3];
    Rng.fill(P, 3, -1, 1);
    Rng.fill(Q, 3, -1, 1);
    double K = Rng.uniform(0.5, 2), Rest = Rng.uniform(0.1, 1);

    double Got = dEdPx.execute(P[0], P[1], Q[0], Q[1], K, Rest);
    double Fd = centralDifference(
        [&](double Px) { return springEnergy2D(Px, P[1], Q[0], Q[1], K, Rest); },
        P[0]);
    double Err = relativeError(Got, Fd);
    Ok &= Err <= Tolerance;
    std::printf("%-10s %22.15e %22.15e %10.2e\n", "d/d px", Got, Fd, Err);

    Got = dEdP1.execute(P, Q, K, Rest);
    Fd = centralDifferenceAt([&] { return springEnergy(P, Q, K, Rest); }, P, 1);
    Err = relativeError(Got, Fd);
    Ok &= Err <= Tolerance;
    std::printf("%-10s %22.15e %22.15e %10.2e\n", "d/d p[1]", Got, Fd, Err);
  }

  if (!Ok) {
    std::printf("quickstart: MISMATCH (tolerance %g)\n", Tolerance);
    return 1;
  }
  std::printf("quickstart: OK\n");
  return 0;
}
