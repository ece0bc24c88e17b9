//===- demos/smoothing/smoothing.cu - Denoising a real mesh ---------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
//
// Smooths a noisy real mesh (CGAL's bunny with noise along the normals):
// Newton (meshad/runtime/solve) on the sum of two terms, each an element
// energy whose local gradient and Hessian meshad generates
// (meshad::gradient, MESHAD_HESSIAN), one thread per element:
//   - per edge, a Laplacian-style membrane term w |x_a - x_b|^2;
//   - per vertex, a robust data term (pseudo-Huber) that keeps each vertex
//     near its noisy position: l (sqrt(|x - x0|^2 + d^2) - d).
// Checks: the local derivatives against central differences on random
// elements, the global gradient against those of the total energy, the
// energy decreasing at every step, and the result closer to the clean mesh
// than the noisy one, with fewer triangles turned against their clean
// normals. Writes a PNG: noisy | smoothed.
//
// Usage: smoothing [MESH [TRIANGLES [OUT.png]]]
//   TRIANGLES > 0 takes a disk-shaped patch of that many triangles, 0 the
//   whole mesh; without arguments, the whole cow.off (demo::meshPath) into
//   smoothing.png (CI, GPU suite).
//
//===----------------------------------------------------------------------===//

#include "../common/DemoChecks.h"
#include "../common/DemoMesh.h"
#include <meshad/Differentiator.h>
#include <meshad/runtime/MeshIO.h>
#include <meshad/runtime/render/Rasterizer.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

/// x: the edge's two vertices; w: its weight.
MESHAD_HESSIAN("x[0:6]")
__host__ __device__ double membrane(const double *x, double w) {
  double dx = x[0] - x[3], dy = x[1] - x[4], dz = x[2] - x[5];
  return w * (dx * dx + dy * dy + dz * dz);
}

/// x: a vertex; p: its noisy position, the weight l and the scale d.
MESHAD_HESSIAN("x[0:3]")
__host__ __device__ double dataTerm(const double *x, const double *p) {
  double dx = x[0] - p[0], dy = x[1] - p[1], dz = x[2] - p[2];
  return p[3] * (sqrt(dx * dx + dy * dy + dz * dz + p[4] * p[4]) - p[4]);
}

/// The local energies of the solver's terms (meshad/runtime/solve/Term.h),
/// their derivatives meshad's (meshad::gradient(f, "x") generates f_grad_0,
/// MESHAD_HESSIAN the Hessians). p[0] is the membrane's weight.
struct Membrane {
  static constexpr int Arity = 2, Dofs = 3;
  __host__ __device__ static double energy(const double *x, const double *p) {
    return membrane(x, p[0]);
  }
  __host__ __device__ static void gradient(const double *x, const double *p,
                                           double *g) {
    membrane_grad_0(x, p[0], g);
  }
  __host__ __device__ static void hessian(const double *x, const double *p,
                                          double *H) {
    membrane_hessian_0(x, p[0], H);
  }
};

struct DataTerm {
  static constexpr int Arity = 1, Dofs = 3;
  __host__ __device__ static double energy(const double *x, const double *p) {
    return dataTerm(x, p);
  }
  __host__ __device__ static void gradient(const double *x, const double *p,
                                           double *g) {
    dataTerm_grad_0(x, p, g);
  }
  __host__ __device__ static void hessian(const double *x, const double *p,
                                          double *H) {
    dataTerm_hessian_0(x, p, H);
  }
};

namespace mt = meshad::test;
namespace rt = meshad::runtime;
namespace rd = meshad::render;
namespace sv = meshad::runtime::solve;

static double meanEdgeLength(const rt::TriMesh &M, const std::vector<int> &Edges) {
  double Mean = 0;
  for (size_t E = 0; E < Edges.size(); E += 2) {
    double L = 0;
    for (int K = 0; K < 3; ++K)
      L += std::pow(M.X[3 * Edges[E] + K] - M.X[3 * Edges[E + 1] + K], 2);
    Mean += std::sqrt(L) / (Edges.size() / 2);
  }
  return Mean;
}

/// Unit area-weighted vertex normals.
static std::vector<double> vertexNormals(const rt::TriMesh &M) {
  std::vector<double> N(M.X.size(), 0.0);
  for (int T = 0; T < M.numTriangles(); ++T) {
    const int *Tri = &M.Tris[3 * T];
    double U[3], V[3];
    for (int K = 0; K < 3; ++K) {
      U[K] = M.X[3 * Tri[1] + K] - M.X[3 * Tri[0] + K];
      V[K] = M.X[3 * Tri[2] + K] - M.X[3 * Tri[0] + K];
    }
    for (int J = 0; J < 3; ++J)
      for (int K = 0; K < 3; ++K)
        N[3 * Tri[J] + K] += U[(K + 1) % 3] * V[(K + 2) % 3] - U[(K + 2) % 3] * V[(K + 1) % 3];
  }
  for (size_t V = 0; V < N.size(); V += 3) {
    double L = std::sqrt(N[V] * N[V] + N[V + 1] * N[V + 1] + N[V + 2] * N[V + 2]);
    for (int K = 0; K < 3; ++K)
      N[V + K] /= std::max(L, 1e-30);
  }
  return N;
}

/// Noise along the unit normals N, uniform in [-Amplitude, Amplitude].
static std::vector<double> addNoise(const rt::TriMesh &M,
                                    const std::vector<double> &N,
                                    double Amplitude, mt::RandomInputs &Rng) {
  std::vector<double> X = M.X;
  for (int V = 0; V < M.numVertices(); ++V) {
    double S = Rng.uniform(-Amplitude, Amplitude);
    for (int K = 0; K < 3; ++K)
      X[3 * V + K] += S * N[3 * V + K];
  }
  return X;
}

/// RMS distance of X's vertices to the clean mesh's along its normals (the
/// noise's direction; the membrane also slides vertices within the
/// surface, which does not change its shape).
static double normalError(const std::vector<double> &X, const rt::TriMesh &Clean,
                          const std::vector<double> &N) {
  double S = 0;
  for (size_t V = 0; V < X.size(); V += 3) {
    double D = 0;
    for (int K = 0; K < 3; ++K)
      D += (X[V + K] - Clean.X[V + K]) * N[V + K];
    S += D * D;
  }
  return std::sqrt(S / (X.size() / 3));
}

/// Triangles whose normal turned more than 90 degrees from the clean one.
static int turnedTriangles(const std::vector<double> &X, const rt::TriMesh &Clean) {
  int N = 0;
  for (int T = 0; T < Clean.numTriangles(); ++T) {
    const int *Tri = &Clean.Tris[3 * T];
    double Nn[2][3];
    for (int S = 0; S < 2; ++S) {
      const std::vector<double> &P = S ? X : Clean.X;
      double U[3], V[3];
      for (int K = 0; K < 3; ++K) {
        U[K] = P[3 * Tri[1] + K] - P[3 * Tri[0] + K];
        V[K] = P[3 * Tri[2] + K] - P[3 * Tri[0] + K];
      }
      for (int K = 0; K < 3; ++K)
        Nn[S][K] = U[(K + 1) % 3] * V[(K + 2) % 3] - U[(K + 2) % 3] * V[(K + 1) % 3];
    }
    N += Nn[0][0] * Nn[1][0] + Nn[0][1] * Nn[1][1] + Nn[0][2] * Nn[1][2] <= 0;
  }
  return N;
}

/// The local derivatives of random edges and vertices (moved off the data
/// term's minimum), and the global gradient.
static void checkDerivatives(sv::Problem<double> &P, const std::vector<double> &X,
                             const std::vector<int> &Edges, double W,
                             const std::vector<double> &Params) {
  mt::RandomInputs Rng;
  auto GradM = meshad::gradient(membrane, "x");
  auto GradD = meshad::gradient(dataTerm, "x");
  int NE = int(Edges.size() / 2), NV = int(X.size() / 3);
  for (int C = 0; C < 3; ++C) {
    int E = int(Rng.uniform(0, NE - 1e-9));
    std::vector<double> Xl(6);
    for (int J = 0; J < 2; ++J)
      for (int K = 0; K < 3; ++K)
        Xl[3 * J + K] = X[3 * Edges[2 * E + J] + K];
    demo::checkLocal<Membrane>(
        "edge " + std::to_string(E), Xl, &W,
        [&](double *Q, double *G) { GradM.execute(Q, W, G); });
    int V = int(Rng.uniform(0, NV - 1e-9));
    const double *Prm = &Params[5 * V];
    std::vector<double> Xv(&X[3 * V], &X[3 * V] + 3);
    for (double &Q : Xv)
      Q += Rng.uniform(-1, 1) * Prm[4];
    demo::checkLocal<DataTerm>(
        "vertex " + std::to_string(V), Xv, Prm,
        [&](double *Q, double *G) { GradD.execute(Q, Prm, G); });
  }
  std::vector<double> Xs = X; // off the data term's minimum
  for (double &Q : Xs)
    Q += Rng.uniform(-1, 1) * Params[4];
  demo::checkGlobalGradient(P, Xs, 6, Rng);
}

static void writePicture(const rt::TriMesh &M, const std::vector<double> &Noisy,
                         const std::vector<double> &Smooth, const char *Path) {
  const int S = 360;
  rd::RenderOptions Opt;
  rd::Camera Cam = rd::Camera::fit(M.X, S, S, rd::Projection::Perspective, 0, 0);
  rd::Image Before = rd::renderMesh(Noisy, M.Tris, Cam, Opt);
  rd::Image After = rd::renderMesh(Smooth, M.Tris, Cam, Opt);
  rd::writePng(Path, rd::sideBySide({Before, After}));
  std::printf("wrote %s\n", Path);
}

int main(int Argc, char **Argv) {
  rt::TriMesh M =
      rt::readTriMesh(demo::argOr(Argc, Argv, 1, demo::meshPath("cow.off")));
  int Patch = std::atoi(demo::argOr(Argc, Argv, 2, "0").c_str());
  if (Patch > 0)
    M = demo::diskPatch(M, Patch);
  demo::normalizeArea(M, 4 * 3.14159265358979323846);
  rt::MeshTopology Top = rt::buildTopology(M);
  std::printf("%d vertices, %d triangles, %d edges\n", M.numVertices(),
              M.numTriangles(), Top.numEdges());
  mt::RandomInputs Rng;
  // Noise up to half an edge; the data term's pull is bounded by l (it is
  // nearly |x - x0| l past d): the membrane's pull on a noisy vertex, about
  // 2 w (valence) (noise), overcomes it, that on a smooth curved patch
  // (about 2 w (valence) curvature edge^2) mostly does not.
  double Edge = meanEdgeLength(M, Top.Edges);
  std::vector<double> Normals = vertexNormals(M);
  std::vector<double> Noisy = addNoise(M, Normals, 0.5 * Edge, Rng);
  std::vector<double> Params;
  for (int V = 0; V < M.numVertices(); ++V)
    Params.insert(Params.end(), {Noisy[3 * V], Noisy[3 * V + 1],
                                 Noisy[3 * V + 2], 3 * Edge, 0.1 * Edge});
  const double W = 1.0; // the membrane's weight
  std::vector<int> Vertices(M.numVertices());
  for (int V = 0; V < M.numVertices(); ++V)
    Vertices[V] = V;
  sv::DeviceBuffer<int> Edges, Verts;
  sv::DeviceBuffer<double> WBuf, Prm, X;
  Edges.upload(Top.Edges);
  Verts.upload(Vertices);
  WBuf.upload(std::vector<double>{W});
  Prm.upload(Params);
  sv::Problem<double> P(M.numVertices(), 3);
  P.add<Membrane>(Edges.data(), Top.numEdges(), WBuf.data(), 0);
  P.add<DataTerm>(Verts.data(), M.numVertices(), Prm.data(), 5);
  checkDerivatives(P, Noisy, Top.Edges, W, Params);

  sv::SolveOptions<double> Opt;
  Opt.MaxIterations = 30;
  Opt.GradientTolerance = 1e-7;
  Opt.InexactNewton = true;
  X.upload(Noisy);
  sv::SolveReport R = sv::newton(P, X.data(), Opt);
  std::vector<double> Xs = X.download();
  demo::checkDecreasing(R);
  double ErrNoisy = normalError(Noisy, M, Normals),
         ErrSmooth = normalError(Xs, M, Normals);
  int TurnedNoisy = turnedTriangles(Noisy, M), TurnedSmooth = turnedTriangles(Xs, M);
  std::printf("energy %.6f -> %.6f; RMS distance to the clean mesh along its "
              "normals %.5f -> %.5f; triangles turned from their clean normal %d -> %d\n",
              R.Energies.front(), R.Energies.back(), ErrNoisy, ErrSmooth,
              TurnedNoisy, TurnedSmooth);
  MESHAD_CHECK_CLOSE("closer to the clean mesh", double(ErrSmooth < ErrNoisy), 1.0);
  MESHAD_CHECK_CLOSE("no more turned triangles",
                     double(TurnedSmooth <= TurnedNoisy), 1.0);
  writePicture(M, Noisy, Xs, demo::argOr(Argc, Argv, 3, "smoothing.png").c_str());
  int Rc = mt::summary();
  std::puts(Rc == 0 ? "smoothing: OK" : "smoothing: FAILED");
  return Rc;
}
