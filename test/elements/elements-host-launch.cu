// An element kernel whose gradient is requested directly and also launched
// by the gradient of host code that launches the kernel: the generated
// host code launches the kernel's gradient with the atomic gradient's
// arguments, so the strategy keeps it atomic (two-phase slots would add a
// parameter), and the remark says why. Both gradients are checked against
// central differences.
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-remarks -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.log
// RUN: FileCheck %s --check-prefix=REMARK < %t.log
// RUN: FileCheck %s < %t.log
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "ElementCheck.h"
#include <meshad/Differentiator.h>

__global__ void springs(int n, const int *edges, const double *x,
                        double *E) {
  int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e < n) {
    double d = x[edges[2 * e]] - x[edges[2 * e + 1]];
    atomicAdd(E, d * d + 0.1 * d * d * d * d);
  }
}

/// The springs' energy of the host positions xHost.
double energy(const double *xHost, const int *edgesHost, int n, int V) {
  double *x, *E;
  int *edges;
  cudaMalloc(&x, V * sizeof(double));
  cudaMalloc(&edges, 2 * n * sizeof(int));
  cudaMalloc(&E, sizeof(double));
  cudaMemcpy(x, xHost, V * sizeof(double), cudaMemcpyHostToDevice);
  cudaMemcpy(edges, edgesHost, 2 * n * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemset(E, 0, sizeof(double));
  MESHAD_LAUNCH(springs, dim3((n + 3) / 4), dim3(4))(n, edges, x, E);
  double e = 0;
  cudaMemcpy(&e, E, sizeof(double), cudaMemcpyDeviceToHost);
  cudaFree(x);
  cudaFree(edges);
  cudaFree(E);
  return e;
}
// REMARK: remark: gradient of 'springs': no atomic-free strategy: springs_grad is also launched by energy_grad
// CHECK-LABEL: __global__ void springs_grad(int n, const int *edges, const double *x, double *E, double *_d_x, double *_d_E) {
// CHECK: atomicAdd(&_d_x[edges[2 * e]],

int main() {
  namespace mt = meshad::test;
  mt::RandomInputs Rng;
  const int V = 7, M = 9;
  std::vector<int> Edges = mt::elementConnectivity(M, 2, V);
  std::vector<double> X(V), Grad(V, 0.0);
  Rng.fill(X.data(), V, -1, 1);
  auto Energy = [&] { return energy(X.data(), Edges.data(), M, V); };
  std::vector<double> Expected = mt::fdGradient(Energy, X.data(), V);
  meshad::gradient(energy, "xHost")
      .execute(X.data(), Edges.data(), M, V, Grad.data());
  mt::checkArray("energy", Grad.data(), Expected.data(), V);

  mt::DeviceArray<int> DEdges(2 * M);
  mt::upload(DEdges, Edges);
  mt::DeviceArray<double> DX(V), E(1), DE(1), Adj(V);
  for (int I = 0; I < V; ++I)
    DX[I] = X[I];
  DX.upload();
  DE[0] = 1;
  DE.upload();
  Adj.zero();
  meshad::gradient(springs, "x, E")
      .execute_kernel(dim3(3), dim3(4), M, DEdges.device(), DX.device(),
                      E.device(), Adj.device(), DE.device());
  mt::checkLaunch("springs");
  Adj.download();
  mt::checkArray("springs", Adj.host(), Expected.data(), V);
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
