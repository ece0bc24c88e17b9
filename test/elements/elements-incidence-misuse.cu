// The incidence of an element gradient's handle (issue 11): built on first
// use and kept; connectivity_changed() builds it again, and so does another
// index array (a different pointer: another mesh of as many elements);
// use_incidence() takes one the caller owns. Misuse stops the program with a message, never
// a wrong gradient: an element count that differs from the incidence's
// (stale), a borrowed incidence of another arity, an index out of range
// (checked on every launch with MESHAD_DEBUG_INDICES).
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -I%test_inputs %s -o %t
// RUN: %t | FileCheck %s --check-prefix=NUM
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -I%test_inputs -DSTALE %s -o %t.stale
// RUN: not --crash %t.stale 2>&1 | FileCheck %s --check-prefix=STALE
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -I%test_inputs -DARITY %s -o %t.arity
// RUN: not --crash %t.arity 2>&1 | FileCheck %s --check-prefix=ARITY
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -I%test_inputs -DMESHAD_DEBUG_INDICES -DBAD_INDEX %s -o %t.index
// RUN: not --crash %t.index 2>&1 | FileCheck %s --check-prefix=INDEX
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -I%test_inputs -DNEGATIVE %s -o %t.negative
// RUN: not --crash %t.negative 2>&1 | FileCheck %s --check-prefix=NEGATIVE
#include "ElementCheck.h"
#include <algorithm>
#include <meshad/Differentiator.h>
#include <meshad/runtime/Incidence.h>

namespace mt = meshad::test;

__global__ void springs(int n, const int *edges, const double *x,
                        double *E) {
  int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e < n) {
    double d = x[edges[2 * e]] - x[edges[2 * e + 1]];
    atomicAdd(E, d * d * d * d);
  }
}

int main() {
  mt::RandomInputs Rng;
  const int V = 9, M = 13, Threads = 4, Blocks = 4;
  mt::DeviceArray<int> Edges(2 * M);
  mt::upload(Edges, mt::elementConnectivity(M, 2, V));
  mt::DeviceArray<double> X(V), E(1), DE(1);
  Rng.fill(X.host(), V, -1, 1);
  DE[0] = 1;
  DE.upload();
  auto G = meshad::gradient(springs, "x, E");
  auto A = meshad::gradient(springs, "x, E", meshad::ElementStrategy::Atomics);
  int *Ind = Edges.device();
  auto Check = [&](const char *Name, int N) {
    auto Energy = [&] {
      X.upload();
      E.zero();
      MESHAD_LAUNCH(springs, Blocks, Threads)(N, Ind, X.device(),
                                              E.device());
      E.download();
      return E[0];
    };
    mt::checkElementGradient(
        Name, X, Energy,
        [&](double *DX) {
          G.execute_kernel(dim3(Blocks), dim3(Threads), N, Ind,
                           X.device(), E.device(), DX, DE.device());
        },
        [&](double *DX) {
          A.execute_kernel(dim3(Blocks), dim3(Threads), N, Ind,
                           X.device(), E.device(), DX, DE.device());
        });
  };
  Check("first use", M);
#ifdef STALE
  // STALE: meshad: springs_grad: the incidence has 13 elements of arity 2, the launch 11 of arity 2 (stale: call connectivity_changed() when the mesh changes, or rebuild the incidence passed to use_incidence())
  Check("stale", M - 2);
#endif
#ifdef ARITY
  meshad::runtime::Incidence Wrong(Edges.device(), M / 2, 4, V);
  G.use_incidence(Wrong);
  // ARITY: meshad: springs_grad: the incidence has 6 elements of arity 4, the launch 13 of arity 2
  Check("arity", M);
#endif
#ifdef BAD_INDEX
  Edges[5] = V + 3;
  Edges.upload();
  // INDEX: meshad: springs_grad: an index is not below the incidence's 8 vertices
  Check("index", M);
#endif
#ifdef NEGATIVE
  G.connectivity_changed();
  Edges[5] = -1;
  Edges.upload();
  // NEGATIVE: meshad: springs_grad: incidence: index[5] = -1 is not a vertex
  Check("negative", M);
#endif
  // Fewer elements, told: the incidence is built again.
  G.connectivity_changed();
  Check("changed", M - 2);
  // Another mesh with as many elements, in another array: noticed by its
  // pointer, the incidence is built again (the first mesh's would give a
  // wrong gradient).
  std::vector<int> Other = mt::elementConnectivity(M - 2, 2, V);
  std::reverse(Other.begin(), Other.end());
  mt::DeviceArray<int> Edges2(Other.size());
  mt::upload(Edges2, Other);
  Ind = Edges2.device();
  Check("another array", M - 2);
  Ind = Edges.device();
  Check("the first array again", M - 2);
  // A copy of the handle shares its incidence.
  auto Copy = G;
  Copy.connectivity_changed();
  Check("copy", M);
  // An incidence of the caller's.
  meshad::runtime::Incidence Own(Edges.device(), M, 2, V);
  G.use_incidence(Own);
  Check("borrowed", M);
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
