//===- demos/symmetric-dirichlet/symmetric-dirichlet.cu - Param. energy ---===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
//
// The symmetric Dirichlet energy of a 2D parameterization, one thread per
// triangle, summed with atomicAdd(&E[0], e):
//   F = Ds Dm^-1 (2x2: current edge vectors times the inverse rest edges),
//   e = area (|F|^2 + |F^-1|^2) = area |F|^2 (1 + 1 / det(F)^2).
// Its reverse-mode gradient w.r.t. the uv coordinates against central
// differences. Build: see demos/black-scholes/black-scholes.cu.
//
//===----------------------------------------------------------------------===//

#include "KernelCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

/// restInv: Dm^-1 per triangle (row-major 2x2); area: rest area.
__global__ void symmetricDirichlet(int nTris, const int *tris,
                                   const double *restInv, const double *area,
                                   const double *uv, double *E) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < nTris) {
    int a = tris[3 * t], b = tris[3 * t + 1], c = tris[3 * t + 2];
    double e1x = uv[2 * b] - uv[2 * a], e1y = uv[2 * b + 1] - uv[2 * a + 1];
    double e2x = uv[2 * c] - uv[2 * a], e2y = uv[2 * c + 1] - uv[2 * a + 1];
    const double *m = restInv + 4 * t;
    double f00 = e1x * m[0] + e2x * m[2], f01 = e1x * m[1] + e2x * m[3];
    double f10 = e1y * m[0] + e2y * m[2], f11 = e1y * m[1] + e2y * m[3];
    double frob = f00 * f00 + f01 * f01 + f10 * f10 + f11 * f11;
    double det = f00 * f11 - f01 * f10;
    atomicAdd(&E[0], area[t] * frob * (1 + 1 / (det * det)));
  }
}

namespace mt = meshad::test;

int main() {
  const int NX = 5, NY = 4, NV = NX * NY;
  mt::RandomInputs Rng;
  // A grid of right triangles, rest positions on a unit grid.
  std::vector<int> TriList;
  for (int Y = 0; Y + 1 < NY; ++Y)
    for (int X = 0; X + 1 < NX; ++X) {
      int V = Y * NX + X;
      TriList.insert(TriList.end(), {V, V + 1, V + NX + 1});
      TriList.insert(TriList.end(), {V, V + NX + 1, V + NX});
    }
  const int NT = static_cast<int>(TriList.size() / 3);
  mt::DeviceArray<int> Tris(TriList.size());
  mt::DeviceArray<double> RestInv(4 * NT), Area(NT), UV(2 * NV), E(1),
      DUV(2 * NV), DE(1);
  auto restPos = [&](int V, int C) { return C == 0 ? V % NX : V / NX; };
  for (int T = 0; T < NT; ++T) {
    int A = TriList[3 * T], B = TriList[3 * T + 1], C = TriList[3 * T + 2];
    double M00 = restPos(B, 0) - restPos(A, 0), M10 = restPos(B, 1) - restPos(A, 1);
    double M01 = restPos(C, 0) - restPos(A, 0), M11 = restPos(C, 1) - restPos(A, 1);
    double Det = M00 * M11 - M01 * M10;
    RestInv[4 * T] = M11 / Det;
    RestInv[4 * T + 1] = -M01 / Det;
    RestInv[4 * T + 2] = -M10 / Det;
    RestInv[4 * T + 3] = M00 / Det;
    Area[T] = 0.5 * std::fabs(Det);
  }
  for (size_t I = 0; I < TriList.size(); ++I)
    Tris[I] = TriList[I];
  Tris.upload();
  RestInv.upload();
  Area.upload();
  // A sheared, scaled and jittered parameterization: no triangle flips.
  for (int V = 0; V < NV; ++V) {
    double X = V % NX, Y = V / NX;
    UV[2 * V] = 1.2 * X + 0.3 * Y + Rng.uniform(-0.1, 0.1);
    UV[2 * V + 1] = 0.8 * Y + Rng.uniform(-0.1, 0.1);
  }
  const dim3 Block(16), Grid((NT + 15) / 16);
  auto Energy = [&] {
    UV.upload();
    E.zero();
    MESHAD_LAUNCH(symmetricDirichlet, Grid, Block)(
        NT, Tris.device(), RestInv.device(), Area.device(), UV.device(),
        E.device());
    E.download();
    return E[0];
  };
  double Energy0 = Energy();
  std::vector<double> Ref = mt::fdGradient(Energy, UV.host(), 2 * NV);

  auto Grad = meshad::gradient(symmetricDirichlet, "uv, E");
  UV.upload();
  E.zero();
  DUV.zero();
  DE[0] = 1;
  DE.upload();
  Grad.execute_kernel(Grid, Block, NT, Tris.device(), RestInv.device(),
                      Area.device(), UV.device(), E.device(), DUV.device(),
                      DE.device());
  mt::checkLaunch("symmetricDirichlet gradient");
  DUV.download();
  mt::checkArray("dE/duv", DUV.host(), Ref.data(), 2 * NV);

  std::printf("%d vertices, %d triangles, E = %.6f (2 per triangle at rest)\n",
              NV, NT, Energy0);
  std::printf("%-8s %16s %16s\n", "coord", "meshad", "finite diff.");
  for (int I = 0; I < 6; ++I)
    std::printf("uv[%2d]   %16.10f %16.10f\n", I, DUV[I], Ref[I]);
  int Rc = mt::summary();
  std::puts(Rc == 0 ? "symmetric-dirichlet: OK" : "symmetric-dirichlet: FAILED");
  return Rc;
}
