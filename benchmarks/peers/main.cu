//===- benchmarks/peers/main.cu - meshad's side of the peer comparison ----===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Per problem of Problems.h (three energies, three sizes each), fp64, in
/// one process on the same inputs, meshad's and the hand-written kernels
/// for the four operations that peers.py times in JAX and PyTorch:
///
///   gradient      meshad two-phase, meshad atomics, hand gather, hand scatter
///   grad+hessian  meshad::hessian (ElementHessian: E, gradient, block CSR)
///   hvp           meshad::hvp (matrix-free); the assembled Hessian's SpMV
///                 alone; assembly + SpMV
///   newton        gradient + Hessian, then CG_ITERS unpreconditioned CG
///                 iterations on H d = -g from d = 0 (no early stop)
///
/// Checks: the gradients against the hand gather, the HVP against central
/// differences of the gradient along v (sampled), the assembled H v and the
/// Hessian's gradient against those. Timing: CUDA events around each call
/// (zeroing its outputs included, as a peer allocates them), 3 warm-ups,
/// the median of --reps (--reps-large at the largest size). Writes
/// --csv=FILE (rows of peers.py's format) and, with --export=DIR, each
/// problem, the direction v and meshad's results for peers.py.
///
//===----------------------------------------------------------------------===//

#include "Ops.h"
#include "Problems.h"

#include <meshad/runtime/Incidence.h>
#include <meshad/runtime/solve/DeviceVector.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

using namespace elements;
using peers::MeshadOps;

namespace {

struct Options {
  int Reps = 20, RepsLarge = 10, CgIters = 50;
  bool Small = false;
  std::string Only, Export, Csv = "meshad.csv", MeshDir = "data/meshes", Tets;
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

std::vector<double> download(const double *D, size_t N) {
  std::vector<double> H(N);
  cudaCheck(cudaMemcpy(H.data(), D, N * sizeof(double), cudaMemcpyDeviceToHost),
            "download");
  return H;
}

/// max |Got - Want| / max |Want|; a NaN or infinity anywhere gives infinity.
double relError(const std::vector<double> &Got,
                const std::vector<double> &Want) {
  double Worst = 0, Scale = 0;
  for (size_t I = 0; I < Want.size(); ++I) {
    double D = std::fabs(Got[I] - Want[I]);
    Worst = std::isfinite(D) ? std::max(Worst, D) : INFINITY;
    Scale = std::max(Scale, std::fabs(Want[I]));
  }
  return Scale > 0 ? Worst / Scale : Worst;
}

struct Timing {
  double MedianMs = 0, MinMs = 0, FirstMs = 0;
  int Reps = 0;
};

/// The first call (timed alone: one-time setup shows there), 3 warm-ups,
/// then the median of \p Reps calls, each between two CUDA events.
Timing timeIt(int Reps, const std::function<void()> &Run) {
  cudaEvent_t Start, Stop;
  cudaEventCreate(&Start);
  cudaEventCreate(&Stop);
  auto Once = [&] {
    cudaEventRecord(Start);
    Run();
    cudaEventRecord(Stop);
    cudaCheck(cudaEventSynchronize(Stop), "timed call");
    float Ms = 0;
    cudaEventElapsedTime(&Ms, Start, Stop);
    return static_cast<double>(Ms);
  };
  Timing T;
  T.FirstMs = Once();
  for (int I = 0; I < 3; ++I)
    Once();
  std::vector<double> Ms;
  for (int I = 0; I < Reps; ++I)
    Ms.push_back(Once());
  std::sort(Ms.begin(), Ms.end());
  T.MedianMs = Ms[Ms.size() / 2];
  T.MinMs = Ms.front();
  T.Reps = Reps;
  cudaEventDestroy(Start);
  cudaEventDestroy(Stop);
  return T;
}

/// One problem on the device, with the buffers every operation uses.
struct Run {
  const Options &O;
  const peers::ProblemSpec &Spec;
  const HostProblem &H;
  MeshadOps Ops;
  Problem P;
  int Reps;
  size_t Dofs;
  double *X, *E, *DE, *Out, *V, *HV;
  std::ofstream &Csv;

  void row(const char *Op, const char *Variant, const Timing &T, double Err,
           const char *Note = "") {
    Csv << Spec.Key << ',' << Spec.Energy << ',' << H.numElements() << ','
        << H.numVertices() << ',' << Op << ",meshad," << Variant << ','
        << T.MedianMs << ',' << T.MinMs << ',' << T.Reps << ','
        << T.FirstMs / 1e3 << ',' << Err << ',' << Note << '\n';
    Csv.flush();
    std::printf("   %-12s %-34s %10.4f ms  rel error %.1e  (first call "
                "%.1f ms)\n",
                Op, Variant, T.MedianMs, Err, T.FirstMs);
  }
  void zero(double *Ptr) { cudaMemset(Ptr, 0, Dofs * sizeof(double)); }
};

bool AllOk = true;

void check(const char *What, double Err, double Tol) {
  bool Ok = Err <= Tol;
  AllOk &= Ok;
  if (!Ok)
    std::printf("   FAIL: %s: rel error %.2e > %.0e\n", What, Err, Tol);
}

/// The gradient: four variants, each checked against the hand gather.
std::vector<double> runGradients(Run &R) {
  const std::pair<const char *, GradientFn> Variants[] = {
      {"hand gather", handGather},
      {"meshad two-phase", R.Ops.Gradient},
      {"meshad atomics", R.Ops.GradientAtomics},
      {"hand scatter (atomics)", handScatter}};
  std::vector<double> Ref, TwoPhase;
  for (const auto &[Name, Fn] : Variants) {
    R.zero(R.Out);
    Fn(R.P, R.X, R.E, R.Out, R.DE);
    std::vector<double> G = download(R.Out, R.Dofs);
    if (Ref.empty())
      Ref = G;
    if (!std::strcmp(Name, "meshad two-phase"))
      TwoPhase = G;
    double Err = relError(G, Ref);
    check(Name, Err, 1e-9);
    Timing T = timeIt(R.Reps, [&, F = Fn] {
      R.zero(R.Out);
      F(R.P, R.X, R.E, R.Out, R.DE);
    });
    R.row("gradient", Name, T, Err);
  }
  return TwoPhase;
}

/// The mean length of the elements' first edges: the scale of a step.
double meanEdge(const HostProblem &H) {
  double Sum = 0;
  for (int T = 0; T < H.numElements(); ++T) {
    const double *A = &H.X[3 * H.Elements[H.Arity * T]];
    const double *B = &H.X[3 * H.Elements[H.Arity * T + 1]];
    Sum += std::sqrt((A[0] - B[0]) * (A[0] - B[0]) +
                     (A[1] - B[1]) * (A[1] - B[1]) +
                     (A[2] - B[2]) * (A[2] - B[2]));
  }
  return Sum / std::max(1, H.numElements());
}

/// The HVP against central differences of the gradient along v (|v| <= 1,
/// a step of 1e-5 mean edges), at about 4096 sampled entries, relative to
/// the largest |Hv|.
double hvpVersusDifferences(Run &R, const std::vector<double> &Hv) {
  std::vector<double> Xh = download(R.X, R.Dofs), Vh = download(R.V, R.Dofs);
  const double Step = 1e-5 * meanEdge(R.H);
  std::vector<double> G[2];
  double *Xs = nullptr;
  cudaMalloc(reinterpret_cast<void **>(&Xs), R.Dofs * sizeof(double));
  for (int S = 0; S < 2; ++S) {
    std::vector<double> Xp(Xh);
    for (size_t I = 0; I < Xp.size(); ++I)
      Xp[I] += (S ? -Step : Step) * Vh[I];
    cudaMemcpy(Xs, Xp.data(), R.Dofs * sizeof(double), cudaMemcpyHostToDevice);
    R.zero(R.Out);
    handGather(R.P, Xs, R.E, R.Out, R.DE);
    G[S] = download(R.Out, R.Dofs);
  }
  cudaFree(Xs);
  double MaxHv = 1e-300, Worst = 0;
  for (double H : Hv)
    MaxHv = std::max(MaxHv, std::fabs(H));
  for (size_t I = 0; I < R.Dofs; I += std::max<size_t>(1, R.Dofs / 4096)) {
    double Fd = (G[0][I] - G[1][I]) / (2 * Step);
    double D = std::fabs(Fd - Hv[I]);
    Worst = std::isfinite(D) ? std::max(Worst, D) : INFINITY;
  }
  return Worst / MaxHv;
}

/// Gradient + Hessian, then the HVPs; returns meshad's Hv.
std::vector<double> runHessianAndHvp(Run &R, const std::vector<double> &Grad) {
  R.zero(R.Out);
  R.Ops.Hessian(R.P, R.X, nullptr, R.Out);
  double GradErr = relError(download(R.Out, R.Dofs), Grad);
  check("gradient of meshad::hessian", GradErr, 1e-9);
  R.row("grad+hessian", "meshad::hessian (block CSR)",
        timeIt(R.Reps, [&] {
          R.zero(R.Out);
          R.Ops.Hessian(R.P, R.X, nullptr, R.Out);
        }),
        GradErr);
  std::printf("   Hessian: %ld blocks of 3x3\n", R.Ops.NumBlocks());

  R.zero(R.HV);
  R.Ops.Hvp(R.P, R.X, R.E, R.V, R.HV, R.DE);
  std::vector<double> Hv = download(R.HV, R.Dofs);
  double FdErr = hvpVersusDifferences(R, Hv);
  check("meshad::hvp vs central differences", FdErr, 1e-6);
  R.row("hvp", "meshad::hvp (matrix-free)", timeIt(R.Reps, [&] {
          R.zero(R.HV);
          R.Ops.Hvp(R.P, R.X, R.E, R.V, R.HV, R.DE);
        }),
        FdErr, "error vs central differences");
  R.Ops.Multiply(R.V, R.Out);
  double SpmvErr = relError(download(R.Out, R.Dofs), Hv);
  check("assembled H v vs meshad::hvp", SpmvErr, 1e-9);
  R.row("hvp", "meshad assembled SpMV only",
        timeIt(R.Reps, [&] { R.Ops.Multiply(R.V, R.Out); }), SpmvErr);
  R.row("hvp", "meshad assemble + SpMV", timeIt(R.Reps, [&] {
          R.Ops.Hessian(R.P, R.X, nullptr, nullptr);
          R.Ops.Multiply(R.V, R.Out);
        }),
        SpmvErr);
  return Hv;
}

/// One Newton iteration: gradient + Hessian, then CgIters iterations of
/// plain CG on H d = -g from d = 0 (the same in peers.py). Leaves d in Out.
void newtonStep(Run &R, double *R0, double *Pk, double *Ap) {
  using namespace meshad::runtime::solve;
  long N = static_cast<long>(R.Dofs);
  R.zero(R0);
  R.Ops.Hessian(R.P, R.X, nullptr, R0);
  axpby(N, 0.0, R0, -1.0, R0); // r = b = -g
  copy(N, R0, Pk);
  R.zero(R.Out);
  double RR = dot(N, R0, R0);
  for (int K = 0; K < R.O.CgIters && RR > 0; ++K) {
    R.Ops.Multiply(Pk, Ap);
    double Alpha = RR / dot(N, Pk, Ap);
    axpy(N, Alpha, Pk, R.Out);
    axpy(N, -Alpha, Ap, R0);
    double RRNew = dot(N, R0, R0);
    axpby(N, 1.0, R0, RRNew / RR, Pk);
    RR = RRNew;
  }
}

std::vector<double> runNewton(Run &R) {
  double *Bufs[3];
  for (double *&B : Bufs)
    cudaCheck(cudaMalloc(reinterpret_cast<void **>(&B),
                         R.Dofs * sizeof(double)),
              "cudaMalloc");
  newtonStep(R, Bufs[0], Bufs[1], Bufs[2]);
  std::vector<double> D = download(R.Out, R.Dofs);
  std::string Name =
      "meshad::hessian + " + std::to_string(R.O.CgIters) + " CG";
  R.row("newton", Name.c_str(), timeIt(R.Reps, [&] {
          newtonStep(R, Bufs[0], Bufs[1], Bufs[2]);
        }),
        0.0, "reference");
  for (double *B : Bufs)
    cudaFree(B);
  return D;
}

void writeBin(const std::string &Path, const void *Data, size_t Bytes) {
  std::ofstream Out(Path, std::ios::binary);
  Out.write(static_cast<const char *>(Data), Bytes);
}

void exportProblem(const Options &O, const peers::ProblemSpec &S,
                   const HostProblem &H,
                   const std::vector<std::pair<const char *,
                                               std::vector<double>>> &Arrays) {
  std::string Base = O.Export + "/" + S.Key;
  writeBin(Base + ".elements.bin", H.Elements.data(), H.Elements.size() * 4);
  for (const auto &[Name, A] : Arrays)
    writeBin(Base + "." + Name + ".bin", A.data(), A.size() * 8);
  std::ofstream Meta(Base + ".meta");
  Meta << S.Key << " " << H.numVertices() << " " << H.numElements() << " "
       << H.Arity << " " << S.Energy << " " << O.CgIters << "\n";
}

/// A direction with entries in [-1, 1] (reproducible).
std::vector<double> direction(size_t N) {
  Jitter J;
  J.State = 12345;
  std::vector<double> V(N);
  for (double &Vi : V)
    Vi = J(1.0);
  return V;
}

void runProblem(const Options &O, const peers::ProblemSpec &S,
                const HostProblem &H, MeshadOps Ops, bool Largest,
                std::ofstream &Csv) {
  std::printf("== %s (%s): %d vertices, %d elements\n", S.Key.c_str(),
              H.Name.c_str(), H.numVertices(), H.numElements());
  Problem P;
  P.Kind = H.Kind;
  P.NumElements = H.numElements();
  P.Arity = H.Arity;
  P.NumVertices = H.numVertices();
  P.Elements = upload(H.Elements);
  P.Rest = upload(H.Rest);
  P.Measure = upload(H.Measure);
  meshad::runtime::Incidence Inc(P.Elements, P.NumElements, P.Arity,
                                 P.NumVertices);
  P.IncOffsets = Inc.offsets();
  P.IncSlots = Inc.slots();
  Ops.Changed();
  std::vector<double> Vh = direction(H.X.size());
  size_t Dofs = H.X.size();
  Run R{O,         S,           H,           Ops,
        P,         Largest ? O.RepsLarge : O.Reps,
        Dofs,      upload(H.X), upload(std::vector<double>{0.0}),
        upload(std::vector<double>{1.0}),
        upload(std::vector<double>(Dofs, 0.0)),
        upload(Vh), upload(std::vector<double>(Dofs, 0.0)),
        Csv};
  std::vector<double> Grad = runGradients(R);
  std::vector<double> Hv = runHessianAndHvp(R, Grad);
  std::vector<double> Newton = runNewton(R);
  if (!O.Export.empty())
    exportProblem(O, S, H,
                  {{"x", H.X}, {"rest", H.Rest}, {"measure", H.Measure},
                   {"grad", Grad}, {"v", Vh}, {"hv", Hv}, {"newton", Newton}});
  for (const void *Ptr : {(const void *)P.Elements, (const void *)P.Rest,
                          (const void *)P.Measure, (const void *)R.X,
                          (const void *)R.E, (const void *)R.DE,
                          (const void *)R.Out, (const void *)R.V,
                          (const void *)R.HV})
    cudaFree(const_cast<void *>(Ptr));
}

MeshadOps opsFor(const std::string &Energy) {
  if (Energy == "spring")
    return peers::springOps();
  if (Energy == "dirichlet")
    return peers::dirichletOps();
  return peers::neoHookeanOps();
}

bool parse(int Argc, char **Argv, Options &O) {
  for (int I = 1; I < Argc; ++I) {
    std::string A = Argv[I];
    auto Value = [&](const char *Flag, std::string &To) {
      if (A.rfind(Flag, 0) != 0)
        return false;
      To = A.substr(std::strlen(Flag));
      return true;
    };
    std::string N;
    if (A == "--small")
      O.Small = true;
    else if (Value("--reps=", N))
      O.Reps = std::atoi(N.c_str());
    else if (Value("--reps-large=", N))
      O.RepsLarge = std::atoi(N.c_str());
    else if (Value("--cg-iters=", N))
      O.CgIters = std::atoi(N.c_str());
    else if (!Value("--only=", O.Only) && !Value("--export=", O.Export) &&
             !Value("--csv=", O.Csv) && !Value("--mesh-dir=", O.MeshDir) &&
             !Value("--tets=", O.Tets))
      return false;
  }
  return O.Reps >= 1 && O.RepsLarge >= 1 && O.CgIters >= 1;
}

} // namespace

int main(int Argc, char **Argv) {
  Options O;
  if (!parse(Argc, Argv, O)) {
    std::fprintf(stderr,
                 "usage: %s [--small] [--reps=N] [--reps-large=N] "
                 "[--cg-iters=N] [--only=PART_OF_KEY] [--export=DIR] "
                 "[--csv=FILE] [--mesh-dir=DIR] --tets=TETGEN_BASE\n",
                 Argv[0]);
    return 2;
  }
#if defined(MESHAD_CPU_CUDA)
  std::printf("device: the CPU emulation (timings mean nothing)\n");
#else
  cudaDeviceProp Prop;
  cudaCheck(cudaGetDeviceProperties(&Prop, 0), "device");
  std::printf("device: %s\n", Prop.name);
#endif
  std::ofstream Csv(O.Csv);
  Csv << "problem,energy,elements,vertices,op,framework,variant,median_ms,"
         "min_ms,reps,first_call_s,rel_error,note\n";
  try {
    for (const peers::ProblemSpec &S : peers::problemSpecs(O.Small)) {
      if (!O.Only.empty() && S.Key.find(O.Only) == std::string::npos)
        continue;
      if (S.Energy == "neohookean" && O.Tets.empty())
        continue;
      HostProblem H = S.Make(O.MeshDir, O.Tets);
      runProblem(O, S, H, opsFor(S.Energy), S.Key.back() == '3', Csv);
    }
  } catch (const meshad::runtime::MeshError &Err) {
    std::fprintf(stderr, "error: %s\n", Err.what());
    return 1;
  }
  std::printf("%s\n", AllOk ? "ALL MESHAD CHECKS PASSED"
                            : "SOME MESHAD CHECKS FAILED");
  return AllOk ? 0 : 1;
}
