//===- demos/tensor-contraction/tensor-contraction.cu - Rank-3 contraction -===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
//
// C[i][j] = sum_{k,l} A[i][k][l] * B[k][l][j], one thread per (i, j) on a 2D
// grid. The reverse-mode gradient with seed G = dL/dC gives
//   dL/dA[i][k][l] = sum_j G[i][j] B[k][l][j],
//   dL/dB[k][l][j] = sum_i A[i][k][l] G[i][j],
// compared with a CPU reference of these formulas. Every A and B element is
// read by several threads, so their adjoints accumulate across threads.
// Build: see demos/black-scholes/black-scholes.cu.
//
//===----------------------------------------------------------------------===//

#include "KernelCheck.h"
#include <meshad/Differentiator.h>

__global__ void contract(int ni, int nk, int nl, int nj, const double *A,
                         const double *B, double *C) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < ni && j < nj) {
    double s = 0;
    for (int k = 0; k < nk; ++k)
      for (int l = 0; l < nl; ++l)
        s += A[(i * nk + k) * nl + l] * B[(k * nl + l) * nj + j];
    C[i * nj + j] = s;
  }
}

namespace mt = meshad::test;

int main() {
  const int NI = 6, NK = 3, NL = 4, NJ = 5;
  const dim3 Grid(2, 2), Block(4, 4);
  mt::RandomInputs Rng;
  mt::DeviceArray<double> A(NI * NK * NL), B(NK * NL * NJ), C(NI * NJ);
  mt::DeviceArray<double> DA(A.size()), DB(B.size()), DC(C.size());
  Rng.fill(A.host(), A.size(), -1, 1);
  Rng.fill(B.host(), B.size(), -1, 1);
  std::vector<double> G(C.size());
  Rng.fill(G.data(), G.size(), -1, 1);
  A.upload();
  B.upload();
  for (size_t I = 0; I < G.size(); ++I)
    DC[I] = G[I];
  DC.upload();

  auto Grad = meshad::gradient(contract, "A, B, C");
  Grad.execute_kernel(Grid, Block, NI, NK, NL, NJ, A.device(), B.device(),
                      C.device(), DA.device(), DB.device(), DC.device());
  mt::checkLaunch("contract gradient");
  DA.download();
  DB.download();

  std::vector<double> RefA(A.size(), 0.0), RefB(B.size(), 0.0);
  for (int I = 0; I < NI; ++I)
    for (int K = 0; K < NK; ++K)
      for (int L = 0; L < NL; ++L)
        for (int J = 0; J < NJ; ++J) {
          RefA[(I * NK + K) * NL + L] +=
              G[I * NJ + J] * B[(K * NL + L) * NJ + J];
          RefB[(K * NL + L) * NJ + J] +=
              A[(I * NK + K) * NL + L] * G[I * NJ + J];
        }
  mt::checkArray("dL/dA", DA.host(), RefA.data(), A.size());
  mt::checkArray("dL/dB", DB.host(), RefB.data(), B.size());

  std::printf("%-12s %14s %14s\n", "element", "meshad", "reference");
  for (int E = 0; E < 3; ++E) {
    std::printf("A[0][%d][%d]   %14.10f %14.10f\n", E / NL, E % NL, DA[E],
                RefA[E]);
    std::printf("B[0][%d][%d]   %14.10f %14.10f\n", E / NJ, E % NJ, DB[E],
                RefB[E]);
  }
  int Rc = mt::summary();
  std::puts(Rc == 0 ? "tensor-contraction: OK" : "tensor-contraction: FAILED");
  return Rc;
}
