// The choice of an element gradient's strategy at run time (issue 11):
// where the cost model (Driver/ElementCostModel.h) prefers the gather, the
// default request keeps both kernels, the gather and the two-phase slots
// (<k>_slots), and its handle (meshad::ElementGradientChoice) chooses on the
// first launch from the numbering of the index array
// (meshad/runtime/NumberingLocality.h): the gather for a grid-ordered mesh,
// two-phase slots for the same mesh with shuffled vertex numbers. 3D springs
// with a rest length and triangles with 3D DOFs (test/Inputs/
// ElementKernels.h) on a 16 x 16 grid; in grid order and shuffled, each
// gradient against central differences, bitwise equal across two runs,
// within 1e-12 of the atomic gradient; strategy() before and after the
// first launch; the choice made again after connectivity_changed() and for
// another index array, and forced with force_strategy(): each such run
// bitwise equal to the same strategy's earlier run on the same numbering,
// within 1e-12 of the other strategy's.
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-remarks -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.log
// RUN: FileCheck %s --check-prefix=REMARK < %t.log
// RUN: FileCheck %s < %t.log
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "ElementCheck.h"
#include "ElementGrids.h"
#include "ElementKernels.h"
#include <cmath>
#include <meshad/Differentiator.h>

namespace mt = meshad::test;

// The gathers over the vertices, then the two-phase copies of the gradients.
// CHECK-LABEL: __global__ void springs_grad_3_4(int n, const int *edges, const double *rest, const double *x, double *E, double *_d_x, double *_d_E, const int *_offsets, const int *_incident, int _nv) {
// CHECK-NOT: atomicAdd
// CHECK: springs_element_grad(n, edges, rest, e, _xl, _d_E[0], _gl);
// CHECK-LABEL: __global__ void triangles3_grad(int nf, const int *tris, const double *x, double *E, double *_d_x, double *_d_E, const int *_offsets, const int *_incident, int _nv) {
// CHECK-NOT: atomicAdd
// CHECK: triangles3_element_grad(
// CHECK-LABEL: __global__ void springs_grad_3_4_slots(int n, const int *edges, const double *rest, const double *x, double *E, double *_d_x, double *_d_E, double *_slots) {
// CHECK-NOT: atomicAdd
// CHECK: meshad::slotStore<2, 3>(_slots, n, e, 2 * e, k, _r0);
// CHECK-LABEL: __global__ void triangles3_grad_slots(int nf, const int *tris, const double *x, double *E, double *_d_x, double *_d_E, double *_slots) {
// CHECK-NOT: atomicAdd(&_d_x
// CHECK: meshad::slotStore<3, 3>(

namespace {
constexpr int N = 16, V = N * N;

const char *name(meshad::ElementStrategy S) {
  return S == meshad::ElementStrategy::Gather     ? "gather"
         : S == meshad::ElementStrategy::TwoPhase ? "two-phase"
         : S == meshad::ElementStrategy::Auto     ? "not chosen"
                                                  : "other";
}
} // namespace

int main() {
  mt::RandomInputs Rng;
  std::vector<int> EdgeList = mt::gridEdges(N), TriList = mt::gridTriangles(N);
  const int M = static_cast<int>(EdgeList.size()) / 2;
  const int F = static_cast<int>(TriList.size()) / 3;
  mt::DeviceArray<int> Grid(2 * M), Shuffled(2 * M), Tris(3 * F),
      ShuffledTris(3 * F);
  mt::upload(Grid, EdgeList);
  mt::upload(Shuffled, mt::shuffled(EdgeList, V));
  mt::upload(Tris, TriList);
  mt::upload(ShuffledTris, mt::shuffled(TriList, V));
  mt::DeviceArray<double> Rest(M), X(3 * V), E(1), DE(1);
  Rng.fill(Rest.host(), M, 0.2, 0.5);
  Rest.upload();
  Rng.fill(X.host(), 3 * V, -1, 1);
  DE[0] = 1;
  DE.upload();
  const int Threads = 64;
  dim3 B(Threads), G((M + Threads - 1) / Threads);
  dim3 GF((F + Threads - 1) / Threads);

  // REMARK: elements-run-time-choice.cu:[[#@LINE+1]]:18: remark: gradient of 'springs': gather by recomputation for x (element map through edges (arity 2, stride 3), n elements (guard)), one thread per vertex, or two-phase slots (springs_grad_3_4_slots, each slot stored once), chosen at run time from the numbering of edges (the gather where it is local: meshad/runtime/NumberingLocality.h; strategy() says which), no atomics, bitwise reproducible (cost model: element work small (12 operations, 1 math call): estimated gather 60 < two-phase 188 operations per element); whole pullback recomputed per vertex
  auto Springs = meshad::gradient(springs, "x, E");
  auto Atomic = meshad::gradient(springs, "x, E",
                                 meshad::ElementStrategy::Atomics);
  // NUM: springs before the first launch: not chosen
  std::printf("springs before the first launch: %s\n",
              name(Springs.strategy()));
  auto Check = [&](const char *What, mt::DeviceArray<int> &Edges) {
    auto Energy = [&] {
      X.upload();
      E.zero();
      MESHAD_LAUNCH(springs, G, B)(M, Edges.device(), Rest.device(),
                                   X.device(), E.device());
      mt::checkLaunch("primal");
      E.download();
      return E[0];
    };
    mt::checkElementGradient(
        What, X, Energy,
        [&](double *DX) {
          Springs.execute_kernel(G, B, M, Edges.device(), Rest.device(),
                                 X.device(), E.device(), DX, DE.device());
        },
        [&](double *DX) {
          Atomic.execute_kernel(G, B, M, Edges.device(), Rest.device(),
                                X.device(), E.device(), DX, DE.device());
        });
    std::printf("%s: %s (locality %.2f)\n", What, name(Springs.strategy()),
                Springs.numbering_locality());
  };
  // NUM: springs, grid order: gather (locality 1.00)
  Check("springs, grid order", Grid);
  // NUM: springs, shuffled: two-phase (locality 0.{{0|1}}
  Check("springs, shuffled", Shuffled);

  // One more run: its gradient, what it ran.
  auto Run = [&](const char *What, mt::DeviceArray<int> &Edges) {
    mt::DeviceArray<double> DX(3 * V);
    X.upload();
    DX.zero();
    Springs.execute_kernel(G, B, M, Edges.device(), Rest.device(), X.device(),
                           E.device(), DX.device(), DE.device());
    mt::checkLaunch(What);
    DX.download();
    std::printf("%s: %s (locality %.2f)\n", What, name(Springs.strategy()),
                Springs.numbering_locality());
    return std::vector<double>(DX.host(), DX.host() + 3 * V);
  };
  auto Same = [&](const char *What, const std::vector<double> &A,
                  const std::vector<double> &B, bool Bitwise) {
    for (int I = 0; I < 3 * V; ++I)
      mt::checker().close(What, A[I], B[I], Bitwise ? 0.0 : 1e-12);
  };
  std::vector<double> GridGather = Run("springs, grid order again", Grid);
  std::vector<double> ShuffledSlots = Run("springs, shuffled again", Shuffled);
  // The same array renumbered: chosen again after connectivity_changed().
  mt::upload(Grid, mt::shuffled(EdgeList, V));
  Springs.connectivity_changed();
  // NUM: springs, grid array renumbered: two-phase
  Same("renumbered = shuffled", Run("springs, grid array renumbered", Grid),
       ShuffledSlots, true);
  mt::upload(Grid, EdgeList);
  Springs.connectivity_changed();
  // Forced: the gather on the shuffled mesh, then two-phase on the grid;
  // Auto chooses again.
  Springs.force_strategy(meshad::ElementStrategy::Gather);
  // NUM: springs, shuffled, forced: gather (locality -1.00)
  Same("forced gather ~ two-phase",
       Run("springs, shuffled, forced", Shuffled), ShuffledSlots, false);
  Springs.force_strategy(meshad::ElementStrategy::TwoPhase);
  // NUM: springs, grid order, forced: two-phase (locality -1.00)
  Same("forced two-phase ~ gather", Run("springs, grid order, forced", Grid),
       GridGather, false);
  Springs.force_strategy(meshad::ElementStrategy::Auto);
  // NUM: springs, grid order, chosen again: gather (locality 1.00)
  Same("chosen again = gather",
       Run("springs, grid order, chosen again", Grid), GridGather, true);

  // Triangles: gather by the refitted model (session 7's H100 figures).
  // REMARK: elements-run-time-choice.cu:[[#@LINE+1]]:20: remark: gradient of 'triangles3': gather by recomputation for x (element map through tris (arity 3, stride 3), nf elements (guard)), one thread per vertex, or two-phase slots (triangles3_grad_slots{{(, each slot stored once)?}}), chosen at run time from the numbering of tris (the gather where it is local: meshad/runtime/NumberingLocality.h; strategy() says which), no atomics, bitwise reproducible (cost model: element work small ({{.*}}): estimated gather {{[0-9]+}} < two-phase {{[0-9]+}} operations per element{{.*}}
  auto Triangles = meshad::gradient(triangles3, "x, E");
  auto TrianglesAtomic = meshad::gradient(triangles3, "x, E",
                                          meshad::ElementStrategy::Atomics);
  // The energy for the differences summed on the host, in a fixed order
  // (triangles3's formula): on a GPU the kernel's atomic sum of 450
  // triangles varies in its last bits from launch to launch, noise that
  // the differences amplify beyond the tolerance for small entries.
  auto CheckTriangles = [&](const char *What, mt::DeviceArray<int> &Idx) {
    Idx.download();
    auto Energy = [&] {
      const double *P = X.host();
      double Sum = 0;
      for (int T = 0; T < F; ++T) {
        const int *C = Idx.host() + 3 * T;
        double U[3], W[3];
        for (int K = 0; K < 3; ++K) {
          U[K] = P[3 * C[1] + K] - P[3 * C[0] + K];
          W[K] = P[3 * C[2] + K] - P[3 * C[0] + K];
        }
        double N0 = U[1] * W[2] - U[2] * W[1], N1 = U[2] * W[0] - U[0] * W[2],
               N2 = U[0] * W[1] - U[1] * W[0];
        Sum += std::sqrt(N0 * N0 + N1 * N1 + N2 * N2 + 0.01);
      }
      return Sum;
    };
    // The kernel's energy is the same sum (up to rounding).
    X.upload();
    E.zero();
    MESHAD_LAUNCH(triangles3, GF, B)(F, Idx.device(), X.device(), E.device());
    mt::checkLaunch("primal");
    E.download();
    mt::checker().close(std::string(What) + " energy", E[0], Energy(), 1e-12);
    mt::checkElementGradient(
        What, X, Energy,
        [&](double *DX) {
          Triangles.execute_kernel(GF, B, F, Idx.device(), X.device(),
                                   E.device(), DX, DE.device());
        },
        [&](double *DX) {
          TrianglesAtomic.execute_kernel(GF, B, F, Idx.device(), X.device(),
                                         E.device(), DX, DE.device());
        });
    std::printf("%s: %s\n", What, name(Triangles.strategy()));
  };
  // NUM: triangles, grid order: gather
  CheckTriangles("triangles, grid order", Tris);
  // NUM: triangles, shuffled: two-phase
  CheckTriangles("triangles, shuffled", ShuffledTris);
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
