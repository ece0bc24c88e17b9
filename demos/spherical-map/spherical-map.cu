//===- demos/spherical-map/spherical-map.cu - A genus-0 mesh on the sphere ===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
//
// Maps a closed genus-0 mesh (CGAL's cow) one-to-one onto the unit sphere.
// Initial map: one vertex is cut out, the remaining disk gets Tutte's
// embedding, and the inverse stereographic projection takes it to the
// sphere (the cut vertex at the north pole). Then projected Newton on, per
// triangle, with its corners projected onto the sphere (p = y / |y|):
//   - the MIPS energy (conformal distortion) of the map from the 3D rest
//     triangle, area |F|^2 / s, F the 3 x 2 map of the edge vectors and
//     s = sqrt(det(F^T F)) its area ratio (2 area where the map is
//     conformal; scale-invariant);
//   - an area term, lambda area (s + 1/s): MIPS alone crowds the cow's
//     legs and horns into triangles of round-off size (orientations of
//     4e-19, seen flipped by the GPU's fused arithmetic); this keeps them
//     off it;
//   - an orientation barrier, -mu log(p_a . (p_b x p_c)): positive while
//     the triangle is seen counter-clockwise from outside;
//   - a gauge term per vertex, k (|y|^2 - 1)^2, which fixes the radius the
//     projection leaves free.
// The local gradients and Hessians (9 x 9, 3 x 3) are meshad's
// (meshad::gradient, MESHAD_HESSIAN), one thread per element, minimized by
// Riemannian Newton (meshad/runtime/solve): each triangle's Hessian in the
// coordinates on the sphere restricted to its corners' tangent planes
// (SphereTriangleRiemannian, projected to PSD per element) plus, per
// vertex, the sphere's curvature times the summed force
// (SphereMultiplierTerm, SphereMultiplier.h), the exact Hessian after full
// steps (AdaptiveProjection); the line search never leaves the
// barrier's domain: every step stays below the first root of every
// triangle's orientation along it (InjectiveStepSphere), and a flipped
// triangle's energy is NaN. Checks: the energy decreasing
// at every step, no flipped triangle on the sphere, and, near the solution
// (the initial map's triangles can be smaller than a difference step), the
// local derivatives against central differences on random elements, the
// global gradient against those of the total energy, and the Riemannian
// Newton's unprojected Hessian against the exact one. Writes a PNG:
// the mesh | the initial map | the result, coloured by position on the
// mesh.
//
// Usage: spherical-map [MESH [OUT.png [ITERATIONS [LAMBDA [ambient
//                      [cholesky]]]]]]
//   at most ITERATIONS Newton steps (default 100), the area term's weight
//   LAMBDA (default 1e-3); "ambient": each triangle's Hessian in y
//   projected on its own, no multiplier term (the earlier Newton: linear;
//   "riemannian" for the default); "cholesky": Newton's systems by the
//   sparse Cholesky instead of PCG; without arguments,
//   cow.off (demo::meshPath) into spherical-map.png with 15 steps (CI, GPU
//   suite).
//
//===----------------------------------------------------------------------===//

#include "../common/DemoChecks.h"
#include "../common/DemoMesh.h"
#include "SphereMultiplier.h"
#include <meshad/Differentiator.h>
#include <meshad/runtime/MeshIO.h>
#include <meshad/runtime/PsdProjection.h>
#include <meshad/runtime/render/Rasterizer.h>
#include <meshad/runtime/solve/Injectivity.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

/// y: the triangle's corners (a, b, c) before projection onto the sphere;
/// p: Dm^-1 (row-major 2x2), the rest area, the barrier weight mu, the
/// area term's weight lambda.
MESHAD_HESSIAN("y[0:9]")
__host__ __device__ double sphereTriangle(const double *y, const double *p) {
  double q[9];
  for (int j = 0; j < 3; ++j) {
    double r = sqrt(y[3 * j] * y[3 * j] + y[3 * j + 1] * y[3 * j + 1] +
                    y[3 * j + 2] * y[3 * j + 2]);
    q[3 * j] = y[3 * j] / r;
    q[3 * j + 1] = y[3 * j + 1] / r;
    q[3 * j + 2] = y[3 * j + 2] / r;
  }
  double f0x = (q[3] - q[0]) * p[0] + (q[6] - q[0]) * p[2];
  double f0y = (q[4] - q[1]) * p[0] + (q[7] - q[1]) * p[2];
  double f0z = (q[5] - q[2]) * p[0] + (q[8] - q[2]) * p[2];
  double f1x = (q[3] - q[0]) * p[1] + (q[6] - q[0]) * p[3];
  double f1y = (q[4] - q[1]) * p[1] + (q[7] - q[1]) * p[3];
  double f1z = (q[5] - q[2]) * p[1] + (q[8] - q[2]) * p[3];
  double c00 = f0x * f0x + f0y * f0y + f0z * f0z;
  double c11 = f1x * f1x + f1y * f1y + f1z * f1z;
  double c01 = f0x * f1x + f0y * f1y + f0z * f1z;
  double vol = q[0] * (q[4] * q[8] - q[5] * q[7]) +
               q[1] * (q[5] * q[6] - q[3] * q[8]) +
               q[2] * (q[3] * q[7] - q[4] * q[6]);
  double s = sqrt(c00 * c11 - c01 * c01); // the area ratio
  return p[4] * ((c00 + c11) / s + p[6] * (s + 1 / s)) - p[5] * log(vol);
}

/// The same energy of corners q already on the sphere (no projection):
/// what Newton's Hessian is projected in (SphereTriangle::newtonHessian).
MESHAD_HESSIAN("q[0:9]")
__host__ __device__ double sphereTriangleOn(const double *q, const double *p) {
  double f0x = (q[3] - q[0]) * p[0] + (q[6] - q[0]) * p[2];
  double f0y = (q[4] - q[1]) * p[0] + (q[7] - q[1]) * p[2];
  double f0z = (q[5] - q[2]) * p[0] + (q[8] - q[2]) * p[2];
  double f1x = (q[3] - q[0]) * p[1] + (q[6] - q[0]) * p[3];
  double f1y = (q[4] - q[1]) * p[1] + (q[7] - q[1]) * p[3];
  double f1z = (q[5] - q[2]) * p[1] + (q[8] - q[2]) * p[3];
  double c00 = f0x * f0x + f0y * f0y + f0z * f0z;
  double c11 = f1x * f1x + f1y * f1y + f1z * f1z;
  double c01 = f0x * f1x + f0y * f1y + f0z * f1z;
  double vol = q[0] * (q[4] * q[8] - q[5] * q[7]) +
               q[1] * (q[5] * q[6] - q[3] * q[8]) +
               q[2] * (q[3] * q[7] - q[4] * q[6]);
  double s = sqrt(c00 * c11 - c01 * c01);
  return p[4] * ((c00 + c11) / s + p[6] * (s + 1 / s)) - p[5] * log(vol);
}

/// y: a vertex; k: the gauge weight.
MESHAD_HESSIAN("y[0:3]")
__host__ __device__ double radiusGauge(const double *y, double k) {
  double s = y[0] * y[0] + y[1] * y[1] + y[2] * y[2] - 1;
  return k * s * s;
}

/// The local energies of the solver's terms (meshad/runtime/solve/Term.h),
/// their derivatives meshad's (meshad::gradient(f, "y") generates f_grad_0,
/// MESHAD_HESSIAN the Hessians). p[0] is the gauge's weight.
struct SphereTriangle {
  static constexpr int Arity = 3, Dofs = 3;
  __host__ __device__ static double energy(const double *y, const double *p) {
    return sphereTriangle(y, p);
  }
  __host__ __device__ static void gradient(const double *y, const double *p,
                                           double *g) {
    sphereTriangle_grad_0(y, p, g);
  }
  __host__ __device__ static void hessian(const double *y, const double *p,
                                          double *H) {
    sphereTriangle_hessian_0(y, p, H);
  }
};

/// Newton's triangle term on the sphere: SphereTriangle's energy and
/// gradient, and as its Hessian J^T H_q J, the Hessian of sphereTriangleOn
/// in the coordinates on the sphere restricted to the corners' tangent
/// planes, J = (I - q q^T) / |y| per corner (the solver projects it to PSD
/// per element). The exact y-Hessian adds the element's gradient times the
/// projection's curvature, indefinite for every element and cancelling, to
/// the sphere's multiplier, only in the sum: SphereMultiplierTerm adds the
/// summed one (SphereMultiplier.h).
struct SphereTriangleRiemannian : SphereTriangle {
  __host__ __device__ static void hessian(const double *y, const double *p,
                                          double *H) {
    double q[9], J[3][9], Hq[81];
    for (int C = 0; C < 3; ++C) {
      const double *Y = y + 3 * C;
      double R = sqrt(Y[0] * Y[0] + Y[1] * Y[1] + Y[2] * Y[2]);
      for (int K = 0; K < 3; ++K)
        q[3 * C + K] = Y[K] / R;
      for (int A = 0; A < 3; ++A)
        for (int B = 0; B < 3; ++B)
          J[C][3 * A + B] = ((A == B) - q[3 * C + A] * q[3 * C + B]) / R;
    }
    sphereTriangleOn_hessian_0(q, p, Hq);
    for (int I = 0; I < 9; ++I) // (J^T Hq J)_IL, J block diagonal, symmetric
      for (int L = 0; L < 9; ++L) {
        double S = 0;
        for (int A = 0; A < 3; ++A)
          for (int B = 0; B < 3; ++B)
            S += J[I / 3][3 * (I % 3) + A] * Hq[(3 * (I / 3) + A) * 9 +
                                                3 * (L / 3) + B] *
                 J[L / 3][3 * B + L % 3];
        H[I * 9 + L] = S;
      }
  }
};

/// sphereTriangleOn as a local energy, for its derivative checks.
struct SphereTriangleOn {
  static constexpr int Arity = 3, Dofs = 3;
  __host__ __device__ static double energy(const double *q, const double *p) {
    return sphereTriangleOn(q, p);
  }
  __host__ __device__ static void gradient(const double *q, const double *p,
                                           double *g) {
    sphereTriangleOn_grad_0(q, p, g);
  }
  __host__ __device__ static void hessian(const double *q, const double *p,
                                          double *H) {
    sphereTriangleOn_hessian_0(q, p, H);
  }
};

struct RadiusGauge {
  static constexpr int Arity = 1, Dofs = 3;
  __host__ __device__ static double energy(const double *y, const double *p) {
    return radiusGauge(y, p[0]);
  }
  __host__ __device__ static void gradient(const double *y, const double *p,
                                           double *g) {
    radiusGauge_grad_0(y, p[0], g);
  }
  __host__ __device__ static void hessian(const double *y, const double *p,
                                          double *H) {
    radiusGauge_hessian_0(y, p[0], H);
  }
};

namespace mt = meshad::test;
namespace rt = meshad::runtime;
namespace rd = meshad::render;
namespace sv = meshad::runtime::solve;

/// Parameters per triangle: Dm^-1, the rest area, the barrier weight, the
/// area term's weight.
constexpr int NumParams = 7;

/// Dm^-1, the rest area, the barrier weight and the area term's weight of
/// each triangle.
static std::vector<double> restParams(const rt::TriMesh &M, double Mu,
                                      double Lambda) {
  std::vector<double> P;
  for (int T = 0; T < M.numTriangles(); ++T) {
    const double *A = &M.X[3 * M.Tris[3 * T]], *B = &M.X[3 * M.Tris[3 * T + 1]],
                 *C = &M.X[3 * M.Tris[3 * T + 2]];
    double Uu = 0, Uv = 0, Vv = 0;
    for (int K = 0; K < 3; ++K) {
      Uu += (B[K] - A[K]) * (B[K] - A[K]);
      Uv += (B[K] - A[K]) * (C[K] - A[K]);
      Vv += (C[K] - A[K]) * (C[K] - A[K]);
    }
    double L = std::sqrt(Uu), X2 = Uv / L, Y2 = std::sqrt(std::max(Vv - X2 * X2, 0.0));
    P.insert(P.end(),
             {1 / L, -X2 / (L * Y2), 0, 1 / Y2, 0.5 * L * Y2, Mu, Lambda});
  }
  return P;
}

/// The initial map: vertex 0 cut out, Tutte's embedding of the rest (its
/// boundary, vertex 0's link, on a circle), scaled by R, the inverse
/// stereographic projection, vertex 0 at the north pole.
static std::vector<double> initialMap(const rt::TriMesh &M) {
  rt::TriMesh Disk;
  Disk.X = M.X;
  for (int T = 0; T < M.numTriangles(); ++T) {
    const int *Tri = &M.Tris[3 * T];
    if (Tri[0] != 0 && Tri[1] != 0 && Tri[2] != 0)
      Disk.Tris.insert(Disk.Tris.end(), Tri, Tri + 3);
  }
  std::vector<int> Loop = demo::boundaryLoop(Disk);
  std::vector<double> UV = demo::tutte(Disk, Loop, demo::TutteWeights::Uniform);
  // Scaled so that half the vertices land on each hemisphere (Tutte's
  // embedding crowds the interior near the centre).
  std::vector<double> Radii;
  for (int V = 1; V < M.numVertices(); ++V)
    Radii.push_back(std::hypot(UV[2 * V], UV[2 * V + 1]));
  std::nth_element(Radii.begin(), Radii.begin() + Radii.size() / 2, Radii.end());
  double R = 1 / std::max(Radii[Radii.size() / 2], 1e-12);
  std::vector<double> Y(M.X.size());
  for (int V = 0; V < M.numVertices(); ++V) {
    double U = R * UV[2 * V], W = -R * UV[2 * V + 1], S = U * U + W * W;
    Y[3 * V] = 2 * U / (1 + S);
    Y[3 * V + 1] = 2 * W / (1 + S);
    Y[3 * V + 2] = (S - 1) / (1 + S);
  }
  Y[0] = Y[1] = 0;
  Y[2] = 1;
  if (demo::countFlippedSphere(Y, M.Tris) > M.numTriangles() / 2)
    for (int V = 0; V < M.numVertices(); ++V)
      Y[3 * V + 1] = -Y[3 * V + 1]; // a mirror image: turn it around
  return Y;
}

/// Triangle T's shortest edge in Y.
static double shortestEdge(const std::vector<double> &Y, const int *Tri) {
  double Min = 1e300;
  for (int J = 0; J < 3; ++J) {
    double L = 0;
    for (int K = 0; K < 3; ++K)
      L += std::pow(Y[3 * Tri[J] + K] - Y[3 * Tri[(J + 1) % 3] + K], 2);
    Min = std::min(Min, std::sqrt(L));
  }
  return Min;
}

/// The orientation a . (b x c) of a triangle's corners Y[3 v + k], and in
/// Grad its derivatives (b x c, c x a, a x b).
static double orientation(const double *Ya, const double *Yb, const double *Yc,
                          double *Grad) {
  const double *C[3] = {Ya, Yb, Yc};
  for (int J = 0; J < 3; ++J) {
    const double *U = C[(J + 1) % 3], *W = C[(J + 2) % 3];
    Grad[3 * J] = U[1] * W[2] - U[2] * W[1];
    Grad[3 * J + 1] = U[2] * W[0] - U[0] * W[2];
    Grad[3 * J + 2] = U[0] * W[1] - U[1] * W[0];
  }
  return Ya[0] * Grad[0] + Ya[1] * Grad[1] + Ya[2] * Grad[2];
}

/// True when a central difference in local DOF \p Dof of the triangle
/// (the stencil's steps up to 2e-3 max(1, |y|), NumericCheck.h) changes its
/// orientation by at most a tenth: the barrier's log is smooth over the
/// stencil, and no step crosses it (the NaN differences of the GPU run).
static bool farFromBarrier(const double *Ya, const double *Yb, const double *Yc,
                           int Dof) {
  const double *C[3] = {Ya, Yb, Yc};
  double Grad[9], Vol = orientation(Ya, Yb, Yc, Grad);
  double Step = 2e-3 * std::max(1.0, std::fabs(C[Dof / 3][Dof % 3]));
  return Vol > 0 && Step * std::fabs(Grad[Dof]) <= 0.1 * Vol;
}

static std::vector<double> onSphere(std::vector<double> Y);

/// The Riemannian Newton's unprojected Hessian (the triangles' J^T H_q J
/// and SphereMultiplierTerm's per-vertex blocks) against the exact Hessian
/// of the triangles' energy in y (meshad's sphereTriangle_hessian_0, itself
/// checked against differences of the gradient) at Y off the sphere:
/// u^T H v for random u, v.
static void checkRiemannianHessian(const std::vector<double> &Y,
                                   const std::vector<int> &Tris,
                                   const std::vector<double> &Params,
                                   mt::RandomInputs &Rng) {
  int NT = int(Tris.size() / 3), NV = int(Y.size() / 3);
  std::vector<int> Vertices(NV);
  for (int V = 0; V < NV; ++V)
    Vertices[V] = V;
  sv::DeviceBuffer<int> T, Verts;
  sv::DeviceBuffer<double> Prm, X, U, V, Hu;
  T.upload(Tris);
  Verts.upload(Vertices);
  Prm.upload(Params);
  X.upload(Y);
  sv::Problem<double> Exact(NV, 3), Riemannian(NV, 3);
  Exact.add<SphereTriangle>(T.data(), NT, Prm.data(), NumParams);
  Riemannian.add<SphereTriangleRiemannian>(T.data(), NT, Prm.data(), NumParams);
  Riemannian.add(std::make_unique<demo::SphereMultiplierTerm<SphereTriangleOn>>(
      T.data(), NT, Prm.data(), NumParams, Verts.data(), NV));
  for (int K = 0; K < 3; ++K) {
    std::vector<double> Ul(3 * NV), Vl(3 * NV);
    for (int I = 0; I < 3 * NV; ++I) {
      Ul[I] = Rng.uniform(-1, 1);
      Vl[I] = Rng.uniform(-1, 1);
    }
    U.upload(Ul);
    V.upload(Vl);
    Hu.resize(3 * NV);
    double Products[2];
    sv::Problem<double> *Ps[2] = {&Exact, &Riemannian};
    for (int J = 0; J < 2; ++J) {
      Ps[J]->hvp(X.data(), U.data(), Hu.data(), /*Project=*/false);
      Products[J] = sv::dot(3L * NV, V.data(), static_cast<const double *>(Hu.data()));
    }
    MESHAD_CHECK_CLOSE("Riemannian Hessian v^T H u, pair " + std::to_string(K),
                       Products[1], Products[0]);
  }
}

/// Element derivatives (unprojected) of random triangles, their corners
/// jittered by a tenth of the triangle's shortest edge within the sphere
/// and scaled off it (so that no derivative is at the solution and the
/// gauge term's are not zero), and the global gradient at the solution
/// scaled off the sphere; only where every difference stays far from the
/// barrier (farFromBarrier: tiny or thin triangles are skipped).
static void checkDerivatives(sv::Problem<double> &P, const std::vector<double> &Y,
                             const std::vector<int> &Tris,
                             const std::vector<double> &Params, double K) {
  mt::RandomInputs Rng;
  auto GradT = meshad::gradient(sphereTriangle, "y");
  auto GradOn = meshad::gradient(sphereTriangleOn, "q");
  auto GradV = meshad::gradient(radiusGauge, "y");
  int NT = int(Tris.size() / 3), NV = int(Y.size() / 3);
  for (int C = 0, Tries = 0; C < 3 && Tries < 100000; ++Tries) {
    int T = int(Rng.uniform(0, NT - 1e-9));
    const int *Tri = &Tris[3 * T];
    double Jitter = 0.1 * shortestEdge(Y, Tri);
    std::vector<double> Yl(9);
    for (int J = 0; J < 3; ++J) {
      double S = Rng.uniform(0.9, 1.1);
      for (int D = 0; D < 3; ++D)
        Yl[3 * J + D] = S * (Y[3 * Tri[J] + D] + Rng.uniform(-Jitter, Jitter));
    }
    bool Safe = true;
    for (int D = 0; D < 9; ++D)
      Safe &= farFromBarrier(&Yl[0], &Yl[3], &Yl[6], D);
    if (!Safe)
      continue;
    ++C;
    const double *Prm = &Params[NumParams * T];
    demo::checkLocal<SphereTriangle>(
        "triangle " + std::to_string(T), Yl, Prm,
        [&](double *Q, double *G) { GradT.execute(Q, Prm, G); });
    std::vector<double> Ql = onSphere(Yl);
    demo::checkLocal<SphereTriangleOn>(
        "triangle on the sphere " + std::to_string(T), Ql, Prm,
        [&](double *Q, double *G) { GradOn.execute(Q, Prm, G); });
    std::vector<double> Yv(Yl.begin(), Yl.begin() + 3);
    demo::checkLocal<RadiusGauge>(
        "vertex " + std::to_string(Tri[0]), Yv, &K,
        [&](double *Q, double *G) { GradV.execute(Q, K, G); });
  }
  std::vector<double> Ys = Y;
  for (int V = 0; V < NV; ++V) {
    double S = Rng.uniform(0.9, 1.1);
    for (int D = 0; D < 3; ++D)
      Ys[3 * V + D] *= S;
  }
  std::vector<char> Safe(3 * NV, 1);
  for (int T = 0; T < NT; ++T)
    for (int J = 0; J < 9; ++J) {
      const int *Tri = &Tris[3 * T];
      Safe[3 * Tri[J / 3] + J % 3] &= farFromBarrier(
          &Ys[3 * Tri[0]], &Ys[3 * Tri[1]], &Ys[3 * Tri[2]], J);
    }
  std::vector<int> Candidates;
  for (int D = 0; D < 3 * NV; ++D)
    if (Safe[D])
      Candidates.push_back(D);
  std::printf("derivative checks: %zu of %d DOFs far enough from the barrier\n",
              Candidates.size(), 3 * NV);
  demo::checkGlobalGradient(P, Ys, 6, Rng, &Candidates);
  checkRiemannianHessian(Ys, Tris, Params, Rng);
}

/// Colours by position in the mesh's bounding box (x, y, z as red, green,
/// blue), so that the parts of the mesh can be found on the sphere.
static std::vector<rd::Rgb> positionColours(const rt::TriMesh &M) {
  double Lo[3] = {1e300, 1e300, 1e300}, Hi[3] = {-1e300, -1e300, -1e300};
  for (int V = 0; V < M.numVertices(); ++V)
    for (int K = 0; K < 3; ++K) {
      Lo[K] = std::min(Lo[K], M.X[3 * V + K]);
      Hi[K] = std::max(Hi[K], M.X[3 * V + K]);
    }
  std::vector<rd::Rgb> C(M.numVertices());
  auto Channel = [&](int V, int K) {
    return uint8_t(30 + 225 * (M.X[3 * V + K] - Lo[K]) / std::max(Hi[K] - Lo[K], 1e-30));
  };
  for (int V = 0; V < M.numVertices(); ++V)
    C[V] = {Channel(V, 0), Channel(V, 1), Channel(V, 2)};
  return C;
}

static void writePicture(const rt::TriMesh &M, const std::vector<double> &Init,
                         const std::vector<double> &Sphere, const char *Path) {
  const int S = 360;
  std::vector<rd::Rgb> Colours = positionColours(M);
  rd::RenderOptions Opt;
  Opt.VertexColours = &Colours;
  Opt.Wireframe = M.numTriangles() <= 8000;
  Opt.WireWidth = 0.4;
  rd::Camera Cam = rd::Camera::fit(M.X, S, S, rd::Projection::Perspective, 30, 15);
  rd::Image Mesh = rd::renderMesh(M.X, M.Tris, Cam, Opt);
  rd::Camera SCam = rd::Camera::fit(Sphere, S, S, rd::Projection::Perspective, 30, 15);
  rd::Image Start = rd::renderMesh(Init, M.Tris, SCam, Opt);
  rd::Image Result = rd::renderMesh(Sphere, M.Tris, SCam, Opt);
  rd::writePng(Path, rd::sideBySide({Mesh, Start, Result}));
  std::printf("wrote %s\n", Path);
}

/// Each vertex projected onto the unit sphere.
static std::vector<double> onSphere(std::vector<double> Y) {
  for (size_t V = 0; V < Y.size(); V += 3) {
    double R = std::sqrt(Y[V] * Y[V] + Y[V + 1] * Y[V + 1] + Y[V + 2] * Y[V + 2]);
    for (int K = 0; K < 3; ++K)
      Y[V + K] /= R;
  }
  return Y;
}

int main(int Argc, char **Argv) {
  rt::TriMesh M =
      rt::readTriMesh(demo::argOr(Argc, Argv, 1, demo::meshPath("cow.off")));
  demo::normalizeArea(M, 4 * 3.14159265358979323846); // the sphere's area
  std::printf("%d vertices, %d triangles, Euler characteristic %d\n",
              M.numVertices(), M.numTriangles(), demo::eulerCharacteristic(M));
  std::vector<double> Init = initialMap(M);
  int InitFlips = demo::countFlippedSphere(Init, M.Tris);
  MESHAD_CHECK_CLOSE("initial map: flipped triangles", double(InitFlips), 0.0);

  const double K = 1.0; // the gauge's weight
  const double AreaWeight = std::atof(demo::argOr(Argc, Argv, 4, "1e-3").c_str());
  std::vector<double> Params =
      restParams(M, /*Mu=*/1e-3 * 4 * 3.14159265358979323846 / M.numTriangles(),
                 /*Lambda=*/AreaWeight);
  std::vector<int> Vertices(M.numVertices());
  for (int V = 0; V < M.numVertices(); ++V)
    Vertices[V] = V;
  sv::DeviceBuffer<int> Tris, Verts;
  sv::DeviceBuffer<double> Prm, KBuf, Yd;
  Tris.upload(M.Tris);
  Verts.upload(Vertices);
  Prm.upload(Params);
  KBuf.upload(std::vector<double>{K});
  sv::Problem<double> P(M.numVertices(), 3);
  // Default: Riemannian Newton (the triangles' Hessians on the tangent
  // planes, projected per element, and the summed multiplier term);
  // "ambient": each triangle's y-Hessian projected on its own (linear).
  bool Ambient = demo::argOr(Argc, Argv, 5, "riemannian") == "ambient";
  if (Ambient) {
    P.add<SphereTriangle>(Tris.data(), M.numTriangles(), Prm.data(), NumParams);
  } else {
    P.add<SphereTriangleRiemannian>(Tris.data(), M.numTriangles(), Prm.data(),
                                    NumParams);
    P.add(std::make_unique<demo::SphereMultiplierTerm<SphereTriangleOn>>(
        Tris.data(), M.numTriangles(), Prm.data(), NumParams, Verts.data(),
        M.numVertices()));
  }
  P.add<RadiusGauge>(Verts.data(), M.numVertices(), KBuf.data(), 0);

  // A flipped triangle makes the barrier's log NaN (or +infinity): the line
  // search rejects the step.
  sv::SolveOptions<double> Opt;
  Opt.MaxIterations =
      std::atoi(demo::argOr(Argc, Argv, 3, Argc > 1 ? "100" : "15").c_str());
  Opt.GradientTolerance = 1e-6;
  Opt.InexactNewton = true;
  Opt.Cg = {1e-6, 1000};
  // No step may flip a triangle on the sphere, not even one that a later,
  // shorter step would unflip: the line search starts below the first
  // root of every triangle's orientation along the step.
  sv::InjectiveStepSphere<double> NoFlip(Tris.data(), M.numTriangles());
  Opt.MaxStep = NoFlip;
  // Riemannian: after a full step, the exact Hessian first (the
  // multiplier term then holds the cross terms too), the projected one
  // where CG meets negative curvature.
  Opt.AdaptiveProjection = !Ambient;
  // "cholesky" (sixth argument): Newton's systems by the sparse Cholesky
  // (SparseCholesky.h) instead of PCG.
  if (demo::argOr(Argc, Argv, 6, "pcg") == "cholesky")
    Opt.Linear = sv::LinearSolver::Cholesky;
  Yd.upload(Init);
  sv::SolveReport R = sv::newton(P, Yd.data(), Opt);
  std::printf("spherical-map: stop: %s after %d Newton iterations\n",
              sv::toString(R.Reason), R.Iterations);
  std::vector<double> Y = Yd.download();
  demo::checkDecreasing(R);
  checkDerivatives(P, Y, M.Tris, Params, K);
  std::vector<double> Sphere = onSphere(Y);
  double MinVol = 1e300;
  for (int T = 0; T < M.numTriangles(); ++T)
    MinVol = std::min(MinVol, demo::orientation3D(Sphere.data(), &M.Tris[3 * T]));
  std::printf("smallest orientation on the sphere %.3e\n", MinVol);
  int Flips = demo::countFlippedSphere(Sphere, M.Tris);
  MESHAD_CHECK_CLOSE("on the sphere: flipped triangles", double(Flips), 0.0);
  std::printf("energy %.6f -> %.6f, %d flipped on the sphere\n",
              R.Energies.front(), R.Energies.back(), Flips);
  writePicture(M, onSphere(Init), Sphere,
               demo::argOr(Argc, Argv, 2, "spherical-map.png").c_str());
  int Rc = mt::summary();
  std::puts(Rc == 0 ? "spherical-map: OK" : "spherical-map: FAILED");
  return Rc;
}
