//===- meshad/runtime/render/Rasterizer.h - Software rasterizer -*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A small software rasterizer for pictures of meshes: triangles seen by an
/// orthographic or perspective camera fitted to the mesh's bounding box,
/// a z-buffer, flat or smooth two-sided Lambert shading, per-vertex colours
/// or a UV checkerboard, a wireframe overlay (occluded like the faces), and
/// 2D views of UV layouts (flipped triangles in red). Pixel (x, y) is
/// sampled at its centre (x + 0.5, y + 0.5); y grows downwards.
///
/// \code
///   #include <meshad/runtime/render/Png.h>
///   #include <meshad/runtime/render/Rasterizer.h>
///   using namespace meshad::render;
///   Camera Cam = Camera::fit(M.X, 400, 400, Projection::Perspective,
///                            /*YawDeg=*/30, /*PitchDeg=*/20);
///   RenderOptions Opt;
///   Opt.Shade = Shading::Smooth;
///   Opt.Wireframe = true;
///   Opt.UV = &UV;                  // 2 per vertex: a checkerboard texture
///   Image Mesh3D = renderMesh(M.X, M.Tris, Cam, Opt);
///   Image Layout = renderUv(UV, M.Tris, 400, 400, Opt);
///   writePng("param.png", sideBySide({Layout, Mesh3D}));
/// \endcode
///
/// Header-only, host code.
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_RUNTIME_RENDER_RASTERIZER_H
#define MESHAD_RUNTIME_RENDER_RASTERIZER_H

#include "Png.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace meshad {
namespace render {

enum class Projection { Orthographic, Perspective };
enum class Shading { Flat, Smooth };

/// A camera: an orthonormal frame (Right, Up, Back: the camera looks along
/// -Back), an eye point and a projection onto a Width x Height image.
struct Camera {
  int Width = 0, Height = 0;
  Projection Proj = Projection::Orthographic;
  double Eye[3] = {0, 0, 0};
  double Right[3] = {1, 0, 0}, Up[3] = {0, 1, 0}, Back[3] = {0, 0, 1};
  /// Pixels per unit (orthographic) or the focal length in pixels
  /// (perspective).
  double Scale = 1;

  /// The camera that sees the bounding sphere of the points X (3 per
  /// point) from the direction given by YawDeg (about +Y) and PitchDeg
  /// (about the camera's right axis): yaw 0, pitch 0 looks along -Z with +X
  /// to the right and +Y up. The sphere fills Fill of the smaller side.
  static Camera fit(const std::vector<double> &X, int Width, int Height,
                    Projection Proj, double YawDeg = 0, double PitchDeg = 0,
                    double Fill = 0.9) {
    double Lo[3], Hi[3];
    for (int K = 0; K < 3; ++K) {
      Lo[K] = std::numeric_limits<double>::max();
      Hi[K] = -Lo[K];
    }
    for (size_t I = 0; I + 2 < X.size(); I += 3)
      for (int K = 0; K < 3; ++K) {
        Lo[K] = std::min(Lo[K], X[I + K]);
        Hi[K] = std::max(Hi[K], X[I + K]);
      }
    double C[3], R = 0;
    for (int K = 0; K < 3; ++K) {
      C[K] = 0.5 * (Lo[K] + Hi[K]);
      R += 0.25 * (Hi[K] - Lo[K]) * (Hi[K] - Lo[K]);
    }
    R = std::max(std::sqrt(R), 1e-12);
    Camera Cam;
    Cam.Width = Width;
    Cam.Height = Height;
    Cam.Proj = Proj;
    const double Deg = 3.14159265358979323846 / 180;
    double Cy = std::cos(YawDeg * Deg), Sy = std::sin(YawDeg * Deg);
    double Cp = std::cos(PitchDeg * Deg), Sp = std::sin(PitchDeg * Deg);
    double Right[3] = {Cy, 0, -Sy};
    double Back[3] = {Sy * Cp, Sp, Cy * Cp};
    double Up[3] = {-Sy * Sp, Cp, -Cy * Sp};
    double Half = 0.5 * Fill * std::min(Width, Height);
    double Dist = 0;
    if (Proj == Projection::Orthographic) {
      Cam.Scale = Half / R;
      Dist = 2 * R;
    } else {
      const double TanHalfFov = std::tan(20 * Deg); // a 40 degree view
      Dist = R / std::sin(20 * Deg);
      Cam.Scale = Half / TanHalfFov;
    }
    for (int K = 0; K < 3; ++K) {
      Cam.Right[K] = Right[K];
      Cam.Up[K] = Up[K];
      Cam.Back[K] = Back[K];
      Cam.Eye[K] = C[K] + Dist * Back[K];
    }
    return Cam;
  }

  /// Screen position (Sx, Sy) in pixels and the depth (distance along the
  /// view direction, smaller is nearer) of the point P.
  void project(const double *P, double &Sx, double &Sy, double &Depth) const {
    double D[3] = {P[0] - Eye[0], P[1] - Eye[1], P[2] - Eye[2]};
    double Xc = dot(D, Right), Yc = dot(D, Up);
    Depth = -dot(D, Back);
    double S = Scale;
    if (Proj == Projection::Perspective)
      S = Scale / std::max(Depth, 1e-12);
    Sx = 0.5 * Width + S * Xc;
    Sy = 0.5 * Height - S * Yc;
  }

  static double dot(const double *A, const double *B) {
    return A[0] * B[0] + A[1] * B[1] + A[2] * B[2];
  }
};

/// What a picture shows and how.
struct RenderOptions {
  Shading Shade = Shading::Flat;
  Rgb Background = {255, 255, 255};
  Rgb Colour = {190, 200, 215};  ///< faces without colours or texture
  const std::vector<Rgb> *VertexColours = nullptr; ///< interpolated
  const std::vector<double> *UV = nullptr; ///< 2 per vertex: a checkerboard
  double CheckerSize = 0.1;      ///< a checker cell's side in UV units
  Rgb CheckerLight = {240, 240, 240}, CheckerDark = {235, 120, 40};
  bool Wireframe = false;
  Rgb WireColour = {40, 40, 40};
  double WireWidth = 0.6;        ///< half-width of wire lines, in pixels
  double Light[3] = {0.3, 0.5, 1}; ///< towards the light, camera frame
  double Ambient = 0.25;
  bool HighlightFlipped = true;  ///< renderUv: flipped triangles in red
  Rgb FlippedColour = {220, 30, 30};
};

namespace detail {

inline Rgb scale(Rgb C, double S) {
  auto F = [S](uint8_t V) {
    return uint8_t(std::min(255.0, std::max(0.0, V * S + 0.5)));
  };
  return {F(C.R), F(C.G), F(C.B)};
}

inline Rgb mix(const Rgb *C, const double *W) {
  double R = 0, G = 0, B = 0;
  for (int J = 0; J < 3; ++J) {
    R += W[J] * C[J].R;
    G += W[J] * C[J].G;
    B += W[J] * C[J].B;
  }
  auto Q = [](double V) { return uint8_t(std::min(255.0, std::max(0.0, V + 0.5))); };
  return {Q(R), Q(G), Q(B)};
}

inline void cross(const double *A, const double *B, double *C) {
  C[0] = A[1] * B[2] - A[2] * B[1];
  C[1] = A[2] * B[0] - A[0] * B[2];
  C[2] = A[0] * B[1] - A[1] * B[0];
}

/// Area-weighted vertex normals (not normalized).
inline std::vector<double> vertexNormals(const std::vector<double> &X,
                                         const std::vector<int> &Tris) {
  std::vector<double> N(X.size(), 0.0);
  for (size_t T = 0; T + 2 < Tris.size(); T += 3) {
    const double *A = &X[3 * Tris[T]], *B = &X[3 * Tris[T + 1]],
                 *C = &X[3 * Tris[T + 2]];
    double E1[3] = {B[0] - A[0], B[1] - A[1], B[2] - A[2]};
    double E2[3] = {C[0] - A[0], C[1] - A[1], C[2] - A[2]};
    double Nt[3];
    cross(E1, E2, Nt);
    for (int J = 0; J < 3; ++J)
      for (int K = 0; K < 3; ++K)
        N[3 * Tris[T + J] + K] += Nt[K];
  }
  return N;
}

/// One triangle on screen: corners (Sx, Sy, Depth, 1/w), what it
/// interpolates, and the z-buffer and image it draws into.
struct ScreenTriangle {
  double Sx[3], Sy[3], Depth[3], InvW[3];
};

/// The base colour at barycentric weights W (perspective-corrected).
struct Surface {
  const RenderOptions &Opt;
  Rgb Colours[3];
  double U[3] = {0, 0, 0}, V[3] = {0, 0, 0};
  bool Textured = false, Coloured = false;

  Rgb at(const double *W) const {
    if (Textured) {
      double Uc = W[0] * U[0] + W[1] * U[1] + W[2] * U[2];
      double Vc = W[0] * V[0] + W[1] * V[1] + W[2] * V[2];
      long Cell = long(std::floor(Uc / Opt.CheckerSize)) +
                  long(std::floor(Vc / Opt.CheckerSize));
      return (Cell & 1) ? Opt.CheckerDark : Opt.CheckerLight;
    }
    return Coloured ? mix(Colours, W) : Opt.Colour;
  }
};

/// Rasterizes T: Shade(W) gives the shading factor at perspective-correct
/// barycentric weights W; the wireframe is drawn within WireWidth pixels of
/// an edge.
template <typename ShadeFn>
void fillTriangle(Image &Img, std::vector<double> &ZBuf,
                  const ScreenTriangle &T, const Surface &S,
                  const RenderOptions &Opt, ShadeFn Shade) {
  double Area = (T.Sx[1] - T.Sx[0]) * (T.Sy[2] - T.Sy[0]) -
                (T.Sx[2] - T.Sx[0]) * (T.Sy[1] - T.Sy[0]);
  if (std::fabs(Area) < 1e-12)
    return;
  int X0 = std::max(0, int(std::floor(std::min({T.Sx[0], T.Sx[1], T.Sx[2]}))));
  int X1 = std::min(Img.width() - 1,
                    int(std::ceil(std::max({T.Sx[0], T.Sx[1], T.Sx[2]}))));
  int Y0 = std::max(0, int(std::floor(std::min({T.Sy[0], T.Sy[1], T.Sy[2]}))));
  int Y1 = std::min(Img.height() - 1,
                    int(std::ceil(std::max({T.Sy[0], T.Sy[1], T.Sy[2]}))));
  double EdgeLen[3];
  for (int J = 0; J < 3; ++J) {
    int A = (J + 1) % 3, B = (J + 2) % 3;
    EdgeLen[J] = std::hypot(T.Sx[B] - T.Sx[A], T.Sy[B] - T.Sy[A]);
  }
  for (int Y = Y0; Y <= Y1; ++Y)
    for (int X = X0; X <= X1; ++X) {
      double Px = X + 0.5, Py = Y + 0.5, L[3];
      for (int J = 0; J < 3; ++J) {
        int A = (J + 1) % 3, B = (J + 2) % 3;
        L[J] = ((T.Sx[B] - T.Sx[A]) * (Py - T.Sy[A]) -
                (Px - T.Sx[A]) * (T.Sy[B] - T.Sy[A])) / Area;
      }
      if (L[0] < 0 || L[1] < 0 || L[2] < 0)
        continue;
      double Z = L[0] * T.Depth[0] + L[1] * T.Depth[1] + L[2] * T.Depth[2];
      double &Zb = ZBuf[size_t(Y) * Img.width() + X];
      if (Z >= Zb)
        continue;
      Zb = Z;
      double W[3], Sum = 0;
      for (int J = 0; J < 3; ++J)
        Sum += W[J] = L[J] * T.InvW[J];
      for (double &Wj : W)
        Wj /= Sum;
      double MinDist = std::numeric_limits<double>::max();
      for (int J = 0; J < 3; ++J)
        MinDist = std::min(MinDist, L[J] * std::fabs(Area) / EdgeLen[J]);
      if (Opt.Wireframe && MinDist < Opt.WireWidth)
        Img.set(X, Y, Opt.WireColour);
      else
        Img.set(X, Y, scale(S.at(W), Shade(W)));
    }
}

inline Surface surfaceOf(const RenderOptions &Opt, const int *Tri) {
  Surface S{Opt, {}};
  S.Textured = Opt.UV != nullptr;
  S.Coloured = Opt.VertexColours != nullptr;
  for (int J = 0; J < 3; ++J) {
    if (S.Textured) {
      S.U[J] = (*Opt.UV)[2 * Tri[J]];
      S.V[J] = (*Opt.UV)[2 * Tri[J] + 1];
    }
    if (S.Coloured)
      S.Colours[J] = (*Opt.VertexColours)[Tri[J]];
  }
  return S;
}

/// Two-sided Lambert: Ambient + (1 - Ambient) |n . l|, n in the camera's
/// frame.
inline double lambert(const Camera &Cam, const RenderOptions &Opt,
                      const double *N) {
  double Len = std::sqrt(Camera::dot(N, N));
  if (Len == 0)
    return 1;
  double Nc[3] = {Camera::dot(N, Cam.Right), Camera::dot(N, Cam.Up),
                  Camera::dot(N, Cam.Back)};
  double L = std::sqrt(Camera::dot(Opt.Light, Opt.Light));
  double C = std::fabs(Camera::dot(Nc, Opt.Light)) / (Len * L);
  return Opt.Ambient + (1 - Opt.Ambient) * C;
}

} // namespace detail

/// The mesh (X: 3 per vertex, Tris: 3 per triangle) seen by Cam.
inline Image renderMesh(const std::vector<double> &X,
                        const std::vector<int> &Tris, const Camera &Cam,
                        const RenderOptions &Opt = {}) {
  Image Img(Cam.Width, Cam.Height, Opt.Background);
  std::vector<double> ZBuf(size_t(Cam.Width) * Cam.Height,
                           std::numeric_limits<double>::max());
  std::vector<double> VN;
  if (Opt.Shade == Shading::Smooth)
    VN = detail::vertexNormals(X, Tris);
  for (size_t T = 0; T + 2 < Tris.size(); T += 3) {
    const int *Tri = &Tris[T];
    detail::ScreenTriangle St;
    bool Behind = false;
    for (int J = 0; J < 3; ++J) {
      Cam.project(&X[3 * Tri[J]], St.Sx[J], St.Sy[J], St.Depth[J]);
      Behind |= Cam.Proj == Projection::Perspective && St.Depth[J] <= 0;
      St.InvW[J] = Cam.Proj == Projection::Perspective ? 1 / St.Depth[J] : 1;
    }
    if (Behind)
      continue;
    detail::Surface S = detail::surfaceOf(Opt, Tri);
    if (Opt.Shade == Shading::Flat) {
      const double *A = &X[3 * Tri[0]], *B = &X[3 * Tri[1]], *C = &X[3 * Tri[2]];
      double E1[3] = {B[0] - A[0], B[1] - A[1], B[2] - A[2]};
      double E2[3] = {C[0] - A[0], C[1] - A[1], C[2] - A[2]}, N[3];
      detail::cross(E1, E2, N);
      double F = detail::lambert(Cam, Opt, N);
      detail::fillTriangle(Img, ZBuf, St, S, Opt, [F](const double *) { return F; });
    } else {
      detail::fillTriangle(Img, ZBuf, St, S, Opt, [&](const double *W) {
        double N[3];
        for (int K = 0; K < 3; ++K)
          N[K] = W[0] * VN[3 * Tri[0] + K] + W[1] * VN[3 * Tri[1] + K] +
                 W[2] * VN[3 * Tri[2] + K];
        return detail::lambert(Cam, Opt, N);
      });
    }
  }
  return Img;
}

/// The 2D layout UV (2 per vertex) of Tris, fitted into Width x Height
/// (axes equal, u to the right, v up): unshaded faces with their texture
/// or colours, the wireframe if asked, and flipped triangles (negative
/// signed area) in FlippedColour when HighlightFlipped.
inline Image renderUv(const std::vector<double> &UV,
                      const std::vector<int> &Tris, int Width, int Height,
                      const RenderOptions &Opt = {}) {
  std::vector<double> X3(3 * (UV.size() / 2));
  for (size_t V = 0; V < UV.size() / 2; ++V) {
    X3[3 * V] = UV[2 * V];
    X3[3 * V + 1] = UV[2 * V + 1];
  }
  Camera Cam = Camera::fit(X3, Width, Height, Projection::Orthographic);
  Image Img(Width, Height, Opt.Background);
  std::vector<double> ZBuf(size_t(Width) * Height,
                           std::numeric_limits<double>::max());
  RenderOptions Flipped = Opt;
  Flipped.UV = nullptr;
  Flipped.VertexColours = nullptr;
  Flipped.Colour = Opt.FlippedColour;
  for (size_t T = 0; T + 2 < Tris.size(); T += 3) {
    const int *Tri = &Tris[T];
    detail::ScreenTriangle St;
    for (int J = 0; J < 3; ++J) {
      Cam.project(&X3[3 * Tri[J]], St.Sx[J], St.Sy[J], St.Depth[J]);
      St.Depth[J] = -double(T); // later triangles draw over earlier ones
      St.InvW[J] = 1;
    }
    const double *A = &UV[2 * Tri[0]], *B = &UV[2 * Tri[1]], *C = &UV[2 * Tri[2]];
    double Signed = (B[0] - A[0]) * (C[1] - A[1]) - (C[0] - A[0]) * (B[1] - A[1]);
    bool Flip = Opt.HighlightFlipped && Signed < 0;
    const RenderOptions &O = Flip ? Flipped : Opt;
    detail::fillTriangle(Img, ZBuf, St, detail::surfaceOf(O, Tri), O,
                         [](const double *) { return 1.0; });
  }
  return Img;
}

} // namespace render
} // namespace meshad

#endif // MESHAD_RUNTIME_RENDER_RASTERIZER_H
