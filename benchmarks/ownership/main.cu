//===- benchmarks/ownership/main.cu - Ownership analysis benchmark --------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
//
// Times, for six access patterns, three gradient kernels of the same primal
// kernel on the same inputs in one process:
//   all-atomics   meshad with every adjoint store an atomicAdd,
//   meshad        meshad with its ownership decisions,
//   hand-written  what an expert writes (handwritten.cu).
// Every variant's gradient is first checked against the hand-written one
// and against a CPU reference (relative error per pattern; a FAIL line and
// exit status 1 above 1e-9). Then each variant runs Warmup times untimed
// and Reps times timed with CUDA events around the launch only: resetting
// the adjoints (memset of the input adjoints, copy of the output seed) is
// enqueued before the start event, outside the timed region, in every
// variant alike. Prints median (min-max) per variant and, last, a markdown
// table. Usage: see printUsage().
//
//===----------------------------------------------------------------------===//

#include "BenchSupport.h"
#include "Patterns.h"


#include <cstring>
#include <functional>
#include <memory>
#include <numeric>
#include <random>

using bench::DeviceBuffer;
using bench::GradientPart;
using bench::SampledPart;
using bench::Timing;

namespace {

constexpr double Tolerance = 1e-9;

struct Options {
  bool Small = false;
  int Reps = 25;
  int Warmup = 3;
  /// Timed seconds one variant may take; beyond, it gets fewer runs (>= 5).
  double BudgetSeconds = 30;
  int N = 1 << 26;
  int Image = 4096;
  int SplatK = 64;
  int MeshSide = 2048;
  /// Comma-separated pattern names to run (all when empty).
  std::string Only;
};

void printUsage() {
  std::printf(
      "usage: ownership-bench [--small] [--reps=N] [--warmup=N] "
      "[--budget=SECONDS]\n"
      "                       [--n=N] [--image=SIDE] [--splat-k=K] "
      "[--mesh-side=SIDE]\n"
      "                       [--only=map,stencil,broadcast,energy,splat,"
      "mesh,strategies]\n"
      "  --small      tiny sizes (a quick correctness run, e.g. on the CPU)\n");
}

bool parseOptions(int Argc, char **Argv, Options &O) {
  for (int I = 1; I < Argc; ++I)
    if (!std::strcmp(Argv[I], "--small")) {
      O.Small = true;
      O.N = 5000;
      O.Image = 40;
      O.SplatK = 6;
      O.MeshSide = 13;
      O.Reps = 5;
      O.Warmup = 1;
    }
  for (int I = 1; I < Argc; ++I) {
    const char *A = Argv[I];
    auto Value = [&](const char *Name, auto &Out) {
      size_t L = std::strlen(Name);
      if (std::strncmp(A, Name, L) || A[L] != '=')
        return false;
      using T = std::decay_t<decltype(Out)>;
      if constexpr (std::is_same_v<T, std::string>)
        Out = A + L + 1;
      else
        Out = static_cast<T>(std::atof(A + L + 1));
      return true;
    };
    if (!(!std::strcmp(A, "--small") || Value("--reps", O.Reps) ||
          Value("--warmup", O.Warmup) || Value("--budget", O.BudgetSeconds) ||
          Value("--n", O.N) || Value("--image", O.Image) ||
          Value("--splat-k", O.SplatK) || Value("--mesh-side", O.MeshSide) ||
          Value("--only", O.Only)))
      return false;
  }
  return O.Reps > 0 && O.Warmup >= 0 && O.N >= 4 && O.Image > 0 &&
         O.SplatK > 0 && O.MeshSide >= 2;
}

/// One pattern prepared on the device.
struct Case {
  std::string Name;
  /// Sizes, for the log.
  std::string Shape;
  /// Enqueues the reset of every adjoint (and accumulated output).
  std::function<void()> Reset;
  /// Enqueues one implementation's gradient.
  std::function<void(const GradientSet &)> Launch;
  /// Downloads the gradient (one part per differentiated input).
  std::function<std::vector<GradientPart>()> Gradient;
  /// The CPU reference, one per part.
  std::vector<SampledPart> Reference;
  /// Whether Reference covers every element.
  bool FullReference = false;
};

using Buffer = std::shared_ptr<DeviceBuffer<double>>;

Buffer makeBuffer(const std::vector<double> &Host) {
  return std::make_shared<DeviceBuffer<double>>(Host);
}
Buffer makeBuffer(size_t N) {
  return std::make_shared<DeviceBuffer<double>>(N);
}
Buffer scalarBuffer(double V) { return makeBuffer(std::vector<double>{V}); }

/// Downloads \p B as the gradient's only part.
std::function<std::vector<GradientPart>()> onePart(Buffer B, int Stride = 1) {
  return [=] { return std::vector<GradientPart>{{Stride, B->download()}}; };
}

std::vector<double> uniform(std::mt19937_64 &Rng, size_t N, double Lo,
                            double Hi) {
  std::uniform_real_distribution<double> D(Lo, Hi);
  std::vector<double> V(N);
  for (double &X : V)
    X = D(Rng);
  return V;
}

/// Indices 0..N-1 to check against a costly reference: both ends and about
/// Count evenly spread ones.
std::vector<size_t> sampleIndices(size_t N, size_t Count) {
  std::vector<size_t> I;
  size_t Step = std::max<size_t>(1, N / Count);
  for (size_t K = 0; K < N; K += Step)
    I.push_back(K);
  for (size_t K = N > 3 ? N - 3 : 0; K < N; ++K)
    if (I.back() < K)
      I.push_back(K);
  return I;
}

SampledPart fullPart(const std::vector<double> &V) {
  SampledPart P;
  P.Index.resize(V.size());
  std::iota(P.Index.begin(), P.Index.end(), size_t(0));
  P.Value = V;
  return P;
}

std::string format(const char *Fmt, long long A, long long B = 0,
                   long long C = 0) {
  char Buf[256];
  std::snprintf(Buf, sizeof(Buf), Fmt, A, B, C);
  return Buf;
}

/// Resets the seeded output adjoint \p D from \p Seed and zeroes \p Zeroed.
std::function<void()> resetter(Buffer D, Buffer Seed,
                               std::vector<Buffer> Zeroed) {
  return [=] {
    D->copyFrom(*Seed);
    for (const Buffer &Z : Zeroed)
      Z->zero();
  };
}

Case mapCase(const Options &O, std::mt19937_64 &Rng) {
  const int N = O.N;
  std::vector<double> X = uniform(Rng, N, -2, 2), Dy = uniform(Rng, N, -1, 1);
  Buffer DX = makeBuffer(X), DY = makeBuffer(N), Seed = makeBuffer(Dy),
         DDX = makeBuffer(N), DDY = makeBuffer(N);
  Case C;
  C.Name = "1 map";
  C.Shape = format("n = %lld", N);
  C.Reset = resetter(DDY, Seed, {DDX});
  C.Launch = [=](const GradientSet &S) {
    S.Map({N, DX->get(), DY->get(), DDX->get(), DDY->get()});
  };
  C.Gradient = onePart(DDX);
  SampledPart R;
  for (size_t I : sampleIndices(N, 1 << 20)) {
    R.Index.push_back(I);
    double Xi = X[I];
    R.Value.push_back(Dy[I] *
                      (std::sin(Xi) + Xi * std::cos(Xi) - std::exp(-Xi)));
  }
  C.Reference = {R};
  return C;
}

Case stencilCase(const Options &O, std::mt19937_64 &Rng) {
  const int N = O.N;
  const double A = 0.7, B = -0.3;
  std::vector<double> X = uniform(Rng, N, -1, 1), Dy = uniform(Rng, N, -1, 1);
  Buffer DX = makeBuffer(X), DY = makeBuffer(N), Seed = makeBuffer(Dy),
         DDX = makeBuffer(N), DDY = makeBuffer(N);
  Case C;
  C.Name = "2 stencil";
  C.Shape = format("n = %lld", N);
  C.Reset = resetter(DDY, Seed, {DDX});
  C.Launch = [=](const GradientSet &S) {
    S.Stencil({N, A, B, DX->get(), DY->get(), DDX->get(), DDY->get()});
  };
  C.Gradient = onePart(DDX);
  // Scatter form (one output at a time), unlike the hand-written gather.
  std::vector<double> Ref(N, 0.0);
  for (int I = 1; I < N - 1; ++I) {
    Ref[I - 1] += A * X[I] * Dy[I];
    Ref[I] += (A * X[I - 1] - 1.0) * Dy[I];
    Ref[I + 1] += 2.0 * B * X[I + 1] * Dy[I];
  }
  C.Reference = {fullPart(Ref)};
  C.FullReference = true;
  return C;
}

Case broadcastCase(const Options &O, std::mt19937_64 &Rng) {
  const int N = O.N;
  const double Val = 1.3;
  std::vector<double> X = uniform(Rng, N, -1, 1), Dy = uniform(Rng, N, -1, 1);
  Buffer DX = makeBuffer(X), DY = makeBuffer(N), Seed = makeBuffer(Dy),
         DDX = makeBuffer(N), DDY = makeBuffer(N), DVal = makeBuffer(1);
  Case C;
  C.Name = "3 broadcast";
  C.Shape = format("n = %lld", N);
  C.Reset = resetter(DDY, Seed, {DDX, DVal});
  C.Launch = [=](const GradientSet &S) {
    S.Broadcast({N, Val, DX->get(), DY->get(), DVal->get(), DDX->get(),
                 DDY->get()});
  };
  C.Gradient = [=] {
    return std::vector<GradientPart>{{1, DVal->download()},
                                     {1, DDX->download()}};
  };
  std::vector<double> RefX(N);
  long double RefVal = 0;
  for (int I = 0; I < N; ++I) {
    RefX[I] = Val * Dy[I];
    RefVal += (static_cast<long double>(X[I]) + 2.0L * Val) * Dy[I];
  }
  C.Reference = {fullPart({static_cast<double>(RefVal)}), fullPart(RefX)};
  C.FullReference = true;
  return C;
}

Case energyCase(const Options &O, std::mt19937_64 &Rng) {
  const int N = O.N;
  std::vector<double> X = uniform(Rng, N, -2, 2);
  Buffer DX = makeBuffer(X), E = makeBuffer(1), Seed = scalarBuffer(1.0),
         DE = makeBuffer(1), DDX = makeBuffer(N);
  Case C;
  C.Name = "4 energy";
  C.Shape = format("n = %lld", N);
  C.Reset = resetter(DE, Seed, {DDX, E});
  C.Launch = [=](const GradientSet &S) {
    S.Energy({N, DX->get(), E->get(), DDX->get(), DE->get()});
  };
  C.Gradient = onePart(DDX);
  SampledPart R;
  for (size_t I : sampleIndices(N, 1 << 20)) {
    R.Index.push_back(I);
    R.Value.push_back(2.0 * X[I] / (1.0 + X[I] * X[I]) + X[I]);
  }
  C.Reference = {R};
  return C;
}

Case splatCase(const Options &O, std::mt19937_64 &Rng) {
  const int W = O.Image, H = O.Image, K = O.SplatK;
  std::vector<double> P(5 * K);
  std::uniform_real_distribution<double> U(0, 1);
  for (int k = 0; k < K; ++k) {
    P[5 * k] = W * U(Rng);                           // centre x
    P[5 * k + 1] = H * U(Rng);                       // centre y
    P[5 * k + 2] = 1.0 / (W * (1.0 / 16 + U(Rng) / 5)); // inverse scale
    P[5 * k + 3] = 0.2 + 0.8 * U(Rng);               // opacity
    P[5 * k + 4] = 2 * U(Rng) - 1;                   // colour
  }
  size_t Pixels = static_cast<size_t>(W) * H;
  std::vector<double> DImg = uniform(Rng, Pixels, -1, 1);
  Buffer DP = makeBuffer(P), Img = makeBuffer(Pixels), Seed = makeBuffer(DImg),
         DDImg = makeBuffer(Pixels), DDP = makeBuffer(5 * K);
  Case C;
  C.Name = "5 splat";
  C.Shape = format("%lld x %lld image, K = %lld splats", W, H, K);
  C.Reset = resetter(DDImg, Seed, {DDP});
  C.Launch = [=](const GradientSet &S) {
    S.Splat({W, H, K, DP->get(), Img->get(), DDP->get(), DDImg->get()});
  };
  C.Gradient = onePart(DDP, 5);
  // d/dp of sum_pixels dimg * img for a few splats (all of them when small).
  std::vector<int> Ks;
  for (int k = 0; k < K; ++k)
    if (O.Small || k == 0 || k == K / 3 || k == 2 * K / 3 || k == K - 1)
      Ks.push_back(k);
  SampledPart R;
  for (int k : Ks) {
    const double *Q = &P[5 * k];
    long double G[5] = {0, 0, 0, 0, 0};
    for (int Py = 0; Py < H; ++Py)
      for (int Px = 0; Px < W; ++Px) {
        double Dx = Px - Q[0], Dy = Py - Q[1], R2 = Dx * Dx + Dy * Dy;
        double Gauss = std::exp(-0.5 * Q[2] * Q[2] * R2);
        double Seed = DImg[static_cast<size_t>(Py) * W + Px];
        double Wc = Seed * Q[3] * Gauss * Q[4]; // dimg * w * colour
        G[0] += Wc * Q[2] * Q[2] * Dx;
        G[1] += Wc * Q[2] * Q[2] * Dy;
        G[2] += -Wc * Q[2] * R2;
        G[3] += Seed * Gauss * Q[4];
        G[4] += Seed * Q[3] * Gauss;
      }
    for (int c = 0; c < 5; ++c) {
      R.Index.push_back(5 * k + c);
      R.Value.push_back(static_cast<double>(G[c]));
    }
  }
  C.Reference = {R};
  C.FullReference = O.Small;
  return C;
}

/// A Side x Side grid of vertices with right, up and diagonal springs (the
/// edges in grid order), positions stretched by 5% and jittered (no spring
/// at rest). \p Shuffle: vertex numbers shuffled (the gathers and scatters
/// hit random addresses), else in grid order (neighbours close in memory,
/// as in a mesh file).
Case springMesh(const Options &O, std::mt19937_64 &Rng, bool Shuffle) {
  const int Side = O.MeshSide, NV = Side * Side;
  std::vector<int> Perm(NV);
  std::iota(Perm.begin(), Perm.end(), 0);
  if (Shuffle)
    std::shuffle(Perm.begin(), Perm.end(), Rng);
  std::uniform_real_distribution<double> Jitter(-0.1, 0.1);
  std::vector<double> X(3 * static_cast<size_t>(NV));
  for (int J = 0; J < Side; ++J)
    for (int I = 0; I < Side; ++I) {
      size_t V = Perm[J * Side + I];
      X[3 * V] = 1.05 * I + Jitter(Rng);
      X[3 * V + 1] = J + Jitter(Rng);
      X[3 * V + 2] = 0.2 * std::sin(0.1 * I) * std::cos(0.1 * J) + Jitter(Rng);
    }
  std::vector<int> Edges;
  std::vector<double> Rest;
  auto addEdge = [&](int A, int B, double L) {
    Edges.push_back(Perm[A]);
    Edges.push_back(Perm[B]);
    Rest.push_back(L);
  };
  for (int J = 0; J < Side; ++J)
    for (int I = 0; I < Side; ++I) {
      int V = J * Side + I;
      if (I + 1 < Side)
        addEdge(V, V + 1, 1.0);
      if (J + 1 < Side)
        addEdge(V, V + Side, 1.0);
      if (I + 1 < Side && J + 1 < Side)
        addEdge(V, V + Side + 1, std::sqrt(2.0));
    }
  const int NE = static_cast<int>(Rest.size());
  // Incidence lists (CSR) for the hand-written gather: entry 2k + side.
  std::vector<int> Offsets(NV + 1, 0), Incident(2 * static_cast<size_t>(NE));
  for (int V : Edges)
    ++Offsets[V + 1];
  std::partial_sum(Offsets.begin(), Offsets.end(), Offsets.begin());
  std::vector<int> Fill(Offsets.begin(), Offsets.end() - 1);
  for (int k = 0; k < NE; ++k)
    for (int Side2 = 0; Side2 < 2; ++Side2)
      Incident[Fill[Edges[2 * k + Side2]]++] = 2 * k + Side2;

  auto DEdges = std::make_shared<DeviceBuffer<int>>(Edges);
  auto DOffsets = std::make_shared<DeviceBuffer<int>>(Offsets);
  auto DIncident = std::make_shared<DeviceBuffer<int>>(Incident);
  Buffer DRest = makeBuffer(Rest), DX = makeBuffer(X), E = makeBuffer(1),
         Seed = scalarBuffer(1.0), DE = makeBuffer(1),
         DDX = makeBuffer(X.size());
  Case C;
  C.Name = "6 mesh";
  C.Shape = format("%lld vertices, %lld edges (grid mesh, ", NV, NE) +
            (Shuffle ? "shuffled)" : "grid order)");
  C.Reset = resetter(DE, Seed, {DDX, E});
  C.Launch = [=](const GradientSet &S) {
    S.Spring({NE, NV, DEdges->get(), DRest->get(), DX->get(), E->get(),
              DDX->get(), DE->get(), DOffsets->get(), DIncident->get()});
  };
  C.Gradient = onePart(DDX, 3);
  // Scatter over the edges, unlike the hand-written gather over vertices.
  std::vector<double> Ref(X.size(), 0.0);
  for (int k = 0; k < NE; ++k) {
    size_t A = Edges[2 * k], B = Edges[2 * k + 1];
    double D[3], L2 = 0;
    for (int c = 0; c < 3; ++c) {
      D[c] = X[3 * A + c] - X[3 * B + c];
      L2 += D[c] * D[c];
    }
    double L = std::sqrt(L2), F = (L - Rest[k]) / L;
    for (int c = 0; c < 3; ++c) {
      Ref[3 * A + c] += F * D[c];
      Ref[3 * B + c] -= F * D[c];
    }
  }
  C.Reference = {fullPart(Ref)};
  C.FullReference = true;
  return C;
}

Case meshCase(const Options &O, std::mt19937_64 &Rng) {
  return springMesh(O, Rng, /*Shuffle=*/true);
}

/// The implementations in table order.
std::vector<const GradientSet *> variants() {
  return {&bench_atomics::gradients(), &bench_meshad::gradients(),
          &bench_atomics_keep::gradients(), &bench_meshad_keep::gradients(),
          &bench_hand::gradients()};
}
constexpr int HandIndex = 4;
/// The hand-written gradient first: the others are compared with it.
const int CheckOrder[] = {HandIndex, 0, 1, 2, 3};

/// Runs every variant once and compares its gradient with the hand-written
/// one and with the CPU reference. Returns false on a failed check.
bool checkCase(const Case &C) {
  std::vector<const GradientSet *> Vs = variants();
  std::vector<std::vector<GradientPart>> Got(Vs.size());
  for (int V : CheckOrder) {
    C.Reset();
    C.Launch(*Vs[V]);
    bench::checkLaunch((C.Name + " " + Vs[V]->Name).c_str());
    Got[V] = C.Gradient();
  }
  bool Ok = true;
  for (int V : CheckOrder) {
    double VsRef = 0, VsHand = 0;
    for (size_t P = 0; P < Got[V].size(); ++P) {
      VsRef = std::max(VsRef, bench::relativeError(Got[V][P], C.Reference[P]));
      VsHand = std::max(VsHand,
                        bench::relativeError(Got[V][P], Got[HandIndex][P]));
    }
    bool Pass = VsRef <= Tolerance && VsHand <= Tolerance;
    Ok &= Pass;
    std::printf("%s check %-11s %-12s rel. error vs hand-written %.2e, vs CPU "
                "reference (%s) %.2e\n",
                Pass ? "PASS" : "FAIL", C.Name.c_str(), Vs[V]->Name, VsHand,
                C.FullReference ? "all elements" : "sampled", VsRef);
  }
  return Ok;
}

/// Times one variant: Warmup untimed runs, then Reps runs with CUDA events
/// around the launch (the reset is enqueued before the start event).
Timing timeVariant(const Case &C, const GradientSet &S, const Options &O) {
  cudaEvent_t Start, Stop;
  bench::check(cudaEventCreate(&Start), "cudaEventCreate");
  bench::check(cudaEventCreate(&Stop), "cudaEventCreate");
  auto Once = [&] {
    C.Reset();
    cudaEventRecord(Start, nullptr);
    C.Launch(S);
    cudaEventRecord(Stop, nullptr);
    bench::check(cudaEventSynchronize(Stop), "cudaEventSynchronize");
    float Ms = 0;
    cudaEventElapsedTime(&Ms, Start, Stop);
    return static_cast<double>(Ms);
  };
  double First = Once();
  int Reps = O.Reps;
  if (First * Reps > 1000 * O.BudgetSeconds)
    Reps = std::max(5, static_cast<int>(1000 * O.BudgetSeconds / First));
  for (int I = 1; I < O.Warmup; ++I)
    Once();
  std::vector<double> Ms;
  for (int I = 0; I < Reps; ++I)
    Ms.push_back(Once());
  bench::checkLaunch((C.Name + " " + S.Name + " timing").c_str());
  cudaEventDestroy(Start);
  cudaEventDestroy(Stop);
  return bench::summarize(Ms);
}

struct Row {
  std::string Name;
  std::vector<Timing> Times;
};

std::string cell(const Timing &T, const Options &O) {
  if (!T.Valid)
    return "-";
  char Buf[128];
  std::snprintf(Buf, sizeof(Buf), "%.3f (%.3f-%.3f)%s", T.Median, T.Min, T.Max,
                T.Runs < O.Reps ? format(" [%lld runs]", T.Runs).c_str() : "");
  return Buf;
}

void printTable(const std::vector<Row> &Rows, const Options &O) {
  std::vector<const GradientSet *> Vs = variants();
  std::printf("\nTimes: median (min-max) of %d timed runs in ms, adjoint reset "
              "excluded.\n",
              O.Reps);
#if defined(MESHAD_BENCH_ATOMICS_FLAG_MISSING)
  std::printf("WARNING: built without -fplugin-arg-meshad-atomics=all: the "
              "all-atomics column is meshad's default code.\n");
#endif
  std::printf("\n| pattern | %s ms | %s ms | %s ms | %s ms | %s ms | "
              "meshad vs atomics | meshad keep vs atomics keep | meshad / "
              "hand | meshad keep / hand |\n",
              Vs[0]->Name, Vs[1]->Name, Vs[2]->Name, Vs[3]->Name,
              Vs[4]->Name);
  std::printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (const Row &R : Rows) {
    const Timing &A = R.Times[0], &M = R.Times[1], &AK = R.Times[2],
                 &MK = R.Times[3], &H = R.Times[4];
    std::printf("| %s | %s | %s | %s | %s | %s | %.2fx | %.2fx | %.2f | %.2f "
                "|\n",
                R.Name.c_str(), cell(A, O).c_str(), cell(M, O).c_str(),
                cell(AK, O).c_str(), cell(MK, O).c_str(), cell(H, O).c_str(),
                A.Median / M.Median, AK.Median / MK.Median,
                M.Median / H.Median, MK.Median / H.Median);
  }
}

/// Runs \p S once and compares its gradient with the CPU reference.
bool checkAgainstReference(const Case &C, const GradientSet &S) {
  C.Reset();
  C.Launch(S);
  bench::checkLaunch((C.Name + " " + S.Name).c_str());
  std::vector<GradientPart> Got = C.Gradient();
  double Error = 0;
  for (size_t P = 0; P < Got.size(); ++P)
    Error = std::max(Error, bench::relativeError(Got[P], C.Reference[P]));
  std::printf("%s check %-12s %-12s rel. error vs CPU reference %.2e\n",
              Error <= Tolerance ? "PASS" : "FAIL", C.Name.c_str(), S.Name,
              Error);
  return Error <= Tolerance;
}

/// Prints the table of timeStrategies: a row per vertex order.
void printStrategyTable(
    const std::vector<std::pair<const char *, std::vector<Timing>>> &Rows,
    const Options &O) {
  const std::vector<SpringStrategy> &All = bench_meshad::springStrategies();
  std::printf("\nPattern 6 (springs) per element strategy: median (min-max) "
              "ms\n\n| vertex order |");
  for (const SpringStrategy &S : All)
    std::printf(" meshad %s |", S.Name);
  std::printf(" hand-written gather |\n|---|");
  for (size_t I = 0; I <= All.size(); ++I)
    std::printf("---:|");
  std::printf("\n");
  for (const auto &[Order, Times] : Rows) {
    std::printf("| %s |", Order);
    for (const Timing &T : Times)
      std::printf(" %s |", cell(T, O).c_str());
    std::printf("\n");
  }
}

/// Pattern 7, "strategies" (issue 11): pattern 6's gradient with each
/// meshad::ElementStrategy asked explicitly, and the hand-written gather,
/// on the shuffled grid of pattern 6 and on the same grid in grid order.
/// The cost model chooses at compile time and cannot see the order; this
/// table shows what the order does to each strategy. Returns false on a
/// failed check.
bool timeStrategies(const Options &O) {
  std::vector<GradientSet> Sets;
  for (const SpringStrategy &S : bench_meshad::springStrategies()) {
    Sets.push_back(bench_meshad::gradients());
    Sets.back().Name = S.Name;
    Sets.back().Spring = S.Spring;
  }
  Sets.push_back(bench_hand::gradients());
  std::vector<std::pair<const char *, std::vector<Timing>>> Rows;
  bool Ok = true;
  for (bool Shuffle : {true, false}) {
    std::mt19937_64 Rng(12345);
    Case C = springMesh(O, Rng, Shuffle);
    C.Name = "7 strategies";
    bench_meshad::springConnectivityChanged();
    std::printf("\n== %s: %s\n", C.Name.c_str(), C.Shape.c_str());
    std::vector<Timing> Times;
    for (const GradientSet &S : Sets) {
      Ok &= checkAgainstReference(C, S);
      Times.push_back(timeVariant(C, S, O));
      const Timing &T = Times.back();
      std::printf("time  %-12s %-12s median %.3f ms (min %.3f, max %.3f, %d "
                  "runs)\n",
                  C.Name.c_str(), S.Name, T.Median, T.Min, T.Max, T.Runs);
      std::fflush(stdout);
    }
    Rows.push_back({Shuffle ? "shuffled" : "grid order", std::move(Times)});
  }
  printStrategyTable(Rows, O);
  return Ok;
}

void printDevice() {
#if defined(MESHAD_CPU_CUDA)
  std::printf("device: CPU emulation (meshad/cpu): timings are meaningless\n");
#else
  cudaDeviceProp Prop;
  int Device = 0;
  cudaGetDevice(&Device);
  if (cudaGetDeviceProperties(&Prop, Device) == cudaSuccess)
    std::printf("device: %s, %d SMs, %.1f GiB\n", Prop.name,
                Prop.multiProcessorCount,
                Prop.totalGlobalMem / (1024.0 * 1024 * 1024));
#endif
}

bool selected(const Options &O, const std::string &Name) {
  if (O.Only.empty())
    return true;
  std::string Key = Name.substr(Name.find(' ') + 1);
  std::string List = "," + O.Only + ",";
  return List.find("," + Key + ",") != std::string::npos;
}

} // namespace

int main(int Argc, char **Argv) {
  Options O;
  if (!parseOptions(Argc, Argv, O)) {
    printUsage();
    return 2;
  }
  printDevice();
  std::printf("variants:");
  for (const GradientSet *S : variants())
    std::printf(" %s;", S->Name);
  std::printf(" %d warm-up + %d timed runs each (fewer beyond %.0f s per "
              "variant)\n",
              O.Warmup, O.Reps, O.BudgetSeconds);
  using Maker = Case (*)(const Options &, std::mt19937_64 &);
  const std::pair<const char *, Maker> Patterns[] = {
      {"1 map", mapCase},         {"2 stencil", stencilCase},
      {"3 broadcast", broadcastCase}, {"4 energy", energyCase},
      {"5 splat", splatCase},     {"6 mesh", meshCase}};
  std::vector<Row> Rows;
  bool AllOk = true;
  for (const auto &[Name, Make] : Patterns) {
    if (!selected(O, Name))
      continue;
    std::mt19937_64 Rng(12345);
    Case C = Make(O, Rng);
    std::printf("\n== %s: %s\n", C.Name.c_str(), C.Shape.c_str());
    std::fflush(stdout);
    AllOk &= checkCase(C);
    Row R{C.Name, {}};
    for (const GradientSet *S : variants()) {
      R.Times.push_back(timeVariant(C, *S, O));
      const Timing &T = R.Times.back();
      std::printf("time  %-11s %-12s median %.3f ms (min %.3f, max %.3f, %d "
                  "runs)\n",
                  C.Name.c_str(), S->Name, T.Median, T.Min, T.Max, T.Runs);
      std::fflush(stdout);
    }
    Rows.push_back(R);
  }
  if (!Rows.empty())
    printTable(Rows, O);
  if (selected(O, "7 strategies"))
    AllOk &= timeStrategies(O);
  std::printf("\n%s\n", AllOk ? "all gradient checks passed"
                              : "FAIL: some gradient checks failed");
  return AllOk ? 0 : 1;
}
