//===- demos/stencil-2d/stencil-2d.cu - Shared-memory 2D stencil ----------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
//
// One explicit step of a nonlinear diffusion on an NX x NY grid with a
// five-point stencil, tiled in shared memory: each 8 x 8 block loads its
// tile plus a one-cell halo on each side, synchronizes, and computes
//   v = u + dt (u_w + u_e + u_s + u_n - 4 u) / (1 + u^2) - dt u^3
// (zero outside the grid). The reverse-mode gradient of L = sum w v w.r.t.
// u crosses the barrier and the halo loads; compared with central
// differences. Build: see demos/black-scholes/black-scholes.cu.
//
//===----------------------------------------------------------------------===//

#include "KernelCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

#define BX 8
#define BY 8

/// Launch with blockDim = (BX, BY).
__global__ void diffuse(int nx, int ny, double dt, const double *u, double *v) {
  __shared__ double tile[BY + 2][BX + 2];
  int tx = threadIdx.x, ty = threadIdx.y;
  int x = blockIdx.x * BX + tx, y = blockIdx.y * BY + ty;
  bool inside = x < nx && y < ny;
  tile[ty + 1][tx + 1] = inside ? u[y * nx + x] : 0.0;
  if (tx == 0)
    tile[ty + 1][0] = x > 0 && y < ny ? u[y * nx + x - 1] : 0.0;
  if (tx == BX - 1)
    tile[ty + 1][BX + 1] = x + 1 < nx && y < ny ? u[y * nx + x + 1] : 0.0;
  if (ty == 0)
    tile[0][tx + 1] = y > 0 && x < nx ? u[(y - 1) * nx + x] : 0.0;
  if (ty == BY - 1)
    tile[BY + 1][tx + 1] = y + 1 < ny && x < nx ? u[(y + 1) * nx + x] : 0.0;
  __syncthreads();
  if (inside) {
    double c = tile[ty + 1][tx + 1];
    double lap = tile[ty + 1][tx] + tile[ty + 1][tx + 2] + tile[ty][tx + 1] +
                 tile[ty + 2][tx + 1] - 4 * c;
    v[y * nx + x] = c + dt * lap / (1 + c * c) - dt * c * c * c;
  }
}

namespace mt = meshad::test;

int main() {
  const int NX = 19, NY = 13, N = NX * NY; // partial blocks in x and y
  const double Dt = 0.1;
  const dim3 Block(BX, BY), Grid((NX + BX - 1) / BX, (NY + BY - 1) / BY);
  mt::RandomInputs Rng;
  mt::DeviceArray<double> U(N), V(N), DU(N), DV(N);
  std::vector<double> W(N);
  Rng.fill(U.host(), N, 0.2, 1.0);
  Rng.fill(W.data(), N, 0.5, 1.0);
  auto Loss = [&] {
    U.upload();
    MESHAD_LAUNCH(diffuse, Grid, Block)(NX, NY, Dt, U.device(), V.device());
    V.download();
    return mt::weightedSum(W.data(), V.host(), N);
  };
  std::vector<double> Ref = mt::fdGradient(Loss, U.host(), N);

  auto Grad = meshad::gradient(diffuse, "u, v");
  U.upload();
  DU.zero();
  for (int I = 0; I < N; ++I)
    DV[I] = W[I];
  DV.upload();
  Grad.execute_kernel(Grid, Block, NX, NY, Dt, U.device(), V.device(),
                      DU.device(), DV.device());
  mt::checkLaunch("diffuse gradient");
  DU.download();
  mt::checkArray("dL/du", DU.host(), Ref.data(), N);

  std::printf("%dx%d grid, %dx%d blocks of %dx%d\n", NX, NY, Grid.x, Grid.y,
              BX, BY);
  std::printf("%-10s %16s %16s\n", "cell", "meshad", "finite diff.");
  for (int I : {0, BX - 1, BX, NX * BY + BX, N - 1})
    std::printf("(%2d,%2d)    %16.10f %16.10f\n", I % NX, I / NX, DU[I],
                Ref[I]);
  int Rc = mt::summary();
  std::puts(Rc == 0 ? "stencil-2d: OK" : "stencil-2d: FAILED");
  return Rc;
}
