//===- demos/mass-spring/mass-spring.cu - Mass-spring energy gradient -----===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
//
// The elastic energy of a 2D grid mesh of springs (horizontal, vertical and
// diagonal edges), one thread per edge, summed with atomicAdd(&E[0], e):
//   E = sum_edges 0.5 k (|x_a - x_b| - rest)^2.
// Its reverse-mode gradient w.r.t. the vertex positions (the negated forces;
// each vertex gathers from up to 8 edges) against central differences.
// Build: see demos/black-scholes/black-scholes.cu.
//
//===----------------------------------------------------------------------===//

#include "KernelCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

__global__ void springEnergy(int nEdges, const int *edges, const double *rest,
                             double k, const double *x, double *E) {
  int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e < nEdges) {
    int a = edges[2 * e], b = edges[2 * e + 1];
    double dx = x[2 * a] - x[2 * b];
    double dy = x[2 * a + 1] - x[2 * b + 1];
    double stretch = sqrt(dx * dx + dy * dy) - rest[e];
    atomicAdd(&E[0], 0.5 * k * stretch * stretch);
  }
}

namespace mt = meshad::test;

int main() {
  const int NX = 5, NY = 4, NV = NX * NY;
  const double H = 1.0, K = 3.0;
  mt::RandomInputs Rng;
  std::vector<int> EdgeList;
  std::vector<double> RestList;
  auto addEdge = [&](int A, int B, double Rest) {
    EdgeList.push_back(A);
    EdgeList.push_back(B);
    RestList.push_back(Rest);
  };
  for (int Y = 0; Y < NY; ++Y)
    for (int X = 0; X < NX; ++X) {
      int V = Y * NX + X;
      if (X + 1 < NX)
        addEdge(V, V + 1, H);
      if (Y + 1 < NY)
        addEdge(V, V + NX, H);
      if (X + 1 < NX && Y + 1 < NY)
        addEdge(V, V + NX + 1, H * std::sqrt(2.0));
    }
  const int NE = static_cast<int>(RestList.size());
  mt::DeviceArray<int> Edges(EdgeList.size());
  mt::DeviceArray<double> Rest(NE), Pos(2 * NV), E(1), DPos(2 * NV), DE(1);
  for (size_t I = 0; I < EdgeList.size(); ++I)
    Edges[I] = EdgeList[I];
  for (int I = 0; I < NE; ++I)
    Rest[I] = RestList[I];
  Edges.upload();
  Rest.upload();
  // The rest grid, stretched by 10% in x and jittered: no spring at rest.
  for (int V = 0; V < NV; ++V) {
    Pos[2 * V] = 1.1 * H * (V % NX) + Rng.uniform(-0.15, 0.15);
    Pos[2 * V + 1] = H * (V / NX) + Rng.uniform(-0.15, 0.15);
  }
  const dim3 Block(32), Grid((NE + 31) / 32);
  auto Energy = [&] {
    Pos.upload();
    E.zero();
    MESHAD_LAUNCH(springEnergy, Grid, Block)(NE, Edges.device(),
                                             Rest.device(), K, Pos.device(),
                                             E.device());
    E.download();
    return E[0];
  };
  double Energy0 = Energy();
  std::vector<double> Ref = mt::fdGradient(Energy, Pos.host(), 2 * NV);

  auto Grad = meshad::gradient(springEnergy, "x, E");
  Pos.upload();
  E.zero();
  DPos.zero();
  DE[0] = 1;
  DE.upload();
  Grad.execute_kernel(Grid, Block, NE, Edges.device(), Rest.device(), K,
                      Pos.device(), E.device(), DPos.device(), DE.device());
  mt::checkLaunch("springEnergy gradient");
  DPos.download();
  mt::checkArray("dE/dx", DPos.host(), Ref.data(), 2 * NV);

  std::printf("%d vertices, %d springs, E = %.6f\n", NV, NE, Energy0);
  std::printf("%-8s %16s %16s\n", "coord", "meshad", "finite diff.");
  for (int I = 0; I < 6; ++I)
    std::printf("x[%2d]    %16.10f %16.10f\n", I, DPos[I], Ref[I]);
  int Rc = mt::summary();
  std::puts(Rc == 0 ? "mass-spring: OK" : "mass-spring: FAILED");
  return Rc;
}
