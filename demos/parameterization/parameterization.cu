//===- demos/parameterization/parameterization.cu - Free-boundary UVs -----===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
//
// Parameterizes a disk-topology mesh (CGAL's lion head) into the plane:
// Tutte's embedding (boundary on the unit circle) as the initial map, then
// Newton (meshad/runtime/solve: PSD-projected element Hessians, PCG, the
// flip-free line search InjectiveStep2D) on the symmetric Dirichlet energy
// of each triangle's 2D map against its 3D rest triangle,
//   F = Ds Dm^-1,  e = area (|F|^2 + |F^-1|^2) = area |F|^2 (1 + 1/det(F)^2),
// whose local gradient and 6 x 6 Hessian meshad generates
// (meshad::gradient, MESHAD_HESSIAN), one thread per triangle.
// Checks: the local derivatives against central differences on random
// triangles, the global gradient against those of the total energy, the
// energy decreasing at every step, and no flipped triangle. Writes a PNG:
// the Tutte layout (a UV checkerboard) | the mesh textured with it | the
// optimized layout | the mesh textured with it.
//
// Usage: parameterization [MESH [TRIANGLES [OUT.png [uniform|cotangent]]]]
//   TRIANGLES > 0 takes a disk-shaped patch of that many triangles, 0 the
//   whole mesh; the last argument chooses Tutte's weights (uniform by
//   default); without arguments, a patch of 600 triangles of lion-head.off
//   (demo::meshPath) into parameterization.png (CI, GPU suite).
//
//===----------------------------------------------------------------------===//

#include "../common/DemoChecks.h"
#include "ParamSetup.h"
#include "SymmetricDirichlet.h"
#include <meshad/Differentiator.h>
#include <meshad/runtime/MeshIO.h>
#include <meshad/runtime/render/Rasterizer.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

/// The local energy of the solver's term (meshad/runtime/solve/Term.h):
/// symmetricDirichlet of SymmetricDirichlet.h, shared with param-bench; the
/// derivatives are meshad's (meshad::gradient(symmetricDirichlet, "x")
/// generates symmetricDirichlet_grad_0, MESHAD_HESSIAN the Hessian), placed
/// after the header's #include line, so the term is written here.
struct SymmetricDirichlet {
  static constexpr int Arity = 3, Dofs = 2;
  __host__ __device__ static double energy(const double *x, const double *p) {
    return symmetricDirichlet(x, p);
  }
  __host__ __device__ static void gradient(const double *x, const double *p,
                                           double *g) {
    symmetricDirichlet_grad_0(x, p, g);
  }
  __host__ __device__ static void hessian(const double *x, const double *p,
                                          double *H) {
    symmetricDirichlet_hessian_0(x, p, H);
  }
};

namespace mt = meshad::test;
namespace rt = meshad::runtime;
namespace rd = meshad::render;
namespace sv = meshad::runtime::solve;

/// The local derivatives of random triangles and the global gradient.
static void checkDerivatives(sv::Problem<double> &P, const std::vector<double> &UV,
                             const std::vector<int> &Tris,
                             const std::vector<double> &Params) {
  mt::RandomInputs Rng;
  auto Grad = meshad::gradient(symmetricDirichlet, "x");
  int NT = int(Tris.size() / 3);
  for (int C = 0; C < 4; ++C) {
    int T = int(Rng.uniform(0, NT - 1e-9));
    const double *Prm = &Params[5 * T];
    std::vector<double> Xl(6);
    for (int J = 0; J < 3; ++J)
      for (int K = 0; K < 2; ++K)
        Xl[2 * J + K] = UV[2 * Tris[3 * T + J] + K];
    demo::checkLocal<SymmetricDirichlet>(
        "triangle " + std::to_string(T), Xl, Prm,
        [&](double *X, double *G) { Grad.execute(X, Prm, G); });
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
  int Patch = std::atoi(demo::argOr(Argc, Argv, 2, "600").c_str());
  if (Patch > 0)
    M = demo::diskPatch(M, Patch);
  demo::normalizeArea(M, 3.14159265358979323846); // the unit disk's area
  std::printf("%d vertices, %d triangles\n", M.numVertices(), M.numTriangles());
  bool Cotangent = demo::argOr(Argc, Argv, 4, "uniform") == "cotangent";
  // Tutte's map, the rest shapes and the problem (ParamSetup.h, shared with
  // benchmarks/solve/param-bench.cu).
  demo::ParamSetup<SymmetricDirichlet> S(
      M, Cotangent ? demo::TutteWeights::Cotangent : demo::TutteWeights::Uniform);
  const std::vector<double> &Init = S.Init;
  std::printf("Tutte's embedding, %s weights\n", Cotangent ? "cotangent" : "uniform");
  int InitFlips = demo::countFlipped2D(Init, M.Tris);
  MESHAD_CHECK_CLOSE("Tutte: flipped triangles", double(InitFlips), 0.0);
  checkDerivatives(S.P, Init, M.Tris, S.Params);

  sv::SolveOptions<double> Opt = S.solveOptions(50);
  S.X.upload(Init);
  sv::SolveReport R = sv::newton(S.P, S.X.data(), Opt);
  std::vector<double> UV = S.X.download();
  demo::checkDecreasing(R);
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
