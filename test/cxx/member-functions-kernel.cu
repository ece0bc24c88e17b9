// Member functions of a plain struct in a kernel (issue 13): a `Vec3` with
// `__host__ __device__` members (`dot`, `norm`, `cross`, operators written
// as members, `+=`), loaded by a `__device__` function returning the
// struct, in a triangle-energy kernel; the lowering inlines them
// (Lower/LowerInline.cpp). Forward mode, reverse mode and HVP on the CPU
// emulation against central differences.
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "KernelCheck.h"
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>
#include <vector>

namespace mt = meshad::test;

struct Vec3 {
  double x, y, z;
  __host__ __device__ double dot(const Vec3 &o) const {
    return x * o.x + y * o.y + z * o.z;
  }
  __host__ __device__ double norm() const { return sqrt(dot(*this)); }
  __host__ __device__ Vec3 operator-(const Vec3 &o) const {
    return {x - o.x, y - o.y, z - o.z};
  }
  __host__ __device__ Vec3 operator+(const Vec3 &o) const {
    return {x + o.x, y + o.y, z + o.z};
  }
  __host__ __device__ Vec3 operator*(double s) const {
    return {x * s, y * s, z * s};
  }
  __host__ __device__ Vec3 cross(const Vec3 &o) const {
    return {y * o.z - z * o.y, z * o.x - x * o.z, x * o.y - y * o.x};
  }
  __host__ __device__ void operator+=(const Vec3 &o) {
    x += o.x;
    y += o.y;
    z += o.z;
  }
};

__device__ Vec3 load(const double *x, int v) {
  return {x[3 * v], x[3 * v + 1], x[3 * v + 2]};
}

__global__ void triEnergy(int nt, const int *tri, const double *x,
                          double *E) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= nt)
    return;
  Vec3 a = load(x, tri[3 * t]), b = load(x, tri[3 * t + 1]),
       c = load(x, tri[3 * t + 2]);
  Vec3 n = (b - a).cross(c - a);
  Vec3 m = (a + b + c) * 0.5;
  m += n * 0.25;
  atomicAdd(&E[0], n.norm() + 0.1 * m.dot(m));
}

// CHECK-LABEL: __global__ void triEnergy_darg2(int nt, const int *tri, const double *x, double *E, const double *_d_x, double *_d_E) {
// CHECK: int v = tri[3 * t];
// CHECK: a.x = x[3 * v];
// CHECK: n.x = _t0.y * o.z - _t0.z * o.y;
// CHECK: m.x += o_1.x;
// CHECK: double _t4 = sqrt(n.x * n.x + n.y * n.y + n.z * n.z);
// The cost model's choice for this triangle: the gather, confirmed at run
// time from the numbering (else the two-phase copy, _slots, below).
// CHECK-LABEL: __global__ void triEnergy_grad(int nt, const int *tri, const double *x, double *E, double *_d_x, double *_d_E, const int *_offsets, const int *_incident, int _nv) {
// CHECK-NOT: atomicAdd(&_d_x
// CHECK: triEnergy_element_grad(nt, tri, t, _xl, _d_E[0], _gl);
// CHECK-LABEL: __global__ void triEnergy_hvp_2(int nt, const int *tri, const double *x, double *E, const double *_d2_x, double *_d2_d_x, double *_d_E) {
// CHECK-LABEL: __global__ void triEnergy_grad_slots(int nt, const int *tri, const double *x, double *E, double *_d_x, double *_d_E, double *_slots) {
// CHECK-NOT: atomicAdd(&_d_x
// CHECK: meshad::slotStore<3, 3>(_slots, nt, t, 3 * t + 2, 2, _r8);

constexpr int NT = 6, NV = 8, N = 3 * NV;
const dim3 Grid(2), Block(4);

int main() {
  mt::RandomInputs Rng;

  auto d = meshad::differentiate(triEnergy, "x");
  auto g = meshad::gradient(triEnergy, "x, E");
  auto h = meshad::hvp(triEnergy, "x");
  mt::DeviceArray<int> Tri(3 * NT);
  mt::DeviceArray<double> X(N), E(1), DX(N), DE(1), VX(N), HX(N), Seed(1);
  for (int T = 0; T < NT; ++T)
    for (int K = 0; K < 3; ++K)
      Tri[3 * T + K] = (T + 2 * K + (T % 2)) % NV;
  Tri.upload();
  Rng.fill(X.host(), N, -1, 1);
  auto Energy = [&] {
    X.upload();
    E.zero();
    MESHAD_LAUNCH(triEnergy, Grid, Block)(NT, Tri.device(), X.device(),
                                          E.device());
    E.download();
    return E[0];
  };
  std::vector<double> Ref = mt::fdGradient(Energy, X.host(), N);
  // Vertices no triangle references have derivative exactly 0 (on a GPU the
  // differences see the atomics' rounding, about 1e-12).
  std::vector<bool> Used(NV, false);
  for (int I = 0; I < 3 * NT; ++I)
    Used[Tri[I]] = true;
  for (int V = 0; V < NV; ++V)
    if (!Used[V])
      Ref[3 * V] = Ref[3 * V + 1] = Ref[3 * V + 2] = 0;

  // Forward: one direction per coordinate would be N launches; a random
  // direction checks the directional derivative.
  std::vector<double> Dir(N);
  Rng.fill(Dir.data(), N, -1, 1);
  double RefDir = 0;
  for (int K = 0; K < N; ++K)
    RefDir += Ref[K] * Dir[K];
  X.upload();
  E.zero();
  DE.zero();
  for (int K = 0; K < N; ++K)
    DX[K] = Dir[K];
  DX.upload();
  d.execute_kernel(Grid, Block, NT, Tri.device(), X.device(), E.device(),
                   DX.device(), DE.device());
  mt::checkLaunch("triEnergy_darg2");
  DE.download();
  MESHAD_CHECK_CLOSE("triEnergy jvp", DE[0], RefDir);

  X.upload();
  E.zero();
  DX.zero();
  DE[0] = 1;
  DE.upload();
  g.execute_kernel(Grid, Block, NT, Tri.device(), X.device(), E.device(),
                   DX.device(), DE.device());
  mt::checkLaunch("triEnergy_grad");
  DX.download();
  mt::checkArray("d triEnergy/dx", DX.host(), Ref.data(), N);

  // HVP against central differences of the gradient along V.
  auto Gradient = [&](double *G) {
    X.upload();
    E.zero();
    DX.zero();
    DE[0] = 1;
    DE.upload();
    g.execute_kernel(Grid, Block, NT, Tri.device(), X.device(), E.device(),
                     DX.device(), DE.device());
    DX.download();
    for (int K = 0; K < N; ++K)
      G[K] = DX[K];
  };
  Rng.fill(VX.host(), N, -1, 1);
  std::vector<double> RefH(N), Saved(X.host(), X.host() + N);
  for (int J = 0; J < N; ++J)
    RefH[J] = mt::centralDifference(
        [&](double T) {
          for (int K = 0; K < N; ++K)
            X[K] = Saved[K] + T * VX[K];
          std::vector<double> G(N);
          Gradient(G.data());
          return G[J];
        },
        0.0);
  for (int K = 0; K < N; ++K)
    X[K] = Saved[K];
  X.upload();
  VX.upload();
  E.zero();
  HX.zero();
  Seed[0] = 1;
  Seed.upload();
  h.execute_kernel(Grid, Block, NT, Tri.device(), X.device(), E.device(),
                   VX.device(), HX.device(), Seed.device());
  mt::checkLaunch("triEnergy_hvp");
  HX.download();
  mt::checkArray("triEnergy Hv", HX.host(), RefH.data(), N);
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
