// double3 arithmetic through operators the user defines as free functions
// (the style of CUDA's helper_math.h: `operator+`, `operator-`, `operator*`
// with a scalar on either side, unary minus, `operator+=` on a reference)
// and the helpers `dot`, `cross`, `length` (issue 13): a call of the
// operator's function, whose derivatives are named after it
// (`operator_plus_pushforward`). A __host__ __device__ function in forward
// mode, reverse mode and HVP on the host, and a triangle-energy kernel in
// all three on the CPU emulation, against central differences.
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "KernelCheck.h"
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>
#include <vector>

__host__ __device__ double3 operator+(double3 a, double3 b) {
  return make_double3(a.x + b.x, a.y + b.y, a.z + b.z);
}
__host__ __device__ double3 operator-(double3 a, double3 b) {
  return make_double3(a.x - b.x, a.y - b.y, a.z - b.z);
}
__host__ __device__ double3 operator-(double3 a) {
  return make_double3(-a.x, -a.y, -a.z);
}
__host__ __device__ double3 operator*(double3 a, double s) {
  return make_double3(a.x * s, a.y * s, a.z * s);
}
__host__ __device__ double3 operator*(double s, double3 a) {
  return make_double3(s * a.x, s * a.y, s * a.z);
}
__host__ __device__ void operator+=(double3 &a, double3 b) {
  a.x += b.x;
  a.y += b.y;
  a.z += b.z;
}
__host__ __device__ double dot(double3 a, double3 b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}
__host__ __device__ double3 cross(double3 a, double3 b) {
  return make_double3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z,
                      a.x * b.y - a.y * b.x);
}
__host__ __device__ double length(double3 a) { return sqrt(dot(a, a)); }

__host__ __device__ double bend(double ax, double ay, double az, double s) {
  double3 a = make_double3(ax, ay, az);
  double3 b = make_double3(s, ax * s, 1.0);
  double3 n = cross(a, b);
  n += a * s;
  double3 m = 0.5 * (n - b) + -a;
  return length(n) + dot(m, b) * s;
}

__device__ double3 load3(const double *x, int v) {
  return make_double3(x[3 * v], x[3 * v + 1], x[3 * v + 2]);
}

__global__ void triEnergy(int nt, const int *tri, const double *x,
                          double *E) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= nt)
    return;
  double3 a = load3(x, tri[3 * t]), b = load3(x, tri[3 * t + 1]),
          c = load3(x, tri[3 * t + 2]);
  double3 n = cross(b - a, c - a);
  double3 m = 0.5 * (a + b + c);
  m += n * 0.25;
  atomicAdd(&E[0], length(n) + 0.1 * dot(m, m));
}

// CHECK-LABEL: __host__ __device__ double bend_darg0(double ax, double ay, double az, double s) {
// CHECK: meshad::ValueAndPushforward<double3, double3> _t{{[0-9]+}} = cross_pushforward(a, b, _d_a, _d_b);
// CHECK: operator_plus_assign_pushforward(n, _t0, _d_n, _d__t0);
// CHECK-LABEL: __host__ __device__ void operator_plus_assign_pushforward(double3 &a, double3 b, double3 &_d_a, double3 _d_b) {
// CHECK-NEXT: _d_a.x += _d_b.x;
// CHECK-NEXT: a.x += b.x;
// CHECK-LABEL: __host__ __device__ meshad::ValueAndPushforward<double3, double3> operator_plus_pushforward(double3 a, double3 b, double3 _d_a, double3 _d_b) {
// CHECK-NEXT: return {make_double3(a.x + b.x, a.y + b.y, a.z + b.z), make_double3(_d_a.x + _d_b.x, _d_a.y + _d_b.y, _d_a.z + _d_b.z)};
// CHECK-LABEL: __host__ __device__ void bend_grad(double ax, double ay, double az, double s, double *_d_ax, double *_d_ay, double *_d_az, double *_d_s) {
// CHECK-LABEL: __host__ __device__ void operator_plus_assign_pullback(double3 &a, double3 b, double3 &_d_a, double3 *_d_b) {
// CHECK-NEXT: a.x += b.x;
// CHECK: (*_d_b).x += _d_a.x;
// CHECK-LABEL: __host__ __device__ void bend_hvp(
// CHECK-LABEL: __global__ void triEnergy_darg2(int nt, const int *tri, const double *x, double *E, const double *_d_x, double *_d_E) {
// CHECK-LABEL: __global__ void triEnergy_grad(int nt, const int *tri, const double *x, double *E, double *_d_x, double *_d_E) {
// CHECK-LABEL: __global__ void triEnergy_hvp_2(int nt, const int *tri, const double *x, double *E, const double *_d2_x, double *_d2_d_x, double *_d_E) {

namespace mt = meshad::test;

void checkHost(mt::RandomInputs &Rng) {
  auto d0 = meshad::differentiate(bend, "ax");
  auto d1 = meshad::differentiate(bend, "ay");
  auto d2 = meshad::differentiate(bend, "az");
  auto d3 = meshad::differentiate(bend, "s");
  auto g = meshad::gradient(bend, "ax, ay, az, s");
  auto h = meshad::hvp(bend, "ax, ay, az, s");
  auto Grad = [&](const double *X, double *G) {
    g.execute(X[0], X[1], X[2], X[3], &G[0], &G[1], &G[2], &G[3]);
  };
  for (int Trial = 0; Trial < 4; ++Trial) {
    double X[4], V[4], G[4] = {}, H[4] = {};
    Rng.fill(X, 3, -1, 1);
    X[3] = Rng.uniform(0.5, 1.5);
    Rng.fill(V, 4, -1, 1);
    Grad(X, G);
    h.execute(X[0], X[1], X[2], X[3], V[0], V[1], V[2], V[3], &H[0], &H[1],
              &H[2], &H[3]);
    double Fwd[4] = {d0.execute(X[0], X[1], X[2], X[3]),
                     d1.execute(X[0], X[1], X[2], X[3]),
                     d2.execute(X[0], X[1], X[2], X[3]),
                     d3.execute(X[0], X[1], X[2], X[3])};
    for (int I = 0; I < 4; ++I) {
      double Fd = mt::centralDifferenceAt(
          [&] { return bend(X[0], X[1], X[2], X[3]); }, X, I);
      std::string Tag = "[" + std::to_string(I) + "]";
      MESHAD_CHECK_CLOSE(("bend fwd" + Tag).c_str(), Fwd[I], Fd);
      MESHAD_CHECK_CLOSE(("bend rev" + Tag).c_str(), G[I], Fd);
      double Hd = mt::centralDifference(
          [&](double T) {
            double XT[4], GT[4] = {};
            for (int K = 0; K < 4; ++K)
              XT[K] = X[K] + T * V[K];
            Grad(XT, GT);
            return GT[I];
          },
          0.0);
      MESHAD_CHECK_CLOSE(("bend hvp" + Tag).c_str(), H[I], Hd);
    }
  }
}

constexpr int NT = 6, NV = 8, N = 3 * NV;
const dim3 Grid(2), Block(4);

int main() {
  mt::RandomInputs Rng;
  checkHost(Rng);

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
