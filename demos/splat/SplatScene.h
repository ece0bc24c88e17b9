//===- demos/splat/SplatScene.h - Random scenes of 2D Gaussians -*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Host-side scenes for the splat demo, test and benchmark: N Gaussians with
/// means in a box, covariances from random scales and rotations (stored as
/// conics), colours, opacities and a random front-to-back order.
///
/// \code
///   SplatScene S = makeScene(N, 0, 0, 24, 24, 2.0, 6.0, Seed);
///   // S.Means, S.Conics, S.Colours, S.Opacities, S.DepthRank
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_DEMOS_SPLAT_SPLATSCENE_H
#define MESHAD_DEMOS_SPLAT_SPLATSCENE_H

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

/// A scene's parameters on the host (double; converted where Real differs).
struct SplatScene {
  int N = 0;
  std::vector<double> Means, Conics, Colours, Opacities;
  std::vector<int> DepthRank;

  /// Appends a Gaussian at (X, Y) with scales (Sx, Sy) rotated by Theta.
  void add(double X, double Y, double Sx, double Sy, double Theta,
           double R, double G, double B, double Opacity) {
    double C = std::cos(Theta), S = std::sin(Theta);
    double Xx = C * C * Sx * Sx + S * S * Sy * Sy;
    double Xy = C * S * (Sx * Sx - Sy * Sy);
    double Yy = S * S * Sx * Sx + C * C * Sy * Sy;
    double Det = Xx * Yy - Xy * Xy;
    Means.insert(Means.end(), {X, Y});
    Conics.insert(Conics.end(), {Yy / Det, -Xy / Det, Xx / Det});
    Colours.insert(Colours.end(), {R, G, B});
    Opacities.push_back(Opacity);
    ++N;
  }

  /// A random front-to-back order of the N Gaussians.
  void shuffleDepths(std::uint64_t Seed) {
    DepthRank.resize(N);
    for (int I = 0; I < N; ++I)
      DepthRank[I] = I;
    std::mt19937_64 Engine(Seed);
    std::shuffle(DepthRank.begin(), DepthRank.end(), Engine);
  }
};

/// N random Gaussians with means in [X0, X1) x [Y0, Y1), scales in
/// [SLo, SHi) pixels, opacities in [OLo, OHi).
inline SplatScene makeScene(int N, double X0, double Y0, double X1, double Y1,
                            double SLo, double SHi, double OLo, double OHi,
                            std::uint64_t Seed) {
  std::mt19937_64 Engine(Seed);
  auto U = [&](double Lo, double Hi) {
    return Lo + (Hi - Lo) * (double)(Engine() >> 11) * 0x1.0p-53;
  };
  SplatScene S;
  for (int I = 0; I < N; ++I) {
    double X = U(X0, X1), Y = U(Y0, Y1);
    double Sx = U(SLo, SHi), Sy = U(SLo, SHi), Th = U(0, 3.14159);
    double R = U(0, 1), G = U(0, 1), B = U(0, 1);
    S.add(X, Y, Sx, Sy, Th, R, G, B, U(OLo, OHi));
  }
  S.shuffleDepths(Seed + 1);
  return S;
}

#endif // MESHAD_DEMOS_SPLAT_SPLATSCENE_H
