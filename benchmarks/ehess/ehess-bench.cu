//===- benchmarks/ehess/ehess-bench.cu - Element Hessian assembly ---------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Gradient + sparse Hessian (block CSR, 3x3 blocks) of a mass-spring grid
/// and of neo-Hookean tets (the armadillo TetGen mesh), in one launch each:
///
/// - generated: meshad::hessian(kernel, "x") of the energy kernels of
///   benchmarks/elements (meshad::ElementHessian: the values zeroed, then the
///   generated kernel; also with the Deterministic option);
/// - hand-written: the kernel of test/runtime/runtime-sparse-hessian.cu, one
///   thread per element gathering its DOFs, the local gradient of
///   benchmarks/elements/Energies.h, the local Hessian of MESHAD_HESSIAN,
///   addElementGradient and addElementHessian (the values zeroed first).
///
/// Both write the same matrix (checked: relative difference, printed). CUDA
/// events around each variant, warm-up runs, the median of --reps.
/// Compiled with the plugin by scripts/gpu/ehess-bench.sh.
///
//===----------------------------------------------------------------------===//

#include "Meshes.h"

#include <meshad/Differentiator.h>
#include <meshad/ElementHessian.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

using namespace elements;
using meshad::runtime::SparseHessian;

//===-- The energy kernels, as in benchmarks/elements/kernels.cu ----------===//

__global__ void springKernel(int nEdges, const int *edges, const double *rest,
                             const double *x, double *E) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < nEdges) {
    int a = edges[2 * t], b = edges[2 * t + 1];
    double dx = x[3 * a] - x[3 * b];
    double dy = x[3 * a + 1] - x[3 * b + 1];
    double dz = x[3 * a + 2] - x[3 * b + 2];
    double stretch = sqrt(dx * dx + dy * dy + dz * dz) - rest[t];
    atomicAdd(&E[0], 0.5 * stretch * stretch);
  }
}

__global__ void neoHookeanKernel(int nTets, const int *tets,
                                 const double *restInv, const double *volume,
                                 const double *x, double *E) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < nTets) {
    int i0 = tets[4 * t], i1 = tets[4 * t + 1];
    int i2 = tets[4 * t + 2], i3 = tets[4 * t + 3];
    const double *m = restInv + 9 * t;
    double d0x = x[3 * i1] - x[3 * i0], d1x = x[3 * i2] - x[3 * i0],
           d2x = x[3 * i3] - x[3 * i0];
    double d0y = x[3 * i1 + 1] - x[3 * i0 + 1],
           d1y = x[3 * i2 + 1] - x[3 * i0 + 1],
           d2y = x[3 * i3 + 1] - x[3 * i0 + 1];
    double d0z = x[3 * i1 + 2] - x[3 * i0 + 2],
           d1z = x[3 * i2 + 2] - x[3 * i0 + 2],
           d2z = x[3 * i3 + 2] - x[3 * i0 + 2];
    double f00 = d0x * m[0] + d1x * m[3] + d2x * m[6];
    double f01 = d0x * m[1] + d1x * m[4] + d2x * m[7];
    double f02 = d0x * m[2] + d1x * m[5] + d2x * m[8];
    double f10 = d0y * m[0] + d1y * m[3] + d2y * m[6];
    double f11 = d0y * m[1] + d1y * m[4] + d2y * m[7];
    double f12 = d0y * m[2] + d1y * m[5] + d2y * m[8];
    double f20 = d0z * m[0] + d1z * m[3] + d2z * m[6];
    double f21 = d0z * m[1] + d1z * m[4] + d2z * m[7];
    double f22 = d0z * m[2] + d1z * m[5] + d2z * m[8];
    double norm2 = f00 * f00 + f01 * f01 + f02 * f02 + f10 * f10 +
                   f11 * f11 + f12 * f12 + f20 * f20 + f21 * f21 + f22 * f22;
    double J = f00 * (f11 * f22 - f12 * f21) - f01 * (f10 * f22 - f12 * f20) +
               f02 * (f10 * f21 - f11 * f20);
    double logJ = log(J);
    atomicAdd(&E[0], volume[t] * (0.5 * NeoMu * (norm2 - 3.0) -
                                  NeoMu * logJ +
                                  0.5 * NeoLambda * logJ * logJ));
  }
}

//===-- The hand-written assembly (test/runtime/runtime-sparse-hessian.cu) ===//

// The local energies over the gathered DOFs (Energies.h's formulas; the
// Hessian mode indexes the selected array directly).
MESHAD_HESSIAN("x[0:6]")
__device__ double springLocal(const double *x, double rest) {
  double dx = x[0] - x[3], dy = x[1] - x[4], dz = x[2] - x[5];
  double stretch = sqrt(dx * dx + dy * dy + dz * dz) - rest;
  return 0.5 * stretch * stretch;
}
MESHAD_HESSIAN("x[0:12]")
__device__ double neoHookeanLocal(const double *x, const double *m,
                                  double volume) {
  double d0x = x[3] - x[0], d1x = x[6] - x[0], d2x = x[9] - x[0];
  double d0y = x[4] - x[1], d1y = x[7] - x[1], d2y = x[10] - x[1];
  double d0z = x[5] - x[2], d1z = x[8] - x[2], d2z = x[11] - x[2];
  double f00 = d0x * m[0] + d1x * m[3] + d2x * m[6];
  double f01 = d0x * m[1] + d1x * m[4] + d2x * m[7];
  double f02 = d0x * m[2] + d1x * m[5] + d2x * m[8];
  double f10 = d0y * m[0] + d1y * m[3] + d2y * m[6];
  double f11 = d0y * m[1] + d1y * m[4] + d2y * m[7];
  double f12 = d0y * m[2] + d1y * m[5] + d2y * m[8];
  double f20 = d0z * m[0] + d1z * m[3] + d2z * m[6];
  double f21 = d0z * m[1] + d1z * m[4] + d2z * m[7];
  double f22 = d0z * m[2] + d1z * m[5] + d2z * m[8];
  double norm2 = f00 * f00 + f01 * f01 + f02 * f02 + f10 * f10 + f11 * f11 +
                 f12 * f12 + f20 * f20 + f21 * f21 + f22 * f22;
  double J = f00 * (f11 * f22 - f12 * f21) - f01 * (f10 * f22 - f12 * f20) +
             f02 * (f10 * f21 - f11 * f20);
  double logJ = log(J);
  return volume * (0.5 * NeoMu * (norm2 - 3.0) - NeoMu * logJ +
                   0.5 * NeoLambda * logJ * logJ);
}

__global__ void springsByHand(int n, const int *edges, const double *rest,
                              const double *x,
                              meshad::runtime::HessianSlots Slots,
                              double *Values, double *Grad) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n)
    return;
  double xl[6], gl[6], Hl[36];
  for (int a = 0; a < 2; ++a)
    for (int k = 0; k < 3; ++k)
      xl[3 * a + k] = x[3 * edges[2 * t + a] + k];
  springGradient(xl, xl + 3, rest[t], gl);
  meshad::runtime::addElementGradient(Slots, edges, t, gl, Grad);
  springLocal_hessian_0(xl, rest[t], Hl);
  meshad::runtime::addElementHessian(Slots, t, Hl, Values);
}

__global__ void tetsByHand(int n, const int *tets, const double *restInv,
                           const double *volume, const double *x,
                           meshad::runtime::HessianSlots Slots,
                           double *Values, double *Grad) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n)
    return;
  double xl[12], gl[12], Hl[144];
  for (int a = 0; a < 4; ++a)
    for (int k = 0; k < 3; ++k)
      xl[3 * a + k] = x[3 * tets[4 * t + a] + k];
  neoHookeanGradient(xl, xl + 3, xl + 6, xl + 9, restInv + 9 * t, volume[t],
                     gl);
  meshad::runtime::addElementGradient(Slots, tets, t, gl, Grad);
  neoHookeanLocal_hessian_0(xl, restInv + 9 * t, volume[t], Hl);
  meshad::runtime::addElementHessian(Slots, t, Hl, Values);
}

//===-- Timing ------------------------------------------------------------===//

template <class T> static T *upload(const std::vector<T> &H) {
  T *D = nullptr;
  cudaMalloc(reinterpret_cast<void **>(&D), (H.size() + 1) * sizeof(T));
  cudaMemcpy(D, H.data(), H.size() * sizeof(T), cudaMemcpyHostToDevice);
  return D;
}

/// The median time in ms of \p Reps runs of \p Run after 3 warm-ups.
static double timeMs(int Reps, const std::function<void()> &Run) {
  for (int I = 0; I < 3; ++I)
    Run();
  cudaDeviceSynchronize();
  cudaEvent_t Start, Stop;
  cudaEventCreate(&Start);
  cudaEventCreate(&Stop);
  std::vector<float> Ms;
  for (int I = 0; I < Reps; ++I) {
    cudaEventRecord(Start);
    Run();
    cudaEventRecord(Stop);
    cudaEventSynchronize(Stop);
    float T = 0;
    cudaEventElapsedTime(&T, Start, Stop);
    Ms.push_back(T);
  }
  std::sort(Ms.begin(), Ms.end());
  return Ms[Ms.size() / 2];
}

static std::vector<double> download(const double *D, size_t N) {
  std::vector<double> H(N);
  cudaMemcpy(H.data(), D, N * sizeof(double), cudaMemcpyDeviceToHost);
  return H;
}

/// max |A - B| / max |B|.
static double relDiff(const std::vector<double> &A,
                      const std::vector<double> &B) {
  double D = 0, S = 0;
  for (size_t I = 0; I < A.size(); ++I) {
    D = std::max(D, std::fabs(A[I] - B[I]));
    S = std::max(S, std::fabs(B[I]));
  }
  return S > 0 ? D / S : D;
}

struct Options {
  bool Small = false;
  int Reps = 20;
  std::string Tets;
};

/// Times the generated and the hand-written assembly of \p H; \p Generated
/// and \p ByHand run one assembly each into \p M (the hand-written one
/// zeroes M first).
static void report(const HostProblem &H, const Options &O,
                   SparseHessian<double> &M, double *Grad,
                   const std::function<void(bool)> &Generated,
                   const std::function<void()> &ByHand) {
  size_t Dofs = H.X.size();
  ByHand();
  std::vector<double> Want = download(M.values(), M.nnz()),
                      WantG = download(Grad, Dofs);
  cudaMemset(Grad, 0, Dofs * sizeof(double));
  Generated(false);
  double Diff = relDiff(download(M.values(), M.nnz()), Want);
  double DiffG = relDiff(download(Grad, Dofs), WantG);
  double TGen = timeMs(O.Reps, [&] { Generated(false); });
  double TDet = timeMs(O.Reps, [&] { Generated(true); });
  double THand = timeMs(O.Reps, ByHand);
  // Values written once at full bandwidth: nnz doubles.
  std::printf("| %s | %d | %zu | %.3f | %.3f | %.3f | %.2fx | %.1e | %.1e |\n",
              H.Name.c_str(), H.numElements(), M.nnz(), THand, TGen, TDet,
              THand / TGen, Diff, DiffG);
}

static void runSprings(const Options &O) {
  HostProblem H = springGrid(O.Small ? 40 : 1000);
  int N = H.numElements();
  int *Edges = upload(H.Elements);
  double *Rest = upload(H.Rest), *X = upload(H.X);
  double *Grad = upload(std::vector<double>(H.X.size(), 0.0));
  SparseHessian<double> M(Edges, N, 2, H.numVertices(), 3);
  auto h = meshad::hessian(springKernel, "x");
  h.use_matrix(M);
  dim3 Grid(grid1D(N)), Block(BlockSize);
  report(
      H, O, M, Grad,
      [&](bool Det) {
        h.set_options({false, Det, meshad::runtime::SparseFormat::Bsr});
        h.execute_kernel(Grid, Block, N, Edges, Rest, X, nullptr, Grad);
      },
      [&] {
        M.zero();
        MESHAD_LAUNCH(springsByHand, Grid, Block)(N, Edges, Rest, X,
                                                  M.slots(), M.values(), Grad);
      });
}

static void runTets(const Options &O) {
  HostProblem H = neoHookeanMesh(O.Tets);
  int N = H.numElements();
  int *Tets = upload(H.Elements);
  double *Rest = upload(H.Rest), *Vol = upload(H.Measure), *X = upload(H.X);
  double *Grad = upload(std::vector<double>(H.X.size(), 0.0));
  SparseHessian<double> M(Tets, N, 4, H.numVertices(), 3);
  auto h = meshad::hessian(neoHookeanKernel, "x");
  h.use_matrix(M);
  dim3 Grid(grid1D(N)), Block(BlockSize);
  report(
      H, O, M, Grad,
      [&](bool Det) {
        h.set_options({false, Det, meshad::runtime::SparseFormat::Bsr});
        h.execute_kernel(Grid, Block, N, Tets, Rest, Vol, X, nullptr, Grad);
      },
      [&] {
        M.zero();
        MESHAD_LAUNCH(tetsByHand, Grid, Block)(N, Tets, Rest, Vol, X,
                                               M.slots(), M.values(), Grad);
      });
}

int main(int Argc, char **Argv) {
  Options O;
  for (int I = 1; I < Argc; ++I) {
    std::string A = Argv[I];
    if (A == "--small")
      O.Small = true;
    else if (A.rfind("--reps=", 0) == 0)
      O.Reps = std::stoi(A.substr(7));
    else if (A.rfind("--tets=", 0) == 0)
      O.Tets = A.substr(7);
    else {
      std::fprintf(stderr, "usage: %s [--small] [--reps=N] [--tets=BASE]\n",
                   Argv[0]);
      return 2;
    }
  }
  std::printf("| problem | elements | nnz | hand-written ms | generated ms | "
              "generated deterministic ms | hand / generated | Hessian rel. "
              "diff | gradient rel. diff |\n|---|---|---|---|---|---|---|---|"
              "---|\n");
  runSprings(O);
  if (!O.Tets.empty())
    runTets(O);
  return 0;
}
