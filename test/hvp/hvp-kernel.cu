// meshad::hvp of kernels, forward mode over the unlowered reverse mode, the
// accumulation lowering last: an atomicAdd energy through a __device__
// callee (a stencil: its Hv summed in a shared-memory tile), __shared__
// tiles with __syncthreads, per-element outputs weighed by a seed, and a
// __host__ __device__ function run on the host. Each HVP is checked against
// central finite differences of meshad::gradient along random directions
// (CPU emulation in CI; on the GPU by scripts/gpu).
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -fplugin-arg-meshad-remarks -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: FileCheck %s --check-prefix=REMARK < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "KernelCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>
#include <string>
#include <vector>

__device__ double bond(double a, double b) {
  double d = b - a;
  return d * d * (1 + 0.5 * sin(a + b));
}
__global__ void chain(const double *x, double *E, double k, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n - 1)
    return;
  atomicAdd(&E[0], k * bond(x[i], x[i + 1]) + 0.1 * x[i] * x[i] * x[i]);
}
// The stencil's Hv gets a shared-memory tile, as its gradient does:
// REMARK: remark: adjoint store to 'x': shared-memory tile (tile-exclusive: {{.*}}not gathered: the sweeps call meshad::blockReduceAtomicAdd)
// CHECK-LABEL: __global__ void chain_hvp_0_2(const double *x, double *E, double k, int n, const double *_d2_x, double _d2_k, double *_d2_d_x, double *_d2_d_k, double *_d_E) {
// CHECK: meshad::tileZero<1, 0, 1>(_d2_d_x_tile);
// CHECK-NOT: atomicAdd(&_d2_d_x
// CHECK: bond_pullback_pushforward
// CHECK: meshad::tileAdd<1, 0, 1>(_d2_d_x_tile, _d2_d_x, i + 1,
// CHECK: meshad::tileWriteBack<1, 0, 1>(_d2_d_x_tile, _d2_d_x);
// CHECK-LABEL: __device__ void bond_pullback_pushforward_no_d_a_no_d_b(

__global__ void tiled(const double *x, double *E, int n) {
  __shared__ double t[64];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  t[threadIdx.x] = i < n ? x[i] * x[i] : 0;
  __syncthreads();
  if (i < n && threadIdx.x > 0) {
    double d = t[threadIdx.x] - t[threadIdx.x - 1];
    atomicAdd(&E[0], d * d * d + sin(t[threadIdx.x]));
  }
}
// CHECK-LABEL: __global__ void tiled_hvp_0(const double *x, double *E, int n, const double *_d2_x, double *_d2_d_x, double *_d_E) {
// CHECK: __shared__ double _d2_d_t[64];
// CHECK: __syncthreads();

__global__ void squares(const double *x, double *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = x[i] * x[i] * sin(x[(i + 1) % n]);
}
// CHECK-LABEL: __global__ void squares_hvp_0(const double *x, double *y, int n, const double *_d2_x, double *_d2_d_x, double *_d_y) {

__host__ __device__ double rosen(const double *p, double a) {
  double s = 0;
  for (int i = 0; i < 3; ++i) {
    double u = p[i + 1] - p[i] * p[i];
    s += a * u * u + (1 - p[i]) * (1 - p[i]);
  }
  return s;
}
// CHECK-LABEL: __host__ __device__ void rosen_hvp(const double *p, double a, const double *_d2_p, double _d2_a, double *_d2_d_p, double *_d2_d_a) {
// CHECK: meshad::atomicAccumulate(&_d2_d_p[

namespace mt = meshad::test;
constexpr int N = 40;
const dim3 Grid(3), Block(16);

/// Checks \p Got against d/dt Grad(X + t V)[J] for J < M, where \p Grad
/// fills a host vector with the gradient at the given positions.
template <class GradFn>
void checkAgainstFd(const std::string &Name, const std::vector<double> &X,
                    const std::vector<double> &V, const double *Got,
                    GradFn Grad) {
  for (size_t J = 0; J < X.size(); ++J) {
    double Fd = mt::centralDifference(
        [&](double T) {
          std::vector<double> XT(X.size());
          for (size_t I = 0; I < X.size(); ++I)
            XT[I] = X[I] + T * V[I];
          return Grad(XT)[J];
        },
        0.0);
    mt::checkClose(Name + "[" + std::to_string(J) + "]", Got[J], Fd);
  }
}

int main() {
  mt::RandomInputs Rng;
  std::vector<double> X(N), V(N);
  Rng.fill(X.data(), N, -1.0, 1.0);
  Rng.fill(V.data(), N, -1.0, 1.0);
  mt::DeviceArray<double> DX(N), DV(N), H(N), E(1), Seed(1), G(N), GK(1);
  for (int I = 0; I < N; ++I)
    DX[I] = X[I], DV[I] = V[I];
  DX.upload();
  DV.upload();
  Seed[0] = 1;
  Seed.upload();

  // chain: w.r.t. x and k; the last entry of X/V is k.
  {
    auto h = meshad::hvp(chain, "x, k");
    auto g = meshad::gradient(chain, "x, k, E");
    double K = Rng.uniform(0.5, 1.5), VK = Rng.uniform(-1, 1);
    H.zero();
    GK.zero();
    h.execute_kernel(Grid, Block, DX.device(), E.device(), K, N, DV.device(),
                     VK, H.device(), GK.device(), Seed.device());
    mt::checkLaunch("chain_hvp");
    H.download();
    GK.download();
    std::vector<double> XK(X), VKs(V), Got(H.host(), H.host() + N);
    XK.push_back(K);
    VKs.push_back(VK);
    Got.push_back(GK[0]);
    checkAgainstFd("chain", XK, VKs, Got.data(), [&](const std::vector<double> &P) {
      mt::DeviceArray<double> PX(N), GX(N), Gk(1), DE(1);
      for (int I = 0; I < N; ++I)
        PX[I] = P[I];
      PX.upload();
      DE[0] = 1;
      DE.upload();
      g.execute_kernel(Grid, Block, PX.device(), E.device(), P[N], N,
                       GX.device(), DE.device(), Gk.device());
      GX.download();
      Gk.download();
      std::vector<double> R(GX.host(), GX.host() + N);
      R.push_back(Gk[0]);
      return R;
    });
  }
  // tiled and squares: w.r.t. x.
  auto CheckX = [&](const char *Name, auto &h, auto &g, bool Elementwise) {
    mt::DeviceArray<double> Seeds(Elementwise ? N : 1);
    for (size_t I = 0; I < Seeds.size(); ++I)
      Seeds[I] = Rng.uniform(0.5, 1.5);
    Seeds.upload();
    mt::DeviceArray<double> Out(Elementwise ? N : 1);
    H.zero();
    h.execute_kernel(Grid, Block, DX.device(), Out.device(), N, DV.device(),
                     H.device(), Seeds.device());
    mt::checkLaunch(Name);
    H.download();
    std::vector<double> SeedCopy(Seeds.host(), Seeds.host() + Seeds.size());
    checkAgainstFd(Name, X, V, H.host(), [&](const std::vector<double> &P) {
      mt::DeviceArray<double> PX(N), GX(N), DOut(SeedCopy.size());
      for (int I = 0; I < N; ++I)
        PX[I] = P[I];
      PX.upload();
      for (size_t I = 0; I < SeedCopy.size(); ++I)
        DOut[I] = SeedCopy[I];
      DOut.upload();
      g.execute_kernel(Grid, Block, PX.device(), Out.device(), N, GX.device(),
                       DOut.device());
      GX.download();
      return std::vector<double>(GX.host(), GX.host() + N);
    });
  };
  auto hTiled = meshad::hvp(tiled, "x");
  auto gTiled = meshad::gradient(tiled, "x, E");
  CheckX("tiled", hTiled, gTiled, false);
  auto hSquares = meshad::hvp(squares, "x");
  auto gSquares = meshad::gradient(squares, "x, y");
  CheckX("squares", hSquares, gSquares, true);

  // rosen on the host (a __host__ __device__ function).
  {
    auto h = meshad::hvp(rosen, "p, a");
    auto g = meshad::gradient(rosen, "p, a");
    std::vector<double> P(X.begin(), X.begin() + 4), VP(V.begin(), V.begin() + 5);
    P.push_back(Rng.uniform(1, 3));
    std::vector<double> Got(5, 0.0);
    h.execute(P.data(), P[4], VP.data(), VP[4], Got.data(), &Got[4]);
    checkAgainstFd("rosen", P, VP, Got.data(), [&](const std::vector<double> &Q) {
      std::vector<double> R(5, 0.0);
      g.execute(Q.data(), Q[4], R.data(), &R[4]);
      return R;
    });
  }
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: PASS chain[40]
// NUM: PASS tiled[39]
// NUM: PASS squares[39]
// NUM: PASS rosen[4]
