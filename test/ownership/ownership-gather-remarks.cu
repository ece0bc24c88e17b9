// The remark of each atomic adjoint store of a shared array quotes the
// access it belongs to (its location and source text: the nine loads of a
// triangle's corners get nine remarks, each with its own x[3 * i + k]) and
// says how to make it atomic-free: the element strategies where an element
// map is found (here the atomic strategy was asked for), a rewrite into an
// element map or a colouring where none is, MESHAD_THREAD_EXCLUSIVE for
// other shared arrays. Gradients against central differences.
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-remarks -I%test_inputs %s -o %t 2> %t.log
// RUN: FileCheck %s --check-prefix=REMARK < %t.log
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "KernelCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

namespace mt = meshad::test;

__global__ void triangles(int n, const int *tris, const double *x,
                          double *E) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < n) {
    int ia = tris[3 * t], ib = tris[3 * t + 1], ic = tris[3 * t + 2];
    double ax = x[3 * ia + 0];
    double ay = x[3 * ia + 1];
    double az = x[3 * ia + 2];
    double bx = x[3 * ib + 0];
    double by = x[3 * ib + 1];
    double bz = x[3 * ib + 2];
    double cx = x[3 * ic + 0];
    double cy = x[3 * ic + 1];
    double cz = x[3 * ic + 2];
    double ux = bx - ax, uy = by - ay, uz = bz - az;
    double vx = cx - ax, vy = cy - ay, vz = cz - az;
    double nx = uy * vz - uz * vy, ny = uz * vx - ux * vz,
           nz = ux * vy - uy * vx;
    atomicAdd(E, nx * nx + ny * ny + nz * nz);
  }
}
// REMARK-DAG: ownership-gather-remarks.cu:23:17: remark: adjoint store to 'x': atomicAdd (shared: {{.*}}), for the access x[3 * ia + 0]; to make it atomic-free: gather by recomputation or two-phase slots replace these atomics under meshad::ElementStrategy::Auto (the default), Gather or TwoPhase, not under Atomics (the remark 'gradient of ...' at the request says which applies; docs/element-kernels.md); or process the elements in colour order and declare 'x' MESHAD_THREAD_EXCLUSIVE
// REMARK-DAG: ownership-gather-remarks.cu:24:17: remark: adjoint store to 'x': atomicAdd (shared: {{.*}}), for the access x[3 * ia + 1]; to make it atomic-free: gather by recomputation or two-phase slots replace these atomics
// REMARK-DAG: ownership-gather-remarks.cu:25:17: remark: {{.*}}, for the access x[3 * ia + 2];
// REMARK-DAG: ownership-gather-remarks.cu:26:17: remark: {{.*}}, for the access x[3 * ib + 0];
// REMARK-DAG: ownership-gather-remarks.cu:27:17: remark: {{.*}}, for the access x[3 * ib + 1];
// REMARK-DAG: ownership-gather-remarks.cu:28:17: remark: {{.*}}, for the access x[3 * ib + 2];
// REMARK-DAG: ownership-gather-remarks.cu:29:17: remark: {{.*}}, for the access x[3 * ic + 0];
// REMARK-DAG: ownership-gather-remarks.cu:30:17: remark: {{.*}}, for the access x[3 * ic + 1];
// REMARK-DAG: ownership-gather-remarks.cu:31:17: remark: {{.*}}, for the access x[3 * ic + 2];

// A neighbour through an index array beside the thread's own element: no
// element map (not every access goes through the index array).
__global__ void pairs(int n, const int *nbr, const double *x, double *E) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(E, sin(x[i]) * x[nbr[i]]);
}
// REMARK-DAG: ownership-gather-remarks.cu:[[#@LINE-2]]:{{[0-9]+}}: remark: adjoint store to 'x': atomicAdd (shared: {{.*}}), for the access x[nbr[i]]; to make it atomic-free: read 'x' only as x[s*idx[c*t + j] + k] through a read-only index array, under a guard t < n, for the atomic-free two-phase strategy (meshad::ElementStrategy, docs/element-kernels.md); or process the elements in colour order and declare 'x' MESHAD_THREAD_EXCLUSIVE

// Two threads read each element, no index array.
__global__ void halves(int n, const double *x, double *E) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(E, x[i / 2] * x[i / 2] * (1.0 + 0.1 * i));
}
// REMARK-DAG: ownership-gather-remarks.cu:[[#@LINE-2]]:{{[0-9]+}}: remark: adjoint store to 'x': atomicAdd (shared: {{.*}}), for the access x[i / 2]; to make it atomic-free: if no two threads touch one element (elements in colour order, a permutation), declare 'x' MESHAD_THREAD_EXCLUSIVE; an index c*gid + d (offsets spanning less than |c|) is proven exclusive

/// dE/dx of \p Launch (which launches the primal into E) against the
/// gradient that \p Grad leaves in DX.
template <class L, class G>
void check(const char *Name, mt::DeviceArray<double> &X, int Size, L Launch,
           G Grad) {
  mt::DeviceArray<double> E(1), DX(Size), DE(1);
  auto Energy = [&] {
    X.upload();
    E.zero();
    Launch(E.device());
    E.download();
    return E[0];
  };
  std::vector<double> Ref = mt::fdGradient(Energy, X.host(), Size);
  X.upload();
  E.zero();
  DX.zero();
  DE[0] = 1.0;
  DE.upload();
  Grad(E.device(), DX.device(), DE.device());
  mt::checkLaunch(Name);
  DX.download();
  mt::checkArray(Name, DX.host(), Ref.data(), Size);
}

int main() {
  mt::RandomInputs Rng;
  constexpr int NV = 7, NT = 9;
  const dim3 Grid(2), Block(8);
  mt::DeviceArray<int> Tris(3 * NT), Nbr(NT);
  for (int T = 0; T < NT; ++T) {
    for (int K = 0; K < 3; ++K)
      Tris[3 * T + K] = (T + 2 * K + T / 3) % NV;
    Nbr[T] = (3 * T + 1) % NT;
  }
  Tris.upload();
  Nbr.upload();
  mt::DeviceArray<double> X(3 * NV), Y(NT);
  Rng.fill(X.host(), 3 * NV, -1, 1);
  Rng.fill(Y.host(), NT, 0.2, 1.2);

  auto GT = meshad::gradient(triangles, "x, E",
                             meshad::ElementStrategy::Atomics);
  check("d triangles/dx", X, 3 * NV,
        [&](double *E) {
          MESHAD_LAUNCH(triangles, Grid, Block)(NT, Tris.device(), X.device(),
                                                E);
        },
        [&](double *E, double *DX, double *DE) {
          GT.execute_kernel(Grid, Block, NT, Tris.device(), X.device(), E, DX,
                            DE);
        });
  auto GP = meshad::gradient(pairs, "x, E");
  check("d pairs/dx", Y, NT,
        [&](double *E) {
          MESHAD_LAUNCH(pairs, Grid, Block)(NT, Nbr.device(), Y.device(), E);
        },
        [&](double *E, double *DX, double *DE) {
          GP.execute_kernel(Grid, Block, NT, Nbr.device(), Y.device(), E, DX,
                            DE);
        });
  auto GH = meshad::gradient(halves, "x, E");
  check("d halves/dx", Y, NT,
        [&](double *E) {
          MESHAD_LAUNCH(halves, Grid, Block)(NT, Y.device(), E);
        },
        [&](double *E, double *DX, double *DE) {
          GH.execute_kernel(Grid, Block, NT, Y.device(), E, DX, DE);
        });
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 39 passed, 0 failed
