//===- demos/splat-fit/SplatFit.h - Adam, images, the loss curve -*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The host side of the fitting demo: a picture read from a binary PPM and
/// box-filtered, the mean squared error, the initial scene (one Gaussian per
/// cell of a jittered grid, grey, half opaque), Adam with one learning rate
/// per parameter group, the projection that keeps conics positive definite
/// and colours and opacities in range, and the loss curve (CSV and a PNG
/// plot drawn with meshad::render::Image).
///
/// \code
///   splatfit::Picture T = splatfit::boxFilter(splatfit::readPpm(Path), 32);
///   SplatScene S = splatfit::initialScene(T, 64, 1);
///   splatfit::Adam Opt(Params, splatfit::rates(T, 64));
///   Opt.step(Params, Grads);              // then splatfit::project(...)
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_DEMOS_SPLATFIT_SPLATFIT_H
#define MESHAD_DEMOS_SPLATFIT_SPLATFIT_H

#include "../splat/SplatScene.h"
#include <meshad/runtime/render/Png.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace splatfit {

/// W x H RGB values in [0, 1], row 0 at the top.
struct Picture {
  int W = 0, H = 0;
  std::vector<double> Rgb;
};

inline Picture readPpm(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  std::string Magic;
  In >> Magic;
  auto Next = [&] {
    In >> std::ws;
    while (In.peek() == '#')
      In.ignore(1 << 20, '\n') >> std::ws;
    int V = 0;
    In >> V;
    return V;
  };
  Picture P;
  P.W = Next(), P.H = Next();
  int Max = Next();
  In.get();
  std::vector<unsigned char> Bytes(3 * size_t(P.W) * P.H);
  In.read(reinterpret_cast<char *>(Bytes.data()), Bytes.size());
  if (Magic != "P6" || Max != 255 || !In)
    throw std::runtime_error("cannot read the binary PPM " + Path);
  for (unsigned char B : Bytes)
    P.Rgb.push_back(B / 255.0);
  return P;
}

/// \p P averaged over blocks down to S x S (W and H multiples of S).
inline Picture boxFilter(const Picture &P, int S) {
  Picture Q;
  Q.W = Q.H = S;
  Q.Rgb.assign(3 * S * S, 0.0);
  int Bx = P.W / S, By = P.H / S;
  for (int Y = 0; Y < S * By; ++Y)
    for (int X = 0; X < S * Bx; ++X)
      for (int C = 0; C < 3; ++C)
        Q.Rgb[3 * ((Y / By) * S + X / Bx) + C] +=
            P.Rgb[3 * (Y * P.W + X) + C] / (Bx * By);
  return Q;
}

/// A smooth synthetic target (for the gradient check).
inline Picture gradientPicture(int W, int H) {
  Picture P;
  P.W = W, P.H = H;
  for (int Y = 0; Y < H; ++Y)
    for (int X = 0; X < W; ++X)
      P.Rgb.insert(P.Rgb.end(), {X / (double)W, Y / (double)H,
                                 0.5 + 0.4 * std::sin(0.3 * (X + Y))});
  return P;
}

template <class T>
double meanSquaredError(const T *Image, const std::vector<double> &Target) {
  double S = 0;
  for (size_t K = 0; K < Target.size(); ++K) {
    double D = Image[K] - Target[K];
    S += D * D;
  }
  return S / Target.size();
}

template <class T>
meshad::render::Image toImage(const T *Rgb, int W, int H) {
  meshad::render::Image Img(W, H);
  auto Byte = [](double V) {
    return (uint8_t)std::lround(255 * std::min(1.0, std::max(0.0, V)));
  };
  for (int Y = 0; Y < H; ++Y)
    for (int X = 0; X < W; ++X) {
      const T *C = Rgb + 3 * (Y * W + X);
      Img.set(X, Y, {Byte(C[0]), Byte(C[1]), Byte(C[2])});
    }
  return Img;
}

/// The side of a grid cell when N Gaussians cover the picture.
inline double cellSide(const Picture &T, int N) {
  return std::sqrt((double)T.W * T.H / N);
}

/// One grey, half-opaque round Gaussian per cell of a jittered grid.
inline SplatScene initialScene(const Picture &T, int N, std::uint64_t Seed) {
  SplatScene Random = makeScene(N, 0, 0, T.W, T.H, 1, 1, 0.5, 0.5, Seed);
  SplatScene S;
  double Side = cellSide(T, N);
  int Cols = std::max(1, (int)std::lround(T.W / Side));
  for (int I = 0; I < N; ++I) {
    double Jx = Random.Means[2 * I] / T.W, Jy = Random.Means[2 * I + 1] / T.H;
    double X = std::fmod((I % Cols + Jx) * Side, (double)T.W);
    double Y = std::fmod((I / Cols + Jy) * Side, (double)T.H);
    S.add(X, Y, 0.8 * Side, 0.8 * Side, 0, 0.5, 0.5, 0.5, 0.5);
  }
  S.shuffleDepths(Seed + 1);
  return S;
}

/// Learning rates of the means, conics, colours and opacities.
inline std::vector<double> rates(const Picture &T, int N) {
  double Side = cellSide(T, N);
  return {0.05 * Side, 0.05 / (Side * Side), 0.02, 0.02};
}

/// Adam (beta1 0.9, beta2 0.999) with a learning rate per group.
class Adam {
public:
  template <class Arrays>
  Adam(const Arrays &P, std::vector<double> Rates) : Rates(std::move(Rates)) {
    for (int G = 0; G < 4; ++G) {
      M[G].assign(P[G].size(), 0.0);
      V[G].assign(P[G].size(), 0.0);
    }
  }
  template <class Arrays> void step(Arrays &P, Arrays &D) {
    ++T;
    double C1 = 1 - std::pow(0.9, T), C2 = 1 - std::pow(0.999, T);
    for (int G = 0; G < 4; ++G)
      for (size_t K = 0; K < M[G].size(); ++K) {
        double Gk = D[G][K];
        M[G][K] = 0.9 * M[G][K] + 0.1 * Gk;
        V[G][K] = 0.999 * V[G][K] + 0.001 * Gk * Gk;
        double Step = Rates[G] * (M[G][K] / C1) /
                      (std::sqrt(V[G][K] / C2) + 1e-12);
        P[G][K] -= Step;
      }
  }

private:
  std::vector<double> Rates, M[4], V[4];
  int T = 0;
};

/// Means in the picture, conics positive definite (scales in [0.3, W]
/// pixels, |b| < 0.95 sqrt(ac)), colours in [0, 1], opacities in
/// [0.02, 0.99].
template <class Arrays> void project(Arrays &P, int W, int H) {
  auto Clamp = [](double V, double Lo, double Hi) {
    return std::min(Hi, std::max(Lo, V));
  };
  size_t N = P[3].size();
  double Lo = 1.0 / ((double)W * W), Hi = 1 / 0.09;
  for (size_t I = 0; I < N; ++I) {
    P[0][2 * I] = Clamp(P[0][2 * I], 0, W);
    P[0][2 * I + 1] = Clamp(P[0][2 * I + 1], 0, H);
    double A = Clamp(P[1][3 * I], Lo, Hi), C = Clamp(P[1][3 * I + 2], Lo, Hi);
    double B = 0.95 * std::sqrt(A * C);
    P[1][3 * I] = A, P[1][3 * I + 2] = C;
    P[1][3 * I + 1] = Clamp(P[1][3 * I + 1], -B, B);
    for (int C3 = 0; C3 < 3; ++C3)
      P[2][3 * I + C3] = Clamp(P[2][3 * I + C3], 0, 1);
    P[3][I] = Clamp(P[3][I], 0.02, 0.99);
  }
}

/// <Dir>/loss.csv (step, loss) and <Dir>/loss.png (log10 loss per step).
inline void writeLossCurve(const std::string &Dir,
                           const std::vector<double> &Loss) {
  std::FILE *Csv = std::fopen((Dir + "/loss.csv").c_str(), "w");
  if (!Csv)
    throw std::runtime_error("cannot write " + Dir + "/loss.csv");
  std::fprintf(Csv, "step,loss\n");
  for (size_t I = 0; I < Loss.size(); ++I)
    std::fprintf(Csv, "%zu,%.8g\n", I, Loss[I]);
  std::fclose(Csv);
  const int W = 480, H = 320, M = 24;
  meshad::render::Image Plot(W, H);
  double Top = std::log10(*std::max_element(Loss.begin(), Loss.end()));
  double Bottom = std::log10(*std::min_element(Loss.begin(), Loss.end()));
  Bottom = std::min(Bottom, Top - 1);
  for (int X = M; X < W - M; ++X)
    Plot.set(X, H - M, {0, 0, 0});
  for (int Y = M; Y <= H - M; ++Y)
    Plot.set(M, Y, {0, 0, 0});
  // One tick a decade on the left axis.
  for (double D = std::ceil(Bottom); D <= Top; ++D)
    for (int X = M - 5; X < M; ++X)
      Plot.set(X, H - M - (int)((D - Bottom) / (Top - Bottom) * (H - 2 * M)),
               {0, 0, 0});
  auto At = [&](size_t I) {
    double Fx = Loss.size() > 1 ? (double)I / (Loss.size() - 1) : 0;
    double Fy = (std::log10(Loss[I]) - Bottom) / (Top - Bottom);
    return std::pair<int, int>(M + (int)(Fx * (W - 2 * M)),
                               H - M - (int)(Fy * (H - 2 * M)));
  };
  for (size_t I = 1; I < Loss.size(); ++I) {
    auto [X0, Y0] = At(I - 1);
    auto [X1, Y1] = At(I);
    int Steps = std::max(std::abs(X1 - X0), std::abs(Y1 - Y0)) + 1;
    for (int S = 0; S <= Steps; ++S)
      Plot.set(X0 + (X1 - X0) * S / Steps, Y0 + (Y1 - Y0) * S / Steps,
               {30, 90, 200});
  }
  meshad::render::writePng(Dir + "/loss.png", Plot);
}

} // namespace splatfit

#endif // MESHAD_DEMOS_SPLATFIT_SPLATFIT_H
