// The gather by recomputation for several arrays read through one index
// array (issue 11): one fused vertex kernel gathers each array's element
// DOFs, calls one pullback of the element (<k>_element_x_u_grad, every
// array's local DOFs active) per incident element and keeps its vertex's
// part of each local gradient. motion (positions x and velocities u,
// stride 3) by an explicit Gather; weightedSprings (positions x, stride 3,
// and per-vertex weights w, stride 1) by Auto, whose handle chooses at run
// time over all arrays (meshad::ElementGradientChoice with the two-phase
// slots of both arrays, meshad::ElementGradientSlots, as the alternative):
// the gather on a 16 x 16 grid in grid order, two-phase slots with its
// vertices shuffled. Each adjoint: against central differences (of the
// energy summed on the host in a fixed order, checked against the
// kernel's), bitwise
// equal across two runs, within 1e-12 of the atomic gradient; forced
// strategies within 1e-12 of each other. The kernels are those of
// test/Inputs/ElementArrays.h; an element kernel of two index arrays (cloth)
// has no gather (elements-several-arrays.cu).
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-remarks -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.log
// RUN: FileCheck %s --check-prefix=REMARK < %t.log
// RUN: FileCheck %s < %t.log
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "ElementArrays.h"
#include "ElementGrids.h"
#include <cstdio>
#include <meshad/Differentiator.h>

namespace mt = meshad::test;

// CHECK-LABEL: __global__ void motion_grad_gather(int n, const int *edges, const double *x, const double *u, double *E, double *_d_x, double *_d_u, double *_d_E, const int *_offsets, const int *_incident, int _nv) {
// CHECK-NOT: atomicAdd
// CHECK: double _sum_x[3] = {};
// CHECK-NEXT: double _sum_u[3] = {};
// CHECK: meshad::gatherElement<2, 3>(x, edges, e, _xl);
// CHECK: meshad::gatherElement<2, 3>(u, edges, e, _ul);
// CHECK: motion_element_x_u_grad(n, edges, e, _xl, _ul, _d_E[0], _d_xl, _d_ul);
// CHECK-NEXT: meshad::keepVertexPart<2, 3>(_sum_x, _d_xl, _slot - 2 * e);
// CHECK-NEXT: meshad::keepVertexPart<2, 3>(_sum_u, _d_ul, _slot - 2 * e);
// CHECK: meshad::addVertexSum<3>(_d_x, _v, _sum_x);
// CHECK-NEXT: meshad::addVertexSum<3>(_d_u, _v, _sum_u);
// CHECK-NOT: atomicAdd
// CHECK: {{^}$}}
// CHECK-LABEL: __global__ void weightedSprings_grad(int n, const int *edges, const double *x, const double *w, double *E, double *_d_x, double *_d_w, double *_d_E, const int *_offsets, const int *_incident, int _nv) {
// CHECK-NOT: atomicAdd
// CHECK: meshad::gatherElement<2, 1>(w, edges, e, _wl);
// CHECK: weightedSprings_element_x_w_grad(n, edges, e, _xl, _wl, _d_E[0], _d_xl, _d_wl);
// CHECK-NEXT: meshad::keepVertexPart<2, 3>(_sum_x, _d_xl, _slot - 2 * e);
// CHECK-NEXT: meshad::keepVertexPart<2, 1>(_sum_w, _d_wl, _slot - 2 * e);
// CHECK: meshad::addVertexSum<1>(_d_w, _v, _sum_w);
// CHECK-NOT: atomicAdd
// CHECK: {{^}$}}
// The element functions of both arrays, then the two-phase alternative.
// CHECK-LABEL: __device__ double motion_element_x_u(int n, const int *edges, int e, const double *x, const double *u) {
// CHECK-LABEL: __device__ void motion_element_x_u_grad(int n, const int *edges, int e, const double *x, const double *u, double _d_y, double *_d_x, double *_d_u) {
// CHECK-LABEL: __global__ void weightedSprings_grad_slots(int n, const int *edges, const double *x, const double *w, double *E, double *_d_x, double *_d_w, double *_d_E, double *_slots, double *_slots1) {
// CHECK-NOT: atomicAdd(&_d_
// CHECK: meshad::slotStore<2, {{[13]}}>(
// CHECK-LABEL: __device__ double weightedSprings_element_x_w(int n, const int *edges, int e, const double *x, const double *w) {
// CHECK: E += w[0] * w[1] * l2 * l2;
// CHECK-LABEL: __device__ void weightedSprings_element_x_w_grad(int n, const int *edges, int e, const double *x, const double *w, double _d_y, double *_d_x, double *_d_w) {
// CHECK: _d_w[0] += _r4 * w[1];
// CHECK-NEXT: _d_w[1] += w[0] * _r4;

namespace {
constexpr int N = 16, V = N * N;

const char *name(meshad::ElementStrategy S) {
  return S == meshad::ElementStrategy::Gather     ? "gather"
         : S == meshad::ElementStrategy::TwoPhase ? "two-phase"
         : S == meshad::ElementStrategy::Auto     ? "not chosen"
                                                  : "other";
}

/// The weighted springs of a 16 x 16 grid, in grid order or shuffled.
struct WeightedGrid {
  int M;
  mt::DeviceArray<int> Edges;
  mt::DeviceArray<double> X, W, E, DE, Scratch;

  explicit WeightedGrid(const std::vector<int> &EdgeList, mt::RandomInputs &Rng)
      : M(static_cast<int>(EdgeList.size()) / 2), Edges(EdgeList.size()),
        X(3 * V), W(V), E(1), DE(1), Scratch(3 * V) {
    mt::upload(Edges, EdgeList);
    Rng.fill(X.host(), 3 * V, -1, 1);
    Rng.fill(W.host(), V, 0.5, 1.5);
    X.upload();
    W.upload();
    DE[0] = 1;
    DE.upload();
  }
  dim3 block() const { return dim3(64); }
  dim3 grid() const { return dim3((M + 63) / 64); }
  template <class G> void run(G &Grad, double *DX, double *DW) {
    Grad.execute_kernel(grid(), block(), M, Edges.device(), X.device(),
                        W.device(), E.device(), DX, DW, DE.device());
  }
  /// The energy at the host values of X and W, summed on the host in a
  /// fixed order (weightedSprings' formula): on a GPU the kernel's atomic
  /// sum of 480 springs varies in its last bits from launch to launch,
  /// noise that the differences amplify beyond the tolerance.
  double energy(mt::DeviceArray<double> &) {
    const double *P = X.host(), *Wt = W.host();
    const int *Idx = Edges.host();
    double Sum = 0;
    for (int T = 0; T < M; ++T) {
      int A = Idx[2 * T], B = Idx[2 * T + 1];
      double L2 = 0;
      for (int K = 0; K < 3; ++K) {
        double D = P[3 * A + K] - P[3 * B + K];
        L2 += D * D;
      }
      Sum += Wt[A] * Wt[B] * L2 * L2;
    }
    return Sum;
  }
  /// The kernel's energy (atomics) against the host's.
  void checkEnergy() {
    X.upload();
    W.upload();
    E.zero();
    MESHAD_LAUNCH(weightedSprings, grid(), block())(
        M, Edges.device(), X.device(), W.device(), E.device());
    mt::checkLaunch("primal");
    E.download();
    mt::checker().close("kernel energy = host energy", E[0], energy(X),
                        1e-12);
  }
  /// dE/dx and dE/dw of \p Grad against the differences and \p Atomic.
  template <class G, class A>
  void check(const std::string &Name, G &Grad, A &Atomic) {
    checkEnergy();
    mt::checkElementGradient(
        Name + " dE/dx", X, [&] { return energy(X); },
        [&](double *DX) { run(Grad, DX, Scratch.device()); },
        [&](double *DX) { run(Atomic, DX, Scratch.device()); });
    mt::checkElementGradient(
        Name + " dE/dw", W, [&] { return energy(W); },
        [&](double *DW) { run(Grad, Scratch.device(), DW); },
        [&](double *DW) { run(Atomic, Scratch.device(), DW); });
  }
  /// dE/dx of one more run of \p Grad.
  template <class G> std::vector<double> gradient(G &Grad) {
    mt::DeviceArray<double> DX(3 * V);
    X.upload();
    DX.zero();
    run(Grad, DX.device(), Scratch.device());
    mt::checkLaunch("gradient");
    DX.download();
    return std::vector<double>(DX.host(), DX.host() + 3 * V);
  }
};
} // namespace

int main() {
  mt::ArrayMeshes Mesh;
  // REMARK: elements-gather-several-arrays.cu:[[#@LINE+1]]:17: remark: gradient of 'motion': gather by recomputation for x (element map through edges (arity 2, stride 3), n elements (guard)) and u (element map through edges (arity 2, stride 3), n elements (guard)), one thread per vertex, no atomics, bitwise reproducible (as requested); whole pullback recomputed per vertex (several arrays: the parts split one local gradient)
  auto Motion = meshad::gradient(motion, "x, u, E",
                                 meshad::ElementStrategy::Gather);
  static_assert(decltype(Motion)::strategy() == meshad::ElementStrategy::Gather);
  auto MotionAtomic =
      meshad::gradient(motion, "x, u, E", meshad::ElementStrategy::Atomics);
  mt::checkMotion(Mesh, Motion, MotionAtomic);

  mt::RandomInputs Rng;
  WeightedGrid Grid(mt::gridEdges(N), Rng),
      Shuffled(mt::shuffled(mt::gridEdges(N), V), Rng);
  // REMARK: elements-gather-several-arrays.cu:[[#@LINE+1]]:19: remark: gradient of 'weightedSprings': gather by recomputation for x (element map through edges (arity 2, stride 3), n elements (guard)) and w (element map through edges (arity 2, stride 1), n elements (guard)), one thread per vertex, or two-phase slots (weightedSprings_grad_slots, each slot stored once), chosen at run time from the numbering of edges (the gather where it is local: meshad/runtime/NumberingLocality.h; strategy() says which), no atomics, bitwise reproducible (cost model: {{.*}}); whole pullback recomputed per vertex (several arrays: the parts split one local gradient)
  auto Weighted = meshad::gradient(weightedSprings, "x, w, E");
  auto WeightedAtomic = meshad::gradient(weightedSprings, "x, w, E",
                                         meshad::ElementStrategy::Atomics);
  // NUM: weighted springs before the first launch: not chosen
  std::printf("weighted springs before the first launch: %s\n",
              name(Weighted.strategy()));
  Grid.check("weighted springs, grid order", Weighted, WeightedAtomic);
  // NUM: weighted springs, grid order: gather (locality 1.00)
  std::printf("weighted springs, grid order: %s (locality %.2f)\n",
              name(Weighted.strategy()), Weighted.numbering_locality());
  std::vector<double> GridGather = Grid.gradient(Weighted);
  Shuffled.check("weighted springs, shuffled", Weighted, WeightedAtomic);
  // NUM: weighted springs, shuffled: two-phase (locality 0.{{0|1}}
  std::printf("weighted springs, shuffled: %s (locality %.2f)\n",
              name(Weighted.strategy()), Weighted.numbering_locality());
  std::vector<double> ShuffledSlots = Shuffled.gradient(Weighted);

  // Forced: each strategy on the other numbering, within rounding of the
  // chosen one's gradient.
  Weighted.force_strategy(meshad::ElementStrategy::TwoPhase);
  std::vector<double> GridSlots = Grid.gradient(Weighted);
  Weighted.force_strategy(meshad::ElementStrategy::Gather);
  std::vector<double> ShuffledGather = Shuffled.gradient(Weighted);
  // NUM: forced: gather
  std::printf("forced: %s\n", name(Weighted.strategy()));
  for (int I = 0; I < 3 * V; ++I) {
    mt::checker().close("grid: two-phase ~ gather", GridSlots[I],
                        GridGather[I], 1e-12);
    mt::checker().close("shuffled: gather ~ two-phase", ShuffledGather[I],
                        ShuffledSlots[I], 1e-12);
  }
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
