//===- benchmarks/solve/param-bench.cu - Newton solves against the peers ---===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
//
// The parameterization of demos/parameterization as a benchmark: symmetric
// Dirichlet from Tutte's embedding (uniform weights) of a disk patch of a
// mesh (or the whole disk, or the whole disk subdivided 1 -> 4 once or
// twice), minimized by meshad's Newton (meshad/runtime/solve: per-element
// PSD-projected Hessians, block-Jacobi PCG with the inexact-Newton
// tolerance, Armijo backtracking from 0.8 of the flip-free step). Per size:
//   newton-iteration  the energy and gradient at the Tutte map and one
//                     Newton iteration (Hessian, PCG, line search, new
//                     gradient), the median of --reps runs;
//   solve             the whole solve to |g| <= 1e-6 (at most 200
//                     iterations), once after one warm-up;
// and the problem exported (--export=DIR: NAME.tris int32, NAME.uv and
// NAME.params float64, problems.txt) for newton_peers.py, which runs the
// same algorithm in JAX and PyTorch. CSV rows (--csv=FILE) in the schema of
// benchmarks/peers (problem, energy, elements, vertices, op, framework,
// variant, median_ms, min_ms, reps, first_call_s, rel_error, note); the
// note of a solve row gives its iterations, CG iterations and energy.
//
// Usage: param-bench MESH [--sizes=200,600,0,-1,-2] [--reps=5]
//                          [--export=DIR] [--csv=FILE] [--cg=unfused]
//   --cg=unfused: PCG's iteration in nine launches, not three
//   (CgOptions::FusedKernels), to compare.
//   a size > 0: a disk patch of that many triangles; 0: the whole mesh;
//   -k: the whole mesh subdivided k times.
// GPU: scripts/gpu/solver-bench.sh builds and runs it.
//
//===----------------------------------------------------------------------===//

#include "../../demos/parameterization/ParamSetup.h"
#include "../../demos/parameterization/SymmetricDirichlet.h"
#include <meshad/Differentiator.h>
#include <meshad/runtime/MeshIO.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <string>

/// The local energy's term (symmetricDirichlet in the shared header; the
/// derivatives that meshad generates from it come after its #include line).
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

namespace rt = meshad::runtime;
namespace sv = meshad::runtime::solve;

/// Each triangle split into four at its edges' midpoints.
static rt::TriMesh subdivide(const rt::TriMesh &M) {
  rt::TriMesh S;
  S.X = M.X;
  std::map<std::pair<int, int>, int> Mid;
  auto Midpoint = [&](int A, int B) {
    auto Key = std::make_pair(std::min(A, B), std::max(A, B));
    auto It = Mid.find(Key);
    if (It != Mid.end())
      return It->second;
    int V = S.numVertices();
    for (int K = 0; K < 3; ++K)
      S.X.push_back(0.5 * (M.X[3 * A + K] + M.X[3 * B + K]));
    return Mid[Key] = V;
  };
  for (int T = 0; T < M.numTriangles(); ++T) {
    int A = M.Tris[3 * T], B = M.Tris[3 * T + 1], C = M.Tris[3 * T + 2];
    int Ab = Midpoint(A, B), Bc = Midpoint(B, C), Ca = Midpoint(C, A);
    S.Tris.insert(S.Tris.end(), {A, Ab, Ca, Ab, B, Bc, Ca, Bc, C, Ab, Bc, Ca});
  }
  return S;
}

struct Options {
  std::string Mesh, Export, Csv;
  std::vector<int> Sizes{200, 600, 0, -1, -2};
  int Reps = 5;
  bool Unfused = false; ///< --cg=unfused: CgOptions::FusedKernels off
};

template <class V>
static void writeRaw(const std::string &Path, const std::vector<V> &Data) {
  std::ofstream(Path, std::ios::binary)
      .write(reinterpret_cast<const char *>(Data.data()),
             static_cast<std::streamsize>(Data.size() * sizeof(V)));
}

static std::string problemName(int Size) {
  return Size > 0   ? "param-patch" + std::to_string(Size)
         : Size == 0 ? std::string("param-whole")
                     : "param-sub" + std::to_string(-Size);
}

static rt::TriMesh problemMesh(const rt::TriMesh &Whole, int Size) {
  rt::TriMesh M = Size > 0 ? demo::diskPatch(Whole, Size) : Whole;
  for (int K = 0; K < -Size; ++K)
    M = subdivide(M);
  demo::normalizeArea(M, 3.14159265358979323846);
  return M;
}


static double median(std::vector<double> V) {
  std::sort(V.begin(), V.end());
  return V[V.size() / 2];
}

/// Times one size; appends its CSV rows.
static void benchSize(const Options &Opt, const rt::TriMesh &Whole, int Size,
                      std::FILE *Csv, std::FILE *Problems) {
  rt::TriMesh M = problemMesh(Whole, Size);
  std::string Name = problemName(Size);
  // Tutte's map, the rest shapes and the problem, as the demo's.
  demo::ParamSetup<SymmetricDirichlet> S(M, demo::TutteWeights::Uniform);
  const std::vector<double> &Init = S.Init, &Params = S.Params;
  if (!Opt.Export.empty()) {
    writeRaw(Opt.Export + "/" + Name + ".tris", M.Tris);
    writeRaw(Opt.Export + "/" + Name + ".uv", Init);
    writeRaw(Opt.Export + "/" + Name + ".params", Params);
    std::fprintf(Problems, "%s %d %d\n", Name.c_str(), M.numVertices(),
                 M.numTriangles());
  }
  sv::SolveOptions<double> O = S.solveOptions(200);
  O.Quiet = true;
  O.Cg.FusedKernels = !Opt.Unfused;
  auto Run = [&](int Iterations, sv::SolveReport &R) {
    O.MaxIterations = Iterations;
    S.X.upload(Init);
    cudaDeviceSynchronize();
    auto Start = std::chrono::steady_clock::now();
    R = sv::newton(S.P, S.X.data(), O);
    cudaDeviceSynchronize();
    return 1e3 * std::chrono::duration<double>(
                     std::chrono::steady_clock::now() - Start).count();
  };
  sv::SolveReport R;
  double First = Run(1, R);
  std::vector<double> Times;
  for (int K = 0; K < Opt.Reps; ++K)
    Times.push_back(Run(1, R));
  auto Row = [&](const char *Op, double Med, double Min, int Reps,
                 const std::string &Note) {
    std::fprintf(Csv, "%s,param,%d,%d,%s,meshad,meshad newton,%.6g,%.6g,%d,%.6g,,%s\n",
                 Name.c_str(), M.numTriangles(), M.numVertices(), Op, Med, Min,
                 Reps, First / 1e3, Note.c_str());
  };
  Row("newton-iteration", median(Times),
      *std::min_element(Times.begin(), Times.end()), Opt.Reps,
      "cg " + std::to_string(R.LinearIterations));
  Run(200, R); // warm-up
  double Solve = Run(200, R);
  char Note[160];
  std::snprintf(Note, sizeof Note, "%d iterations; cg %ld; E %.9g; gnorm %.2e; %s",
                R.Iterations, R.LinearIterations, R.Energy, R.GradientNorm,
                sv::toString(R.Reason));
  Row("solve", Solve, Solve, 1, Note);
  std::printf("%-14s %7d triangles: newton iteration %9.3f ms, solve %10.1f ms "
              "(%s; %.1f us per CG iteration, %s)\n",
              Name.c_str(), M.numTriangles(), median(Times), Solve, Note,
              1e3 * Solve / std::max(1L, R.LinearIterations),
              Opt.Unfused ? "unfused" : "fused");
  std::fflush(stdout);
}

static std::vector<int> parseSizes(const char *S) {
  std::vector<int> V;
  for (const char *P = S; *P;) {
    V.push_back(std::atoi(P));
    P = std::strchr(P, ',');
    if (!P)
      break;
    ++P;
  }
  return V;
}

int main(int Argc, char **Argv) {
  Options Opt;
  for (int I = 1; I < Argc; ++I) {
    const char *A = Argv[I];
    if (!std::strncmp(A, "--sizes=", 8))
      Opt.Sizes = parseSizes(A + 8);
    else if (!std::strncmp(A, "--reps=", 7))
      Opt.Reps = std::max(1, std::atoi(A + 7));
    else if (!std::strncmp(A, "--export=", 9))
      Opt.Export = A + 9;
    else if (!std::strncmp(A, "--cg=", 5))
      Opt.Unfused = !std::strcmp(A + 5, "unfused");
    else if (!std::strncmp(A, "--csv=", 6))
      Opt.Csv = A + 6;
    else
      Opt.Mesh = A;
  }
  if (Opt.Mesh.empty()) {
    std::fprintf(stderr, "usage: param-bench MESH [--sizes=...] [--reps=N] "
                         "[--export=DIR] [--csv=FILE]\n");
    return 2;
  }
  // The request that generates symmetricDirichlet_grad_0 (SymmetricDirichlet).
  auto Gradient = meshad::gradient(symmetricDirichlet, "x");
  (void)Gradient;
  rt::TriMesh Whole = rt::readTriMesh(Opt.Mesh);
  std::FILE *Csv = Opt.Csv.empty() ? stdout : std::fopen(Opt.Csv.c_str(), "w");
  std::FILE *Problems =
      Opt.Export.empty() ? nullptr
                         : std::fopen((Opt.Export + "/problems.txt").c_str(), "w");
  std::fprintf(Csv, "problem,energy,elements,vertices,op,framework,variant,"
                    "median_ms,min_ms,reps,first_call_s,rel_error,note\n");
  for (int Size : Opt.Sizes)
    benchSize(Opt, Whole, Size, Csv, Problems);
  if (Problems)
    std::fclose(Problems);
  if (Csv != stdout)
    std::fclose(Csv);
  return 0;
}
