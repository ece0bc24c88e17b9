// The caller's incidences for a gradient with several slot buffers (issue
// 11, meshad::ElementGradientSlots::use_incidence): positions x and
// velocities u read through one index array (use_incidence(inc), for every
// array), and a cloth kernel with springs (edges, per-vertex weights w) and
// triangles (tris) in one launch (use_incidence(indices, inc), per index
// array). Each adjoint: against central differences, bitwise equal across
// two runs, and close to the atomic gradient. A stale borrowed incidence
// (built for fewer triangles than the launch has) stops with a message;
// use_incidence(inc) on a kernel of two index arrays is a compile error.
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -I%test_inputs %s -o %t
// RUN: %t | FileCheck %s --check-prefix=NUM
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -I%test_inputs -DSTALE %s -o %t.stale
// RUN: not --crash %t.stale 2>&1 | FileCheck %s --check-prefix=STALE
// RUN: not %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -I%test_inputs -DONE_FOR_ALL %s -o %t.one 2>&1 | FileCheck %s --check-prefix=ONE
#include "ElementCheck.h"
#include <cstdio>
#include <meshad/Differentiator.h>

namespace mt = meshad::test;

__global__ void motion(int n, const int *edges, const double *x,
                       const double *u, double *E) {
  int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e < n) {
    int a = edges[2 * e], b = edges[2 * e + 1];
    double l2 = 0, s = 0;
    for (int k = 0; k < 3; ++k) {
      double d = x[3 * a + k] - x[3 * b + k];
      double v = u[3 * a + k] - u[3 * b + k];
      l2 += d * d;
      s += d * v;
    }
    atomicAdd(E, l2 * l2 + s * s);
  }
}

__global__ void cloth(int ne, int nf, const int *edges, const int *tris,
                      const double *w, const double *x, double *E) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < ne) {
    int a = edges[2 * t], b = edges[2 * t + 1];
    double l2 = 0;
    for (int k = 0; k < 3; ++k) {
      double d = x[3 * a + k] - x[3 * b + k];
      l2 += d * d;
    }
    atomicAdd(E, w[a] * w[b] * l2 * l2);
  }
  if (t < nf) {
    int a = tris[3 * t], b = tris[3 * t + 1], c = tris[3 * t + 2];
    double pq = 0, pp = 0, qq = 0;
    for (int k = 0; k < 3; ++k) {
      double p = x[3 * b + k] - x[3 * a + k];
      double q = x[3 * c + k] - x[3 * a + k];
      pq += p * q;
      pp += p * p;
      qq += q * q;
    }
    atomicAdd(E, pp * qq - pq * pq);
  }
}

int main() {
  mt::RandomInputs Rng;
  const int V = 8, M = 11, F = 7, Threads = 4, Blocks = 3;
  mt::DeviceArray<int> Edges(2 * M), Tris(3 * F);
  mt::upload(Edges, mt::elementConnectivity(M, 2, V));
  mt::upload(Tris, mt::elementConnectivity(F, 3, V));
  mt::DeviceArray<double> X(3 * V), U(3 * V), W(V), E(1), DE(1);
  mt::DeviceArray<double> ScratchA(3 * V), ScratchB(3 * V);
  Rng.fill(X.host(), 3 * V, -1, 1);
  Rng.fill(U.host(), 3 * V, -1, 1);
  Rng.fill(W.host(), V, 0.5, 1.5);
  X.upload();
  U.upload();
  W.upload();
  auto Energy = [&](mt::DeviceArray<double> &P, auto &&Launch) {
    return [&P, &Launch, &E]() {
      P.upload();
      E.zero();
      Launch();
      mt::checkLaunch("primal");
      E.download();
      return E[0];
    };
  };
  auto Seed = [&] {
    DE[0] = 1;
    DE.upload();
    return DE.device();
  };

  // The caller's incidences (V vertices: the last one in no element).
  meshad::runtime::Incidence IncEdges(Edges.device(), M, 2, V);
#ifdef STALE
  meshad::runtime::Incidence IncTris(Tris.device(), F - 2, 3, V);
#else
  meshad::runtime::Incidence IncTris(Tris.device(), F, 3, V);
#endif

  auto MotionPrimal = [&] {
    MESHAD_LAUNCH(motion, Blocks, Threads)(M, Edges.device(), X.device(),
                                           U.device(), E.device());
  };
  auto Motion = meshad::gradient(motion, "x, u, E");
  Motion.use_incidence(IncEdges);
  auto MotionAtomic =
      meshad::gradient(motion, "x, u, E", meshad::ElementStrategy::Atomics);
  auto MotionGrad = [&](auto &G, double *DX, double *DU) {
    G.execute_kernel(dim3(Blocks), dim3(Threads), M, Edges.device(),
                     X.device(), U.device(), E.device(), DX, DU, Seed());
  };
  mt::checkElementGradient(
      "motion dE/dx", X, Energy(X, MotionPrimal),
      [&](double *DX) { MotionGrad(Motion, DX, ScratchA.device()); },
      [&](double *DX) { MotionGrad(MotionAtomic, DX, ScratchA.device()); });
  mt::checkElementGradient(
      "motion dE/du", U, Energy(U, MotionPrimal),
      [&](double *DU) { MotionGrad(Motion, ScratchA.device(), DU); },
      [&](double *DU) { MotionGrad(MotionAtomic, ScratchA.device(), DU); });

  auto ClothPrimal = [&] {
    MESHAD_LAUNCH(cloth, Blocks, Threads)(M, F, Edges.device(), Tris.device(),
                                          W.device(), X.device(), E.device());
  };
  auto Cloth = meshad::gradient(cloth, "w, x, E");
#ifdef ONE_FOR_ALL
  // ONE: error: static assertion failed{{.*}}use_incidence(inc): the kernel reads its arrays through several index arrays; say which one inc is the incidence of: use_incidence(indices, inc)
  Cloth.use_incidence(IncEdges);
#endif
  Cloth.use_incidence(Edges.device(), IncEdges);
  Cloth.use_incidence(Tris.device(), IncTris);
  auto ClothAtomic =
      meshad::gradient(cloth, "w, x, E", meshad::ElementStrategy::Atomics);
  auto ClothGrad = [&](auto &G, double *DW, double *DX) {
    G.execute_kernel(dim3(Blocks), dim3(Threads), M, F, Edges.device(),
                     Tris.device(), W.device(), X.device(), E.device(), DW,
                     DX, Seed());
  };
  // STALE: meshad: cloth_grad: the incidence passed to use_incidence() has 5 elements of arity 3, the launch 7 of arity 3 (stale: rebuild it when the mesh changes)
  mt::checkElementGradient(
      "cloth dE/dx", X, Energy(X, ClothPrimal),
      [&](double *DX) { ClothGrad(Cloth, ScratchA.device(), DX); },
      [&](double *DX) { ClothGrad(ClothAtomic, ScratchA.device(), DX); });
  mt::checkElementGradient(
      "cloth dE/dw", W, Energy(W, ClothPrimal),
      [&](double *DW) { ClothGrad(Cloth, DW, ScratchB.device()); },
      [&](double *DW) { ClothGrad(ClothAtomic, DW, ScratchB.device()); });
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
