//===- demos/parameterization/parameterization.cu - Free-boundary UVs -----===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
//
// Parameterizes a disk-topology mesh (CGAL's lion head) into the plane:
// Tutte's embedding (boundary on the unit circle) as the initial map, then
// projected Newton on the symmetric Dirichlet energy of each triangle's 2D
// map against its 3D rest triangle,
//   F = Ds Dm^-1,  e = area (|F|^2 + |F^-1|^2) = area |F|^2 (1 + 1/det(F)^2),
// whose local gradient and 6 x 6 Hessian meshad generates
// (meshad::gradient, MESHAD_HESSIAN), evaluated one thread per triangle.
// Checks: the element derivatives against central differences on random
// triangles, the assembled gradient against those of the total energy, the
// energy decreasing at every step, and no flipped triangle. Writes a PNG:
// the Tutte layout (a UV checkerboard) | the mesh textured with it | the
// optimized layout | the mesh textured with it.
//
// Usage: parameterization [MESH [TRIANGLES [OUT.png]]]
//   TRIANGLES > 0 takes a disk-shaped patch of that many triangles, 0 the
//   whole mesh; without arguments, a patch of 1000 triangles of
//   lion-head.off (demo::meshPath) into parameterization.png (CI, GPU suite).
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

/// x: the triangle's uv (a, b, c); p: Dm^-1 (row-major 2x2), rest area.
MESHAD_HESSIAN("x[0:6]")
__host__ __device__ double symmetricDirichlet(const double *x,
                                              const double *p) {
  double e1x = x[2] - x[0], e1y = x[3] - x[1];
  double e2x = x[4] - x[0], e2y = x[5] - x[1];
  double f00 = e1x * p[0] + e2x * p[2], f01 = e1x * p[1] + e2x * p[3];
  double f10 = e1y * p[0] + e2y * p[2], f11 = e1y * p[1] + e2y * p[3];
  double frob = f00 * f00 + f01 * f01 + f10 * f10 + f11 * f11;
  double det = f00 * f11 - f01 * f10;
  return p[4] * frob * (1 + 1 / (det * det));
}

/// Thread t: triangle t's energy, and with derivs its local gradient and
/// its Hessian, projected onto the PSD cone when project.
__global__ void triangleTerms(int n, const int *tris, const double *params,
                              const double *uv, double *E, double *G,
                              double *H, int derivs, int project) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n)
    return;
  double x[6];
  for (int j = 0; j < 3; ++j) {
    x[2 * j] = uv[2 * tris[3 * t + j]];
    x[2 * j + 1] = uv[2 * tris[3 * t + j] + 1];
  }
  const double *p = params + 5 * t;
  E[t] = symmetricDirichlet(x, p);
  if (!derivs)
    return;
  for (int i = 0; i < 6; ++i)
    G[6 * t + i] = 0;
  symmetricDirichlet_grad_0(x, p, G + 6 * t);
  symmetricDirichlet_hessian_0(x, p, H + 36 * t);
  if (project)
    meshad::projectPsd(H + 36 * t, 6, 1e-10);
}

namespace mt = meshad::test;
namespace rt = meshad::runtime;
namespace rd = meshad::render;

/// Dm^-1 and the area of each 3D triangle in its own plane (5 per triangle).
static std::vector<double> restParams(const rt::TriMesh &M) {
  std::vector<double> P;
  for (int T = 0; T < M.numTriangles(); ++T) {
    const double *A = &M.X[3 * M.Tris[3 * T]], *B = &M.X[3 * M.Tris[3 * T + 1]],
                 *C = &M.X[3 * M.Tris[3 * T + 2]];
    double U[3], V[3], Uu = 0, Uv = 0, Vv = 0;
    for (int K = 0; K < 3; ++K) {
      U[K] = B[K] - A[K];
      V[K] = C[K] - A[K];
      Uu += U[K] * U[K];
      Uv += U[K] * V[K];
      Vv += V[K] * V[K];
    }
    double L = std::sqrt(Uu), X2 = Uv / L, Y2 = std::sqrt(std::max(Vv - X2 * X2, 0.0));
    double Det = L * Y2; // Dm = [L X2; 0 Y2]
    P.insert(P.end(), {1 / L, -X2 / Det, 0, 1 / Y2, 0.5 * Det});
  }
  return P;
}

/// The term of the triangles, evaluated by triangleTerms.
struct TriangleTerm {
  int NT;
  mt::DeviceArray<int> Tris;
  mt::DeviceArray<double> Params, UV, E, G, H;
  bool Project = true;

  TriangleTerm(const rt::TriMesh &M, const std::vector<double> &P)
      : NT(M.numTriangles()), Tris(M.Tris.size()), Params(P.size()),
        UV(2 * M.numVertices()), E(NT), G(6 * NT), H(36 * NT) {
    std::copy(M.Tris.begin(), M.Tris.end(), Tris.host());
    std::copy(P.begin(), P.end(), Params.host());
    Tris.upload();
    Params.upload();
  }

  void eval(const double *X, bool Derivs, double *Eo, double *Go, double *Ho) {
    std::copy(X, X + UV.size(), UV.host());
    UV.upload();
    MESHAD_LAUNCH(triangleTerms, dim3((NT + 127) / 128), dim3(128))(
        NT, Tris.device(), Params.device(), UV.device(), E.device(),
        G.device(), H.device(), Derivs, Project);
    mt::checkLaunch("triangleTerms");
    E.download();
    std::copy(E.host(), E.host() + NT, Eo);
    if (!Derivs)
      return;
    G.download();
    H.download();
    std::copy(G.host(), G.host() + G.size(), Go);
    std::copy(H.host(), H.host() + H.size(), Ho);
  }
};

/// Element derivatives of random triangles and the global gradient.
static void checkDerivatives(TriangleTerm &Term, const demo::Problem &P,
                             const std::vector<double> &UV,
                             const std::vector<int> &Tris) {
  mt::RandomInputs Rng;
  auto Grad = meshad::gradient(symmetricDirichlet, "x");
  std::vector<double> E(Term.NT), G(6 * Term.NT), H(36 * Term.NT);
  Term.Project = false;
  Term.eval(UV.data(), true, E.data(), G.data(), H.data());
  Term.Project = true;
  for (int C = 0; C < 4; ++C) {
    int T = int(Rng.uniform(0, Term.NT - 1e-9));
    const double *Prm = Term.Params.host() + 5 * T;
    std::vector<double> Xl(6);
    for (int J = 0; J < 3; ++J)
      for (int K = 0; K < 2; ++K)
        Xl[2 * J + K] = UV[2 * Tris[3 * T + J] + K];
    demo::checkElement(
        "triangle " + std::to_string(T), Xl, 6,
        [&](const double *X) { return symmetricDirichlet(X, Prm); },
        &G[6 * T], &H[36 * T],
        [&](double *X, double *Gx) { Grad.execute(X, Prm, Gx); });
  }
  demo::checkGlobalGradient(P, UV, 6, Rng);
}

/// The layout Map (checkerboard, wireframe on small meshes) and the mesh
/// textured with it.
static std::vector<rd::Image> panels(const rt::TriMesh &M,
                                     const std::vector<double> &Map, int S) {
  rd::RenderOptions Opt;
  Opt.CheckerSize = 0.125;
  Opt.Wireframe = M.numTriangles() <= 4000;
  Opt.UV = &Map;
  rd::Image Layout = rd::renderUv(Map, M.Tris, S, S, Opt);
  Opt.Wireframe = false;
  Opt.Shade = rd::Shading::Smooth;
  rd::Camera Cam = rd::Camera::fit(M.X, S, S, rd::Projection::Perspective, 0, 0, 1.1);
  return {Layout, rd::renderMesh(M.X, M.Tris, Cam, Opt)};
}

static void writePicture(const rt::TriMesh &M, const std::vector<double> &Init,
                         const std::vector<double> &UV, const char *Path) {
  std::vector<rd::Image> Before = panels(M, Init, 300), After = panels(M, UV, 300);
  rd::writePng(Path, rd::sideBySide({Before[0], Before[1], After[0], After[1]}));
  std::printf("wrote %s\n", Path);
}

int main(int Argc, char **Argv) {
  rt::TriMesh M =
      rt::readTriMesh(demo::argOr(Argc, Argv, 1, demo::meshPath("lion-head.off")));
  int Patch = std::atoi(demo::argOr(Argc, Argv, 2, "1000").c_str());
  if (Patch > 0)
    M = demo::diskPatch(M, Patch);
  demo::normalizeArea(M, 3.14159265358979323846); // the unit disk's area
  std::printf("%d vertices, %d triangles\n", M.numVertices(), M.numTriangles());
  std::vector<double> Init = demo::tutte(M, demo::boundaryLoop(M),
                                         demo::TutteWeights::Uniform);
  int InitFlips = demo::countFlipped2D(Init, M.Tris);
  MESHAD_CHECK_CLOSE("Tutte: flipped triangles", double(InitFlips), 0.0);

  TriangleTerm Term(M, restParams(M));
  demo::Problem P;
  P.NumDofs = 2 * M.numVertices();
  P.Dofs = 2;
  P.Terms.push_back({3, M.Tris, [&](const double *X, bool D, double *E,
                                    double *G, double *H) {
                       Term.eval(X, D, E, G, H);
                     }});
  P.Valid = [&](const double *X) {
    std::vector<double> U(X, X + P.NumDofs);
    return demo::countFlipped2D(U, M.Tris) == 0;
  };
  checkDerivatives(Term, P, Init, M.Tris);

  std::vector<double> UV = Init;
  demo::NewtonOptions Opt;
  Opt.MaxIterations = 40;
  demo::NewtonResult R = demo::newton(P, UV, Opt);
  bool Decreasing = R.Energies.size() > 1;
  for (size_t I = 1; I < R.Energies.size(); ++I)
    Decreasing &= R.Energies[I] < R.Energies[I - 1];
  MESHAD_CHECK_CLOSE("energy decreases at every step", double(Decreasing), 1.0);
  int Flips = demo::countFlipped2D(UV, M.Tris);
  MESHAD_CHECK_CLOSE("optimized: flipped triangles", double(Flips), 0.0);
  // The minimum is 4 per unit of area (an isometry); the mesh's area is pi.
  std::printf("symmetric Dirichlet: Tutte %.6f -> %.6f (isometry: %.6f), "
              "%d flipped\n",
              R.Energies.front(), R.Energies.back(), 4 * 3.14159265358979323846,
              Flips);
  writePicture(M, Init, UV,
               demo::argOr(Argc, Argv, 3, "parameterization.png").c_str());
  int Rc = mt::summary();
  std::puts(Rc == 0 ? "parameterization: OK" : "parameterization: FAILED");
  return Rc;
}
