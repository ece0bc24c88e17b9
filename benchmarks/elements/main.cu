//===- benchmarks/elements/main.cu - The element-kernel benchmark ---------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Gradients of three element energies (mass-spring grid, symmetric
/// Dirichlet on a subdivided real triangle mesh, neo-Hookean on a real tet
/// mesh), each by meshad (two-phase slots, gather, atomics, and the default,
/// whose gathers choose at run time from the mesh's numbering: the springs
/// and the triangles again with shuffled vertex numbers; Fastest, whose
/// springs choose between the gather and atomics, also on springs shuffled
/// within blocks) and by three
/// hand-written kernels (atomic scatter, gather by recomputation, two-phase
/// slots), in one process on the same inputs: every variant checked
/// against a CPU sum of hand-derived local
/// gradients (themselves checked by central differences), run three times
/// to see whether it is bitwise reproducible, then timed (CUDA events,
/// warm-up, median). --export=DIR writes each problem and meshad's gradient
/// for benchmarks/elements/peers.py (JAX, PyTorch).
///
//===----------------------------------------------------------------------===//

#include "Meshes.h"

#include <meshad/runtime/Incidence.h>
#include <meshad/runtime/NumberingLocality.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

using namespace elements;

namespace {

struct Options {
  int Reps = 20;
  std::string Only, Export, MeshDir = "data/meshes", Tets;
  bool Small = false;
};

void cudaCheck(cudaError_t E, const char *What) {
  if (E != cudaSuccess) {
    std::fprintf(stderr, "CUDA error in %s: %s\n", What, cudaGetErrorString(E));
    std::exit(2);
  }
}

template <class T> T *upload(const std::vector<T> &H) {
  T *D = nullptr;
  cudaCheck(cudaMalloc(reinterpret_cast<void **>(&D),
                       std::max<size_t>(1, H.size()) * sizeof(T)),
            "cudaMalloc");
  cudaCheck(cudaMemcpy(D, H.data(), H.size() * sizeof(T),
                       cudaMemcpyHostToDevice),
            "upload");
  return D;
}

/// The CPU reference: the sum of the local gradients; and a check of the
/// local gradients themselves against central differences of the energy
/// (about 50 elements; the error relative to the element's largest entry).
std::vector<double> reference(const HostProblem &H, double &FdError) {
  std::vector<double> G(H.X.size(), 0.0);
  double Local[12];
  for (int T = 0; T < H.numElements(); ++T) {
    localGradient(H.Kind, H.Elements.data(), H.Rest.data(), H.Measure.data(),
                  H.X.data(), T, Local);
    for (int J = 0; J < H.Arity; ++J)
      for (int K = 0; K < 3; ++K)
        G[3 * H.Elements[H.Arity * T + J] + K] += Local[3 * J + K];
  }
  FdError = 0;
  std::vector<double> X = H.X;
  for (int T = 0; T < H.numElements(); T += std::max(1, H.numElements() / 50)) {
    localGradient(H.Kind, H.Elements.data(), H.Rest.data(), H.Measure.data(),
                  X.data(), T, Local);
    double Scale = 1e-300, Size = 0;
    const double *A = &X[3 * H.Elements[H.Arity * T]];
    const double *B = &X[3 * H.Elements[H.Arity * T + 1]];
    for (int K = 0; K < 3; ++K)
      Size += (A[K] - B[K]) * (A[K] - B[K]);
    Size = std::sqrt(Size); // the element's first edge: the step's scale
    for (int I = 0; I < 3 * H.Arity; ++I)
      Scale = std::max(Scale, std::fabs(Local[I]));
    for (int I = 0; I < 3 * H.Arity; ++I) {
      double &Xi = X[3 * H.Elements[H.Arity * T + I / 3] + I % 3];
      double Saved = Xi, Step = 1e-5 * Size;
      auto E = [&](double V) {
        Xi = V;
        return localEnergy(H.Kind, H.Elements.data(), H.Rest.data(),
                           H.Measure.data(), X.data(), T);
      };
      double Fd = (E(Saved + Step) - E(Saved - Step)) / (2 * Step);
      Xi = Saved;
      double Err = std::fabs(Fd - Local[I]) / Scale;
      FdError = std::isfinite(Err) ? std::max(FdError, Err) : INFINITY;
    }
  }
  return G;
}

/// False once a hand-derived local gradient disagreed with central
/// differences (the check of the reference itself).
bool ReferenceOk = true;

struct Variant {
  const char *Name;
  GradientFn Fn;
  bool AtomicFree;
};

struct Row {
  std::string Problem, Variant;
  double Ms, RelError;
  bool Bitwise;
};

void writeBin(const std::string &Path, const void *Data, size_t Bytes) {
  std::ofstream Out(Path, std::ios::binary);
  Out.write(static_cast<const char *>(Data), Bytes);
}

void exportProblem(const Options &O, const HostProblem &H, const char *Key,
                   const std::vector<double> &Meshad) {
  std::string Base = O.Export + "/" + Key;
  writeBin(Base + ".x.bin", H.X.data(), H.X.size() * 8);
  writeBin(Base + ".elements.bin", H.Elements.data(), H.Elements.size() * 4);
  writeBin(Base + ".rest.bin", H.Rest.data(), H.Rest.size() * 8);
  writeBin(Base + ".measure.bin", H.Measure.data(), H.Measure.size() * 8);
  writeBin(Base + ".grad.bin", Meshad.data(), Meshad.size() * 8);
  std::ofstream Meta(Base + ".meta");
  Meta << Key << " " << H.numVertices() << " " << H.numElements() << " "
       << H.Arity << "\n";
}

/// meshad's gradients of one problem (kernels.cu).
struct MeshadFns {
  GradientFn TwoPhase, Atomics, Gather;
  /// The same without plain slot stores and own-part pullbacks.
  GradientFn TwoPhaseAdd, GatherWhole;
  /// The default (Auto): for gathers, chosen at run time.
  GradientFn Auto;
  /// ElementStrategy::Fastest: the gather or atomics (springs, at run
  /// time), atomics (triangles); none for the tets.
  GradientFn Fastest = nullptr;
};

void runProblem(const Options &O, const HostProblem &H, const char *Key,
                MeshadFns Meshad, std::vector<Row> &Rows) {
  std::printf("== %s: %d vertices, %d elements\n", H.Name.c_str(),
              H.numVertices(), H.numElements());
  meshadMeshChanged();
  baseline::meshadMeshChanged();
  double FdError = 0;
  std::vector<double> Ref = reference(H, FdError);
  std::printf("   hand-derived local gradients vs central differences: "
              "max rel error %.2e %s\n", FdError, FdError < 1e-5 ? "ok" : "BAD");
  ReferenceOk &= FdError < 1e-5;
  Problem P;
  P.Kind = H.Kind;
  P.NumElements = H.numElements();
  P.Arity = H.Arity;
  P.NumVertices = H.numVertices();
  P.Elements = upload(H.Elements);
  P.Rest = upload(H.Rest);
  P.Measure = upload(H.Measure);
  double *X = upload(H.X);
  double *E = upload(std::vector<double>{0.0});
  double *DE = upload(std::vector<double>{1.0});
  double *DX = upload(std::vector<double>(H.X.size(), 0.0));
  cudaEvent_t Start, Stop;
  cudaEventCreate(&Start);
  cudaEventCreate(&Stop);
  cudaEventRecord(Start);
  meshad::runtime::Incidence Inc(P.Elements, P.NumElements, P.Arity,
                                 P.NumVertices);
  cudaEventRecord(Stop);
  cudaEventSynchronize(Stop);
  float IncMs = 0;
  cudaEventElapsedTime(&IncMs, Start, Stop);
  std::printf("   incidence built on the GPU in %.3f ms (once per mesh)\n", IncMs);
  P.IncOffsets = Inc.offsets();
  P.IncSlots = Inc.slots();
  std::vector<double> Zero(3L * P.NumElements * P.Arity, 0.0);
  P.SlotBuf = upload(Zero);

  const Variant Variants[] = {{"meshad-twophase", Meshad.TwoPhase, true},
                              {"meshad-gather", Meshad.Gather, true},
                              {"meshad-twophase-add", Meshad.TwoPhaseAdd, true},
                              {"meshad-gather-whole", Meshad.GatherWhole, true},
                              {"meshad-auto", Meshad.Auto, true},
                              {"meshad-fastest", Meshad.Fastest, false},
                              {"meshad-atomics", Meshad.Atomics, false},
                              {"hand scatter (atomics)", handScatter, false},
                              {"hand gather", handGather, true},
                              {"hand two-phase", handTwoPhase, true}};
  size_t Bytes = H.X.size() * sizeof(double);
  std::vector<double> Got(H.X.size()), First(H.X.size());
  for (const Variant &V : Variants) {
    if (!V.Fn)
      continue;
    bool Bitwise = true;
    for (int Run = 0; Run < 3; ++Run) {
      cudaMemset(DX, 0, Bytes);
      V.Fn(P, X, E, DX, DE);
      cudaCheck(cudaDeviceSynchronize(), V.Name);
      cudaMemcpy(Got.data(), DX, Bytes, cudaMemcpyDeviceToHost);
      if (Run == 0)
        First = Got;
      else
        Bitwise &= std::memcmp(Got.data(), First.data(), Bytes) == 0;
    }
    double Worst = 0, Scale = 0;
    for (size_t I = 0; I < Ref.size(); ++I) {
      double D = std::fabs(First[I] - Ref[I]);
      // A NaN or an infinity anywhere fails the check (max() would skip it).
      Worst = std::isfinite(D) ? std::max(Worst, D) : INFINITY;
      Scale = std::max(Scale, std::fabs(Ref[I]));
    }
    // The peers run the meshes in their own order only.
    if (!std::strcmp(V.Name, "meshad-twophase") && !O.Export.empty() &&
        H.Name.find("shuffled") == std::string::npos)
      exportProblem(O, H, Key, First);
    std::vector<double> Ms;
    for (int Rep = -3; Rep < O.Reps; ++Rep) {
      cudaMemset(DX, 0, Bytes);
      cudaEventRecord(Start);
      V.Fn(P, X, E, DX, DE);
      cudaEventRecord(Stop);
      cudaEventSynchronize(Stop);
      float T = 0;
      cudaEventElapsedTime(&T, Start, Stop);
      if (Rep >= 0)
        Ms.push_back(T);
    }
    std::sort(Ms.begin(), Ms.end());
    Rows.push_back({H.Name, V.Name, Ms[Ms.size() / 2], Worst / Scale, Bitwise});
    std::printf("   %-24s %9.4f ms  rel error %.1e  %s\n", V.Name,
                Ms[Ms.size() / 2], Worst / Scale,
                Bitwise ? "bitwise reproducible" : "not reproducible");
    if (!std::strcmp(V.Name, "meshad-auto")) {
      Rows.back().Variant += " (" + meshadAutoChoice(H.Kind) + ")";
      std::printf("   meshad-auto ran %s\n", meshadAutoChoice(H.Kind).c_str());
    }
    if (!std::strcmp(V.Name, "meshad-fastest") &&
        H.Kind == EnergyKind::Spring) {
      Rows.back().Variant += " (" + meshadFastestChoice() + ")";
      std::printf("   meshad-fastest ran %s\n", meshadFastestChoice().c_str());
    }
  }
  for (const void *Ptr : {(const void *)P.Elements, (const void *)P.Rest,
                          (const void *)P.Measure, (const void *)X,
                          (const void *)E, (const void *)DE, (const void *)DX,
                          (const void *)P.SlotBuf})
    cudaFree(const_cast<void *>(Ptr));
}

bool wanted(const Options &O, const char *Key) {
  return O.Only.empty() || O.Only == Key;
}

} // namespace

int main(int Argc, char **Argv) {
  Options O;
  for (int I = 1; I < Argc; ++I) {
    std::string A = Argv[I];
    auto Value = [&](const char *Flag) {
      return A.rfind(Flag, 0) == 0 ? A.substr(std::strlen(Flag)) : std::string();
    };
    if (A == "--small")
      O.Small = true;
    else if (!Value("--reps=").empty())
      O.Reps = std::atoi(Value("--reps=").c_str());
    else if (!Value("--only=").empty())
      O.Only = Value("--only=");
    else if (!Value("--export=").empty())
      O.Export = Value("--export=");
    else if (!Value("--mesh-dir=").empty())
      O.MeshDir = Value("--mesh-dir=");
    else if (!Value("--tets=").empty())
      O.Tets = Value("--tets=");
    else {
      std::fprintf(stderr,
                   "usage: %s [--small] [--reps=N] [--only=spring1m|"
                   "spring1m-shuffled|spring1m-block-shuffled|spring4m|"
                   "dirichlet|dirichlet-shuffled|"
                   "neohookean] [--export=DIR] [--mesh-dir=DIR] "
                   "[--tets=TETGEN_BASE]\n", Argv[0]);
      return 2;
    }
  }
#if defined(MESHAD_CPU_CUDA)
  std::printf("device: the CPU emulation (timings mean nothing)\n");
#else
  cudaDeviceProp Prop;
  cudaCheck(cudaGetDeviceProperties(&Prop, 0), "device");
  std::printf("device: %s\n", Prop.name);
#endif
  std::vector<Row> Rows;
  try {
    if (wanted(O, "spring1m"))
      runProblem(O, springGrid(O.Small ? 40 : 1000), "spring1m",
                 {springMeshadTwoPhase, springMeshadAtomics,
                  springMeshadGather, baseline::springMeshadTwoPhase,
                  baseline::springMeshadGather, springMeshadAuto,
                  springMeshadFastest}, Rows);
    // The same grid with shuffled vertex numbers: the run-time choice.
    if (wanted(O, "spring1m-shuffled"))
      runProblem(O, shuffledVertices(springGrid(O.Small ? 40 : 1000)),
                 "spring1m-shuffled",
                 {springMeshadTwoPhase, springMeshadAtomics,
                  springMeshadGather, baseline::springMeshadTwoPhase,
                  baseline::springMeshadGather, springMeshadAuto,
                  springMeshadFastest}, Rows);
    // Vertex numbers shuffled within blocks of 6 locality windows
    // (meshad/runtime/NumberingLocality.h): a locality of about 0.3,
    // between Auto's threshold and Fastest's.
    if (wanted(O, "spring1m-block-shuffled")) {
      HostProblem G = springGrid(O.Small ? 40 : 1000);
      int Window = static_cast<int>(
          meshad::runtime::localityWindow(G.numVertices()));
      runProblem(O, blockShuffledVertices(std::move(G), 6 * Window),
                 "spring1m-block-shuffled",
                 {springMeshadTwoPhase, springMeshadAtomics,
                  springMeshadGather, baseline::springMeshadTwoPhase,
                  baseline::springMeshadGather, springMeshadAuto,
                  springMeshadFastest}, Rows);
    }
    if (wanted(O, "spring4m") && !O.Small)
      runProblem(O, springGrid(2000), "spring4m",
                 {springMeshadTwoPhase, springMeshadAtomics,
                  springMeshadGather, baseline::springMeshadTwoPhase,
                  baseline::springMeshadGather, springMeshadAuto,
                  springMeshadFastest}, Rows);
    if (wanted(O, "dirichlet"))
      runProblem(O, dirichletMesh(O.MeshDir + "/camel.off", O.Small ? 20000 : 1000000),
                 "dirichlet",
                 {dirichletMeshadTwoPhase, dirichletMeshadAtomics,
                  dirichletMeshadGather, baseline::dirichletMeshadTwoPhase,
                  baseline::dirichletMeshadGather, dirichletMeshadAuto,
                  dirichletMeshadFastest}, Rows);
    if (wanted(O, "dirichlet-shuffled"))
      runProblem(O,
                 shuffledVertices(dirichletMesh(O.MeshDir + "/camel.off",
                                                O.Small ? 20000 : 1000000)),
                 "dirichlet-shuffled",
                 {dirichletMeshadTwoPhase, dirichletMeshadAtomics,
                  dirichletMeshadGather, baseline::dirichletMeshadTwoPhase,
                  baseline::dirichletMeshadGather, dirichletMeshadAuto,
                  dirichletMeshadFastest}, Rows);
    if (wanted(O, "neohookean") && !O.Tets.empty())
      runProblem(O, neoHookeanMesh(O.Tets), "neohookean",
                 {neoHookeanMeshadTwoPhase, neoHookeanMeshadAtomics,
                  neoHookeanMeshadGather, baseline::neoHookeanMeshadTwoPhase,
                  baseline::neoHookeanMeshadGather, neoHookeanMeshadAuto},
                 Rows);
  } catch (const meshad::runtime::MeshError &Err) {
    std::fprintf(stderr, "error: %s\n", Err.what());
    return 1;
  }
  std::printf("\n| problem | variant | median ms | vs hand gather | rel error | "
              "bitwise |\n|---|---|---|---|---|---|\n");
  for (const Row &R : Rows) {
    double Gather = 0;
    for (const Row &S : Rows)
      if (S.Problem == R.Problem && S.Variant == "hand gather")
        Gather = S.Ms;
    std::printf("| %s | %s | %.4f | %.2fx | %.1e | %s |\n", R.Problem.c_str(),
                R.Variant.c_str(), R.Ms, R.Ms / Gather, R.RelError,
                R.Bitwise ? "yes" : "no");
  }
  bool Ok = ReferenceOk;
  for (const Row &R : Rows)
    Ok &= R.RelError < 1e-9;
  std::printf("%s\n", Ok ? "ALL CHECKS PASSED" : "SOME CHECKS FAILED");
  return Ok ? 0 : 1;
}
