//===- demos/cloth/cloth.cu - Implicit Euler cloth, solved by Newton ------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
//
// A square cloth (an N x N grid of vertices in the xz plane, two triangles
// per cell) hanging from two pinned corners under gravity: mass-spring
// (every edge of the triangulation), dihedral bending (every edge diamond of
// runtime/Topology.h) and per-vertex inertia + gravity. Each implicit Euler
// step minimizes the incremental potential
//   E(x) = sum_v m/(2 h^2) |x_v - x~_v|^2 + m g y_v + springs + bending,
// x~ = x_n + h v_n, by Newton's method (meshad/runtime/solve): PSD-projected
// element Hessians of meshad's local Hessians, block-Jacobi PCG or a
// sparse Cholesky (--linear=cholesky). Then
// v = (x - x_n) / h. The three terms share one sparse matrix.
//
// Checks: the problem's gradient, global sparse Hessian and HVP against
// central differences on a small cloth (--check); every Newton iteration
// of every step decreases the energy, pinned corners stay, the cloth sags.
// Writes the final mesh as OBJ (--obj=FILE) and a picture of the cloth at
// rest and draped (--png=FILE, the software rasterizer of runtime/render,
// its rest coordinates as a checkerboard). --bench times gradient,
// gradient + Hessian, HVP, one Newton iteration and a whole step (CUDA
// events, a warm-up, the median of --reps runs), then the first system's
// PCG and the whole step with CG's dot products on the host and with its
// scalars on the device (CgOptions::DeviceScalars).
//
//   cloth [--n=20] [--steps=10] [--dt=0.01] [--check] [--obj=cloth.obj]
//         [--png=cloth.png] [--bench] [--reps=5] [--quiet]
//         [--precond=block|jacobi]  (PCG: block-Jacobi, the default, or Jacobi)
//         [--stretch=18000]  (the sheet's stretch stiffness, N/m)
//         [--forcing=ew|sqrt] (PCG's tolerance per Newton iteration:
//                            Eisenstat-Walker, the default, or sqrt(|g|/|g0|))
//         [--newton-its=50]   (Newton's iteration limit per step)
//         [--projection=adaptive|always] (Newton: the exact Hessian after
//                            full steps, the default, or always projected)
//         [--linear=pcg|cholesky] (Newton's linear solve: block-Jacobi PCG,
//                            the default, or the sparse Cholesky of
//                            SparseCholesky.h, analyzed once)
//
// CPU emulation (CI: test/demos/cloth.cu):
//   clang++ -x c++ -std=c++20 -include meshad/cpu/CudaOnCpu.h -pthread \
//     -fplugin=build/lib/libmeshad.so -Iinclude -Itest/Inputs \
//     demos/cloth/cloth.cu -o cloth && ./cloth --n=10 --check
// GPU: see README.md (scripts/gpu/solver-bench.sh builds it).
//
//===----------------------------------------------------------------------===//

#include "SolveCheck.h"
#include <meshad/Differentiator.h>
#include <meshad/runtime/Topology.h>
#include <meshad/runtime/render/Rasterizer.h>
#include <meshad/runtime/solve/Minimize.h>

#include <algorithm>
#include <cfloat>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

/// A spring: 0.5 k (|x_a - x_b| - L)^2, p = (k, L).
MESHAD_HESSIAN("x[0:6]")
__host__ __device__ double spring(const double *x, const double *p) {
  double dx = x[0] - x[3], dy = x[1] - x[4], dz = x[2] - x[5];
  double len = sqrt(dx * dx + dy * dy + dz * dz);
  return 0.5 * p[0] * (len - p[1]) * (len - p[1]);
}

/// Dihedral bending of the diamond (a, b, c, d): edge a-b, wings c (of the
/// triangle a -> b) and d; k (theta - theta0)^2, p = (k, theta0).
MESHAD_HESSIAN("x[0:12]")
__host__ __device__ double bending(const double *x, const double *p) {
  double ex = x[3] - x[0], ey = x[4] - x[1], ez = x[5] - x[2];
  double ax = x[6] - x[0], ay = x[7] - x[1], az = x[8] - x[2];
  double bx = x[9] - x[0], by = x[10] - x[1], bz = x[11] - x[2];
  double n1x = ey * az - ez * ay, n1y = ez * ax - ex * az, n1z = ex * ay - ey * ax;
  double n2x = by * ez - bz * ey, n2y = bz * ex - bx * ez, n2z = bx * ey - by * ex;
  double cx = n1y * n2z - n1z * n2y, cy = n1z * n2x - n1x * n2z,
         cz = n1x * n2y - n1y * n2x;
  double elen = sqrt(ex * ex + ey * ey + ez * ez);
  double s = (cx * ex + cy * ey + cz * ez) / elen;
  double c = n1x * n2x + n1y * n2y + n1z * n2z;
  double theta = atan2(s, c);
  return p[0] * (theta - p[1]) * (theta - p[1]);
}

/// Inertia and gravity of a vertex: 0.5 (m/h^2) |x - x~|^2 + m g y,
/// p = (m/h^2, x~, m g).
MESHAD_HESSIAN("x[0:3]")
__host__ __device__ double inertia(const double *x, const double *p) {
  double dx = x[0] - p[1], dy = x[1] - p[2], dz = x[2] - p[3];
  return 0.5 * p[0] * (dx * dx + dy * dy + dz * dz) + p[4] * x[1];
}

// The terms' local energies (meshad/runtime/solve/Term.h): the derivatives
// are meshad's (MESHAD_HESSIAN above, meshad::gradient in main).
struct Spring {
  static constexpr int Arity = 2, Dofs = 3;
  __device__ static double energy(const double *x, const double *p) {
    return spring(x, p);
  }
  __device__ static void gradient(const double *x, const double *p, double *g) {
    spring_grad_0(x, p, g);
  }
  __device__ static void hessian(const double *x, const double *p, double *H) {
    spring_hessian_0(x, p, H);
  }
};
struct Bending {
  static constexpr int Arity = 4, Dofs = 3;
  __device__ static double energy(const double *x, const double *p) {
    return bending(x, p);
  }
  __device__ static void gradient(const double *x, const double *p, double *g) {
    bending_grad_0(x, p, g);
  }
  __device__ static void hessian(const double *x, const double *p, double *H) {
    bending_hessian_0(x, p, H);
  }
};
struct Inertia {
  static constexpr int Arity = 1, Dofs = 3;
  __device__ static double energy(const double *x, const double *p) {
    return inertia(x, p);
  }
  __device__ static void gradient(const double *x, const double *p, double *g) {
    inertia_grad_0(x, p, g);
  }
  __device__ static void hessian(const double *x, const double *p, double *H) {
    inertia_hessian_0(x, p, H);
  }
};

using namespace meshad::runtime;
using namespace meshad::runtime::solve;
namespace mt = meshad::test;

/// x~ = x + h v into the inertia parameters.
__global__ void predict(int NV, const double *X, const double *V, double H,
                        double *InertiaP) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I >= NV)
    return;
  for (int K = 0; K < 3; ++K)
    InertiaP[5 * I + 1 + K] = X[3 * I + K] + H * V[3 * I + K];
}

/// v = (x - x_old) / h.
__global__ void velocities(int N, const double *X, const double *XOld,
                           double H, double *V) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    V[I] = (X[I] - XOld[I]) / H;
}

struct Options {
  int N = 20, Steps = 10, Reps = 5; // the GPU suite runs the defaults
  int NewtonIterations = 50;        // --newton-its=: per implicit step
  double Dt = 0.01;
  /// The sheet's stretch stiffness (N/m, --stretch=): an edge of length L
  /// on a grid of spacing h is a spring of k = Stretch h / L, the same
  /// material at every resolution (k = 2000 / L before: a sheet (N - 1) / 9
  /// times stiffer than the 10 x 10 one, 28x at 256).
  double Stretch = 18000;
  bool SqrtForcing = false; // --forcing=sqrt: PCG to sqrt(|g| / |g_0|)
  /// SolveOptions::AdaptiveProjection (--projection=adaptive, the default;
  /// --projection=always: every Hessian projected per element).
  bool Adaptive = true;
  bool Check = false, Bench = false, Quiet = false;
  std::string Obj, Png;
  Preconditioner Precondition = Preconditioner::BlockJacobi; // --precond=
  LinearSolver Linear = LinearSolver::Pcg;                     // --linear=
};

const char *precondName(const Options &O) {
  if (O.Linear == LinearSolver::Cholesky)
    return "cholesky";
  return O.Precondition == Preconditioner::Jacobi ? "jacobi" : "block-jacobi";
}

/// The cloth: its mesh, parameters and problem in device memory.
struct Cloth {
  int N, NV;
  double Dt;
  TriMesh Mesh;
  MeshTopology Top;
  DeviceBuffer<int> Edges, Diamonds, Verts;
  DeviceBuffer<double> SpringP, BendP, InertiaP, X, V, XOld;
  Problem<double> P;
  std::vector<int> Corners;

  Cloth(int N, double Dt, double Stretch)
      : N(N), NV(N * N), Dt(Dt), P(N * N, 3) {
    double Side = 1.0, Hx = Side / (N - 1);
    for (int J = 0; J < N; ++J)
      for (int I = 0; I < N; ++I)
        Mesh.X.insert(Mesh.X.end(), {I * Hx, 0.0, J * Hx});
    for (int J = 0; J + 1 < N; ++J)
      for (int I = 0; I + 1 < N; ++I) {
        int A = J * N + I;
        Mesh.Tris.insert(Mesh.Tris.end(), {A, A + N + 1, A + 1, A, A + N, A + N + 1});
      }
    Top = buildTopology(Mesh);
    upload(Stretch);
    P.add<Spring>(Edges.data(), Top.numEdges(), SpringP.data(), 2);
    P.add<Bending>(Diamonds.data(), Top.numDiamonds(), BendP.data(), 2);
    P.add<Inertia>(Verts.data(), NV, InertiaP.data(), 5);
    Corners = {0, N - 1};
    P.pinVertices(Corners);
  }

  /// Parameters from the rest shape: springs k = Stretch h / L (h the grid
  /// spacing: a spring network's sheet stiffness is its springs' k, so the
  /// material does not change with N), bending weighted by 3 |e|^2 /
  /// (A1 + A2) (flat at rest), lumped masses.
  void upload(double Stretch) {
    const double Kb = 0.02, Density = 1.0, G = 9.81, Spacing = 1.0 / (N - 1);
    const double *R = Mesh.X.data();
    auto Dist = [&](int A, int B) {
      double S = 0;
      for (int K = 0; K < 3; ++K)
        S += (R[3 * A + K] - R[3 * B + K]) * (R[3 * A + K] - R[3 * B + K]);
      return std::sqrt(S);
    };
    std::vector<double> SP, BP, IP;
    for (int E = 0; E < Top.numEdges(); ++E) {
      double L = Dist(Top.Edges[2 * E], Top.Edges[2 * E + 1]);
      SP.insert(SP.end(), {Stretch * Spacing / L, L});
    }
    double Cell = 1.0 / ((N - 1) * (N - 1)), TriArea = Cell / 2;
    for (int D = 0; D < Top.numDiamonds(); ++D) {
      double L = Dist(Top.Diamonds[4 * D], Top.Diamonds[4 * D + 1]);
      BP.insert(BP.end(), {Kb * 3 * L * L / (2 * TriArea), 0.0});
    }
    double M = Density / NV;
    std::vector<int> VI(NV);
    for (int I = 0; I < NV; ++I) {
      VI[I] = I;
      IP.insert(IP.end(), {M / (Dt * Dt), R[3 * I], R[3 * I + 1],
                           R[3 * I + 2], M * G});
    }
    Edges.upload(Top.Edges);
    Diamonds.upload(Top.Diamonds);
    Verts.upload(VI);
    SpringP.upload(SP);
    BendP.upload(BP);
    InertiaP.upload(IP);
    X.upload(Mesh.X);
    V.upload(std::vector<double>(3 * NV, 0.0));
    XOld.resize(3 * NV);
  }

  /// One implicit Euler step; false when the solve did not converge, an
  /// iteration increased the energy (beyond its round-off, which Armijo's
  /// test allows) or the step did not decrease it.
  bool step(const SolveOptions<double> &O, SolveReport &R) {
    MESHAD_LAUNCH(predict, (NV + 127) / 128, 128)
    (NV, X.data(), V.data(), Dt, InertiaP.data());
    copy(3L * NV, X.data(), XOld.data());
    R = newton(P, X.data(), O);
    MESHAD_LAUNCH(velocities, (3 * NV + 127) / 128, 128)
    (3 * NV, X.data(), XOld.data(), Dt, V.data());
    bool Ok = converged(R.Reason) || R.Reason == StopReason::EnergyDecrease;
    for (size_t K = 1; K < R.Energies.size(); ++K)
      Ok &= R.Energies[K] <= R.Energies[K - 1] + 8 * DBL_EPSILON *
                                                    std::fabs(R.Energies[K - 1]);
    return Ok && R.Energy < R.Energies.front();
  }

  /// The cloth at rest and now, side by side, seen from the same camera;
  /// the rest coordinates (x, z) as a checkerboard.
  void writePng(const std::string &Path) {
    namespace mr = meshad::render;
    std::vector<double> Now = X.download(), UV;
    for (int I = 0; I < NV; ++I)
      UV.insert(UV.end(), {Mesh.X[3 * I], Mesh.X[3 * I + 2]});
    std::vector<double> Both = Mesh.X;
    Both.insert(Both.end(), Now.begin(), Now.end());
    mr::Camera Cam = mr::Camera::fit(Both, 480, 480, mr::Projection::Perspective,
                                     30, 25);
    mr::RenderOptions Opt;
    Opt.Shade = mr::Shading::Smooth;
    Opt.UV = &UV;
    Opt.CheckerSize = 0.125;
    Opt.Wireframe = N <= 40;
    mr::writePng(Path, mr::sideBySide({mr::renderMesh(Mesh.X, Mesh.Tris, Cam, Opt),
                                       mr::renderMesh(Now, Mesh.Tris, Cam, Opt)}));
    std::printf("wrote %s\n", Path.c_str());
  }

  void writeObj(const std::string &Path) {
    std::vector<double> Xh = X.download();
    std::FILE *F = std::fopen(Path.c_str(), "w");
    if (!F) {
      std::printf("cannot write %s\n", Path.c_str());
      return;
    }
    std::fprintf(F, "# meshad cloth demo: %d x %d vertices\n", N, N);
    for (int I = 0; I < NV; ++I)
      std::fprintf(F, "v %.9g %.9g %.9g\n", Xh[3 * I], Xh[3 * I + 1],
                   Xh[3 * I + 2]);
    for (int T = 0; T < Mesh.numTriangles(); ++T)
      std::fprintf(F, "f %d %d %d\n", Mesh.Tris[3 * T] + 1,
                   Mesh.Tris[3 * T + 1] + 1, Mesh.Tris[3 * T + 2] + 1);
    std::fclose(F);
    std::printf("wrote %s\n", Path.c_str());
  }
};

SolveOptions<double> solveOptions(const Options &Opt, bool Quiet) {
  SolveOptions<double> O;
  O.GradientTolerance = 1e-8;
  O.MaxIterations = Opt.NewtonIterations;
  O.Cg = CgOptions{1e-10, 2000, Opt.Precondition};
  O.InexactNewton = true;
  O.EisenstatWalker = !Opt.SqrtForcing;
  O.AdaptiveProjection = Opt.Adaptive;
  O.Linear = Opt.Linear;
  O.Quiet = Quiet;
  return O;
}

/// The gradient, sparse Hessian and HVP of the first step's problem
/// against central differences, on a small cloth, from a perturbed drape.
void checkDerivatives(const Options &Opt, mt::RandomInputs &Rng) {
  Cloth C(4, 0.01, Opt.Stretch);
  MESHAD_LAUNCH(predict, 1, 128)(C.NV, C.X.data(), C.V.data(), C.Dt,
                                 C.InertiaP.data());
  std::vector<double> X = C.Mesh.X;
  for (double &V : X)
    V += Rng.uniform(-0.05, 0.05);
  std::vector<int> Pinned;
  for (int V : C.Corners)
    for (int K = 0; K < 3; ++K)
      Pinned.push_back(3 * V + K);
  mt::checkProblemDerivatives("cloth", C.P, X, Rng, Pinned);
}

double median(std::vector<double> V) {
  std::sort(V.begin(), V.end());
  return V[V.size() / 2];
}

/// Milliseconds of Fn: one warm-up, then the median of Reps runs timed by
/// CUDA events.
template <class F> double timeMs(int Reps, F &&Fn) {
  cudaEvent_t A, B;
  cudaEventCreate(&A);
  cudaEventCreate(&B);
  Fn();
  std::vector<double> Ms;
  for (int R = 0; R < Reps; ++R) {
    cudaEventRecord(A);
    Fn();
    cudaEventRecord(B);
    cudaEventSynchronize(B);
    float T = 0;
    cudaEventElapsedTime(&T, A, B);
    Ms.push_back(T);
  }
  cudaEventDestroy(A);
  cudaEventDestroy(B);
  return median(Ms);
}

/// The first Newton system's PCG (to 1e-10) and the whole solve, with CG's
/// dot products on the host (a sync each), with its scalars on the device
/// (CgOptions::DeviceScalars: the same iterates) in nine launches an
/// iteration, and in three (CgOptions::FusedKernels).
void benchCgScalars(const Options &Opt, Cloth &C,
                    const DeviceBuffer<double> &X0) {
  long N = C.P.numDofs();
  DeviceBuffer<double> B(N), D(N);
  copy(N, X0.data(), C.X.data());
  C.P.gradient(C.X.data(), D.data());
  fill(N, 0.0, B.data());
  axpy(N, -1.0, static_cast<const double *>(D.data()), B.data()); // B = -g
  CsrView<double> H = C.P.hessian(C.X.data(), true);
  double TCg[3], TSolve[3];
  int Its[3];
  long Lin[3];
  for (int Device = 0; Device < 3; ++Device) { // host, device, fused
    CgOptions Cg{1e-10, 2000, Opt.Precondition};
    Cg.DeviceScalars = Device > 0;
    Cg.FusedKernels = Device == 2;
    CgResult Res;
    TCg[Device] = timeMs(Opt.Reps, [&] {
      fill(N, 0.0, D.data());
      Res = pcg(H, static_cast<const double *>(B.data()), D.data(), Cg,
                &C.P.pcgWorkspace());
    });
    Its[Device] = Res.Iterations;
  }
  for (int Device = 0; Device < 3; ++Device) {
    SolveOptions<double> S = solveOptions(Opt, true);
    S.Cg.DeviceScalars = Device > 0;
    S.Cg.FusedKernels = Device == 2;
    SolveReport R;
    TSolve[Device] = timeMs(Opt.Reps, [&] {
      copy(N, X0.data(), C.X.data());
      R = newton(C.P, C.X.data(), S);
    });
    Lin[Device] = R.LinearIterations;
  }
  std::printf("bench n=%d cg scalars: pcg host dots %.3f ms, device %.3f ms, "
              "fused %.3f ms (%d / %d / %d iterations); solve host dots %.3f "
              "ms, device %.3f ms, fused %.3f ms (%ld / %ld / %ld cg)\n",
              Opt.N, TCg[0], TCg[1], TCg[2], Its[0], Its[1], Its[2],
              TSolve[0], TSolve[1], TSolve[2], Lin[0], Lin[1], Lin[2]);
}

/// The sparse Cholesky on the first Newton system: the analysis (ordering
/// and symbolic factorization, once per pattern), one numeric
/// factorization, one solve, and the whole step with Cholesky.
void benchCholesky(const Options &Opt, Cloth &C,
                   const DeviceBuffer<double> &X0) {
  long N = C.P.numDofs();
  DeviceBuffer<double> B(N), D(N);
  copy(N, X0.data(), C.X.data());
  C.P.gradient(C.X.data(), B.data());
  CsrView<double> H = C.P.hessian(C.X.data(), true);
  double TA = timeMs(Opt.Reps, [&] { SparseCholesky<double>().factor(H); });
  SparseCholesky<double> F;
  double TF = timeMs(Opt.Reps, [&] { F.factor(H); });
  double TS = timeMs(Opt.Reps, [&] { F.solve(B.data(), D.data()); });
  SolveOptions<double> S = solveOptions(Opt, true);
  S.Linear = LinearSolver::Cholesky;
  SolveReport R;
  double TStep = timeMs(Opt.Reps, [&] {
    copy(N, X0.data(), C.X.data());
    R = newton(C.P, C.X.data(), S);
  });
  std::printf("bench n=%d cholesky: analysis + factorization %.3f ms, "
              "factorization %.3f ms, solve %.3f ms; solve (step) %.3f ms "
              "(%d iterations)\n",
              Opt.N, TA, TF, TS, TStep, R.Iterations);
}

void bench(const Options &Opt) {
  Cloth C(Opt.N, Opt.Dt, Opt.Stretch);
  long N = C.P.numDofs();
  DeviceBuffer<double> G(N), Hv(N), Dir(N);
  fill(N, 1.0, Dir.data());
  MESHAD_LAUNCH(predict, (C.NV + 127) / 128, 128)
  (C.NV, C.X.data(), C.V.data(), C.Dt, C.InertiaP.data());
  SolveOptions<double> One = solveOptions(Opt, true);
  One.MaxIterations = 1;
  DeviceBuffer<double> X0(N);
  copy(N, C.X.data(), X0.data());
  double TG = timeMs(Opt.Reps, [&] { C.P.gradient(C.X.data(), G.data()); });
  double TH = timeMs(Opt.Reps, [&] { C.P.hessian(C.X.data(), true, G.data()); });
  double TV = timeMs(Opt.Reps, [&] { C.P.hvp(C.X.data(), Dir.data(), Hv.data()); });
  double TN = timeMs(Opt.Reps, [&] {
    copy(N, X0.data(), C.X.data());
    newton(C.P, C.X.data(), One);
  });
  SolveReport R;
  double TS = timeMs(Opt.Reps, [&] {
    copy(N, X0.data(), C.X.data());
    R = newton(C.P, C.X.data(), solveOptions(Opt, true));
  });
  std::printf("bench n=%d vertices=%d elements=%d: gradient %.3f ms, "
              "gradient+hessian %.3f ms, hvp %.3f ms, newton iteration %.3f "
              "ms, solve %.3f ms (%d iterations, %ld cg, %s)\n",
              Opt.N, C.NV,
              C.Top.numEdges() + C.Top.numDiamonds() + C.NV, TG, TH, TV, TN,
              TS, R.Iterations, R.LinearIterations, precondName(Opt));
  benchCgScalars(Opt, C, X0);
  benchCholesky(Opt, C, X0);
}

Options parse(int Argc, char **Argv) {
  Options O;
  for (int I = 1; I < Argc; ++I) {
    const char *A = Argv[I];
    if (!std::strncmp(A, "--n=", 4))
      O.N = std::max(3, std::atoi(A + 4));
    else if (!std::strncmp(A, "--steps=", 8))
      O.Steps = std::atoi(A + 8);
    else if (!std::strncmp(A, "--reps=", 7))
      O.Reps = std::max(1, std::atoi(A + 7));
    else if (!std::strncmp(A, "--newton-its=", 13))
      O.NewtonIterations = std::max(1, std::atoi(A + 13));
    else if (!std::strncmp(A, "--stretch=", 10))
      O.Stretch = std::atof(A + 10);
    else if (!std::strcmp(A, "--forcing=sqrt"))
      O.SqrtForcing = true;
    else if (!std::strncmp(A, "--projection=", 13))
      O.Adaptive = std::strcmp(A + 13, "always") != 0;
    else if (!std::strcmp(A, "--forcing=ew"))
      O.SqrtForcing = false;
    else if (!std::strncmp(A, "--dt=", 5))
      O.Dt = std::atof(A + 5);
    else if (!std::strncmp(A, "--obj=", 6))
      O.Obj = A + 6;
    else if (!std::strncmp(A, "--png=", 6))
      O.Png = A + 6;
    else if (!std::strcmp(A, "--check"))
      O.Check = true;
    else if (!std::strcmp(A, "--bench"))
      O.Bench = true;
    else if (!std::strcmp(A, "--quiet"))
      O.Quiet = true;
    else if (!std::strcmp(A, "--precond=jacobi"))
      O.Precondition = Preconditioner::Jacobi;
    else if (!std::strcmp(A, "--precond=block"))
      O.Precondition = Preconditioner::BlockJacobi;
    else if (!std::strcmp(A, "--linear=cholesky"))
      O.Linear = LinearSolver::Cholesky;
    else if (!std::strcmp(A, "--linear=pcg"))
      O.Linear = LinearSolver::Pcg;
  }
  return O;
}

int main(int Argc, char **Argv) {
  // The local gradients the terms call (spring_grad_0, ...).
  (void)meshad::gradient(spring, "x");
  (void)meshad::gradient(bending, "x");
  (void)meshad::gradient(inertia, "x");
  Options Opt = parse(Argc, Argv);
  mt::RandomInputs Rng;
  if (Opt.Check)
    checkDerivatives(Opt, Rng);
  if (Opt.Bench) {
    bench(Opt);
    return 0;
  }
  Cloth C(Opt.N, Opt.Dt, Opt.Stretch);
  std::printf("cloth: %d x %d vertices, %d springs, %d diamonds, %d steps of "
              "%g s, stretch %g N/m, %s, %s forcing term, %s projection\n",
              Opt.N, Opt.N, C.Top.numEdges(), C.Top.numDiamonds(), Opt.Steps,
              Opt.Dt, Opt.Stretch, precondName(Opt),
              Opt.SqrtForcing ? "sqrt(|g|/|g0|)" : "Eisenstat-Walker",
              Opt.Adaptive ? "adaptive" : "per-element");
  std::vector<double> Start = C.X.download();
  int Decreasing = 0, Iterations = 0, MostIterations = 0;
  long CgIterations = 0;
  double Seconds = 0;
  for (int S = 0; S < Opt.Steps; ++S) {
    SolveReport R;
    bool Ok = C.step(solveOptions(Opt, Opt.Quiet || S > 0), R);
    Decreasing += Ok;
    Iterations += R.Iterations;
    MostIterations = std::max(MostIterations, R.Iterations);
    CgIterations += R.LinearIterations;
    Seconds += R.Seconds;
    if (!Opt.Quiet)
      std::printf("step %3d: E %.9e -> %.9e, %d Newton iterations, %ld CG, "
                  "%.3f s, %s\n",
                  S, R.Energies.front(), R.Energy, R.Iterations,
                  R.LinearIterations, R.Seconds, toString(R.Reason));
  }
  std::printf("cloth: %d of %d steps converged, %.2f Newton iterations a step "
              "(at most %d), %.3f s a step (%s), %d factorizations\n",
              Decreasing, Opt.Steps,
              double(Iterations) / std::max(1, Opt.Steps), MostIterations,
              Seconds / std::max(1, Opt.Steps), precondName(Opt),
              C.P.cholesky().factorizations());
  MESHAD_CHECK_CLOSE_TOL("every step's energy decreases", Decreasing,
                         Opt.Steps, 0);
  std::vector<double> End = C.X.download();
  double Low = 0;
  for (int I = 0; I < C.NV; ++I)
    Low = std::min(Low, End[3 * I + 1]);
  for (int V : C.Corners)
    for (int K = 0; K < 3; ++K)
      MESHAD_CHECK_CLOSE_TOL("pinned corner " + std::to_string(V), End[3 * V + K],
                             Start[3 * V + K], 0);
  std::printf("cloth: %d Newton iterations, %ld CG iterations (%s), lowest "
              "point y = %.4f\n",
              Iterations, CgIterations, precondName(Opt), Low);
  MESHAD_CHECK_CLOSE_TOL("the cloth sags", Low < -0.01, 1, 0);
  if (!Opt.Obj.empty())
    C.writeObj(Opt.Obj);
  if (!Opt.Png.empty())
    C.writePng(Opt.Png);
  int Status = mt::summary();
  std::printf("cloth: %s\n", Status ? "FAILED" : "OK");
  return Status;
}
