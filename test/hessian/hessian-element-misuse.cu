// The meshad::ElementHessian handle's life cycle and misuse: a rebuild
// after connectivity_changed() (fewer springs), more matrix rows than
// indexed vertices (set_num_vertices), a matrix of the caller's own
// (use_matrix), copies sharing the matrix; and the misuses that stop the
// program with a message: a stale element count, matrix() before the first
// launch, an index out of range.
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -I%test_inputs %s -o %t
// RUN: %t | FileCheck %s --check-prefix=NUM
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -I%test_inputs -DSTALE %s -o %t.stale
// RUN: not --crash %t.stale 2>&1 | FileCheck %s --check-prefix=STALE
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -I%test_inputs -DBEFORE %s -o %t.before
// RUN: not --crash %t.before 2>&1 | FileCheck %s --check-prefix=BEFORE
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -I%test_inputs -DBAD_INDEX %s -o %t.index
// RUN: not --crash %t.index 2>&1 | FileCheck %s --check-prefix=INDEX
#include "KernelCheck.h"
#include "NumericCheck.h"
#include <meshad/Differentiator.h>
#include <meshad/ElementHessian.h>
#include <set>

namespace mt = meshad::test;

__global__ void springs(int n, const int *edges, const double *x,
                        double *E) {
  int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e < n) {
    int a = edges[2 * e], b = edges[2 * e + 1];
    double l2 = 0;
    for (int k = 0; k < 3; ++k) {
      double d = x[3 * a + k] - x[3 * b + k];
      l2 += d * d;
    }
    atomicAdd(E, l2 * l2);
  }
}

/// The energy on the host.
static double energy(const std::vector<int> &Edges, int N,
                     const std::vector<double> &X) {
  double Sum = 0;
  for (int E = 0; E < N; ++E) {
    double L2 = 0;
    for (int K = 0; K < 3; ++K) {
      double D = X[3 * Edges[2 * E] + K] - X[3 * Edges[2 * E + 1] + K];
      L2 += D * D;
    }
    Sum += L2 * L2;
  }
  return Sum;
}

/// The vertex pairs that share a spring (the blocks), diagonal included.
static int blocks(const std::vector<int> &Edges, int N) {
  std::set<std::pair<int, int>> Pairs;
  for (int E = 0; E < N; ++E)
    for (int A : {Edges[2 * E], Edges[2 * E + 1]})
      for (int B : {Edges[2 * E], Edges[2 * E + 1]})
        Pairs.insert({A, B});
  return static_cast<int>(Pairs.size());
}

int main() {
  mt::RandomInputs Rng;
  std::vector<int> Edges = {0, 1, 1, 2, 2, 3, 3, 0, 0, 2};
  int V = 4;
  mt::DeviceArray<int> DEdges(Edges.size());
  mt::DeviceArray<double> X(3 * V + 6), E(1), G(3 * V + 6);
  Rng.fill(X.host(), 3 * V + 6, -1, 1);
  X.upload();
  for (int I = 0; I < 10; ++I)
    DEdges[I] = Edges[I];
  DEdges.upload();
  std::vector<double> XV(X.host(), X.host() + 3 * V + 6);
  auto h = meshad::hessian(springs, "x");
#ifdef BEFORE
  // BEFORE: meshad: springs_hessian: matrix() before the first launch
  h.matrix();
#endif
#ifdef BAD_INDEX
  // INDEX: meshad: springs_hessian: incidence: index[9] = -1 is not a vertex (4 vertices)
  DEdges[9] = -1;
  DEdges.upload();
#endif
  auto Copy = h;
  h.execute_kernel(dim3(1), dim3(32), 5, DEdges.device(), X.device(),
                   E.device(), G.device());
  E.download();
  MESHAD_CHECK_CLOSE("energy", E[0], energy(Edges, 5, XV));
  MESHAD_CHECK_CLOSE("blocks", double(Copy.matrix().numBlocks()),
                     double(blocks(Edges, 5)));
#ifdef STALE
  // STALE: meshad: springs_hessian: the matrix was built for another mesh than the launch's 3 elements of arity 2 and 3 DOFs a vertex (stale: call connectivity_changed() when the mesh changes, or rebuild the matrix passed to use_matrix())
  h.execute_kernel(dim3(1), dim3(32), 3, DEdges.device(), X.device(),
                   nullptr, nullptr);
#endif
  // Fewer springs: rebuilt after connectivity_changed(), on a copy.
  Copy.connectivity_changed();
  E.zero();
  h.execute_kernel(dim3(1), dim3(32), 3, DEdges.device(), X.device(),
                   E.device(), nullptr);
  E.download();
  MESHAD_CHECK_CLOSE("energy, 3 springs", E[0], energy(Edges, 3, XV));
  MESHAD_CHECK_CLOSE("blocks, 3 springs", double(h.matrix().numBlocks()),
                     double(blocks(Edges, 3)));
  // Two more vertices than the springs index: empty rows.
  h.set_num_vertices(V + 2);
  h.execute_kernel(dim3(1), dim3(32), 3, DEdges.device(), X.device(),
                   nullptr, nullptr);
  MESHAD_CHECK_CLOSE("rows", double(h.matrix().numRows()), 3.0 * (V + 2));
  // A matrix of the caller's own.
  meshad::runtime::SparseHessian<double> Mine(DEdges.device(), 5, 2, V, 3);
  h.use_matrix(Mine);
  h.execute_kernel(dim3(1), dim3(32), 5, DEdges.device(), X.device(),
                   nullptr, nullptr);
  MESHAD_CHECK_CLOSE("borrowed", &h.matrix() == &Mine ? 1.0 : 0.0, 1.0);
  std::vector<double> Values(Mine.nnz());
  cudaMemcpy(Values.data(), Mine.values(), Values.size() * sizeof(double),
             cudaMemcpyDeviceToHost);
  double Trace = 0;
  meshad::runtime::HessianPatternArrays P = Mine.toHost();
  for (int B = 0; B < Mine.numBlocks(); ++B)
    if (P.BlockRows[B] == P.BlockColumns[B])
      for (int K = 0; K < 3; ++K)
        Trace += Values[(B * 3 + K) * 3 + K];
  // The trace of the Hessian of sum (l2)^2: sum over springs of the
  // Laplacian, 2 * (4 l2 + 8 l2) / ... computed by central differences.
  double Fd = 0;
  for (int I = 0; I < 3 * V; ++I)
    Fd += mt::centralDifferenceAt(
        [&] {
          return mt::centralDifferenceAt(
              [&] { return energy(Edges, 5, XV); }, XV.data(), I);
        },
        XV.data(), I);
  MESHAD_CHECK_CLOSE("borrowed trace", Trace, Fd);
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 7 passed, 0 failed
