//===- demos/smoothing/smoothing.cu - Denoising a real mesh ---------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
//
// Smooths a noisy real mesh (CGAL's bunny with noise along the normals):
// projected Newton on the sum of two terms, each an element energy whose
// local gradient and Hessian meshad generates (meshad::gradient,
// MESHAD_HESSIAN), evaluated one thread per element:
//   - per edge, a Laplacian-style membrane term w |x_a - x_b|^2;
//   - per vertex, a robust data term (pseudo-Huber) that keeps each vertex
//     near its noisy position: l (sqrt(|x - x0|^2 + d^2) - d).
// Checks: the element derivatives against central differences on random
// elements, the assembled gradient against those of the total energy, the
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
#include "KernelCheck.h"
#include <meshad/Differentiator.h>
#include <meshad/runtime/MeshIO.h>
#include <meshad/runtime/PsdProjection.h>
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

/// Thread e: edge e's energy, local gradient and projected Hessian.
__global__ void edgeTerms(int n, const int *edges, double w, const double *x,
                          double *E, double *G, double *H, int derivs) {
  int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= n)
    return;
  double xl[6];
  for (int j = 0; j < 2; ++j)
    for (int k = 0; k < 3; ++k)
      xl[3 * j + k] = x[3 * edges[2 * e + j] + k];
  E[e] = membrane(xl, w);
  if (!derivs)
    return;
  for (int i = 0; i < 6; ++i)
    G[6 * e + i] = 0;
  membrane_grad_0(xl, w, G + 6 * e);
  membrane_hessian_0(xl, w, H + 36 * e);
}

/// Thread v: vertex v's data term (its Hessian is PSD: no projection).
__global__ void vertexTerms(int n, const double *params, const double *x,
                            double *E, double *G, double *H, int derivs) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n)
    return;
  const double *p = params + 5 * v;
  E[v] = dataTerm(x + 3 * v, p);
  if (!derivs)
    return;
  for (int i = 0; i < 3; ++i)
    G[3 * v + i] = 0;
  dataTerm_grad_0(x + 3 * v, p, G + 3 * v);
  dataTerm_hessian_0(x + 3 * v, p, H + 9 * v);
}

namespace mt = meshad::test;
namespace rt = meshad::runtime;
namespace rd = meshad::render;

/// Both terms' device arrays; Eval methods for demo::Term.
struct SmoothingTerms {
  int NE, NV;
  double W;
  mt::DeviceArray<int> Edges;
  mt::DeviceArray<double> Params, X, EE, GE, HE, EV, GV, HV;

  SmoothingTerms(const std::vector<int> &Ed, const std::vector<double> &Prm,
                 double W)
      : NE(int(Ed.size() / 2)), NV(int(Prm.size() / 5)), W(W),
        Edges(Ed.size()), Params(Prm.size()), X(3 * NV), EE(NE), GE(6 * NE),
        HE(36 * NE), EV(NV), GV(3 * NV), HV(9 * NV) {
    std::copy(Ed.begin(), Ed.end(), Edges.host());
    std::copy(Prm.begin(), Prm.end(), Params.host());
    Edges.upload();
    Params.upload();
  }

  void upload(const double *Xh) {
    std::copy(Xh, Xh + X.size(), X.host());
    X.upload();
  }

  template <class A>
  static void fetch(A &Arr, double *Out) {
    Arr.download();
    std::copy(Arr.host(), Arr.host() + Arr.size(), Out);
  }

  void edges(const double *Xh, bool D, double *E, double *G, double *H) {
    upload(Xh);
    MESHAD_LAUNCH(edgeTerms, dim3((NE + 127) / 128), dim3(128))(
        NE, Edges.device(), W, X.device(), EE.device(), GE.device(),
        HE.device(), D);
    mt::checkLaunch("edgeTerms");
    fetch(EE, E);
    if (D) {
      fetch(GE, G);
      fetch(HE, H);
    }
  }

  void vertices(const double *Xh, bool D, double *E, double *G, double *H) {
    upload(Xh);
    MESHAD_LAUNCH(vertexTerms, dim3((NV + 127) / 128), dim3(128))(
        NV, Params.device(), X.device(), EV.device(), GV.device(), HV.device(),
        D);
    mt::checkLaunch("vertexTerms");
    fetch(EV, E);
    if (D) {
      fetch(GV, G);
      fetch(HV, H);
    }
  }
};

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

/// Element derivatives of random edges and vertices, and the global
/// gradient.
static void checkDerivatives(SmoothingTerms &Terms, const demo::Problem &P,
                             const std::vector<double> &X,
                             const std::vector<int> &Edges) {
  mt::RandomInputs Rng;
  auto GradM = meshad::gradient(membrane, "x");
  auto GradD = meshad::gradient(dataTerm, "x");
  std::vector<double> EE(Terms.NE), GE(6 * Terms.NE), HE(36 * Terms.NE);
  std::vector<double> EV(Terms.NV), GV(3 * Terms.NV), HV(9 * Terms.NV);
  Terms.edges(X.data(), true, EE.data(), GE.data(), HE.data());
  Terms.vertices(X.data(), true, EV.data(), GV.data(), HV.data());
  double W = Terms.W;
  for (int C = 0; C < 3; ++C) {
    int E = int(Rng.uniform(0, Terms.NE - 1e-9));
    std::vector<double> Xl(6);
    for (int J = 0; J < 2; ++J)
      for (int K = 0; K < 3; ++K)
        Xl[3 * J + K] = X[3 * Edges[2 * E + J] + K];
    demo::checkElement(
        "edge " + std::to_string(E), Xl, 6,
        [&](const double *Q) { return membrane(Q, W); }, &GE[6 * E],
        &HE[36 * E], [&](double *Q, double *G) { GradM.execute(Q, W, G); });
    int V = int(Rng.uniform(0, Terms.NV - 1e-9));
    const double *Prm = Terms.Params.host() + 5 * V;
    std::vector<double> Xv(&X[3 * V], &X[3 * V] + 3);
    for (double &Q : Xv) // away from the data term's minimum
      Q += Rng.uniform(-1, 1) * Prm[4];
    std::vector<double> Xs = X;
    std::copy(Xv.begin(), Xv.end(), &Xs[3 * V]);
    Terms.vertices(Xs.data(), true, EV.data(), GV.data(), HV.data());
    demo::checkElement(
        "vertex " + std::to_string(V), Xv, 3,
        [&](const double *Q) { return dataTerm(Q, Prm); }, &GV[3 * V],
        &HV[9 * V], [&](double *Q, double *G) { GradD.execute(Q, Prm, G); });
  }
  demo::checkGlobalGradient(P, X, 6, Rng);
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
  SmoothingTerms Terms(Top.Edges, Params, /*W=*/1.0);
  demo::Problem P;
  P.NumDofs = 3 * M.numVertices();
  P.Dofs = 3;
  using namespace std::placeholders;
  P.Terms.push_back({2, Top.Edges,
                     std::bind(&SmoothingTerms::edges, &Terms, _1, _2, _3, _4, _5)});
  std::vector<int> Vertices(M.numVertices());
  for (int V = 0; V < M.numVertices(); ++V)
    Vertices[V] = V;
  P.Terms.push_back({1, Vertices, std::bind(&SmoothingTerms::vertices, &Terms,
                                            _1, _2, _3, _4, _5)});
  checkDerivatives(Terms, P, Noisy, Top.Edges);

  std::vector<double> X = Noisy;
  demo::NewtonOptions Opt;
  Opt.MaxIterations = 30;
  demo::NewtonResult R = demo::newton(P, X, Opt);
  bool Decreasing = R.Energies.size() > 1;
  for (size_t I = 1; I < R.Energies.size(); ++I)
    Decreasing &= R.Energies[I] < R.Energies[I - 1];
  MESHAD_CHECK_CLOSE("energy decreases at every step", double(Decreasing), 1.0);
  double ErrNoisy = normalError(Noisy, M, Normals),
         ErrSmooth = normalError(X, M, Normals);
  int TurnedNoisy = turnedTriangles(Noisy, M), TurnedSmooth = turnedTriangles(X, M);
  std::printf("energy %.6f -> %.6f; RMS distance to the clean mesh along its "
              "normals %.5f -> %.5f; triangles turned from their clean normal %d -> %d\n",
              R.Energies.front(), R.Energies.back(), ErrNoisy, ErrSmooth,
              TurnedNoisy, TurnedSmooth);
  MESHAD_CHECK_CLOSE("closer to the clean mesh", double(ErrSmooth < ErrNoisy), 1.0);
  MESHAD_CHECK_CLOSE("no more turned triangles",
                     double(TurnedSmooth <= TurnedNoisy), 1.0);
  writePicture(M, Noisy, X, demo::argOr(Argc, Argv, 3, "smoothing.png").c_str());
  int Rc = mt::summary();
  std::puts(Rc == 0 ? "smoothing: OK" : "smoothing: FAILED");
  return Rc;
}
