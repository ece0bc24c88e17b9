// meshad::hvp keeps the forward sweep of the gradient it differentiates,
// but returns neither the energy nor the gradient: a callee's pushforward
// whose result only fed the energy is dead, and goes (the callee has no
// side effects), with the branches left empty. Here the bond energy is
// weighed by k: with the Hessian w.r.t. x only, bond(x[i], x[i + 1]) is
// not needed (the forward sweep keeps only the loop's trip count); w.r.t.
// x and k, its tangent is (the adjoint of k's tangent reads it), and the
// call stays. A pushforward whose value only is read (gate(x[0]) decides a
// branch) becomes a call of the primal. Each HVP is checked against central differences of
// meshad::gradient along random directions (CPU emulation in CI).
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "KernelCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>
#include <string>
#include <vector>

__device__ double bond(double a, double b) {
  double d = b - a;
  return d * d * (1 + 0.5 * sin(a + b));
}
__global__ void chain(const double *x, double *E, double k, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n - 1)
    return;
  atomicAdd(&E[0], k * bond(x[i], x[i + 1]) + 0.1 * x[i] * x[i] * x[i]);
}
// CHECK-LABEL: __global__ void chain_hvp_0(const double *x, double *E, double k, int n, const double *_d2_x, double *_d2_d_x, double *_d_E) {
// CHECK-NOT: pushforward(
// CHECK-NOT: if (_cond0)
// CHECK: if (!_cond0) {
// CHECK-NEXT: _d__t0 += k * _d_E[0];
// CHECK: bond_pullback_pushforward_0_1_3_4_no_d_a_no_d_b(
// CHECK: }
// CHECK-LABEL: __device__ void bond_pullback_pushforward_0_1_3_4_no_d_a_no_d_b(
// CHECK-LABEL: __global__ void chain_hvp_0_2(const double *x, double *E, double k, int n, const double *_d2_x, double _d2_k, double *_d2_d_x, double *_d2_d_k, double *_d_E) {
// CHECK: meshad::ValueAndPushforward<double, double> _t1 = bond_pushforward(x[i], x[i + 1], _d2_x[i], _d2_x[i + 1]);
// CHECK-NEXT: _d2_t0 = _t1.pushforward;
// CHECK: _d2_d_k_part += _d_E[0] * _d2_t0;
// CHECK-LABEL: __device__ meshad::ValueAndPushforward<double, double> bond_pushforward(

double gate(double a) { return a * a - 0.5; }
double gated(const double *x) {
  double c = gate(x[0]) < x[1] ? x[1] : x[0];
  return c * c * x[2] + sin(x[0]) * x[1];
}
// CHECK-LABEL: void gated_hvp(const double *x, const double *_d2_x, double *_d2_d_x) {
// CHECK-NOT: gate_pushforward
// CHECK: double _t1 = gate(x[0]);
// CHECK: c = _t0 < x[1] ? x[1] : x[0];
// CHECK-NOT: gate_pushforward

namespace mt = meshad::test;
constexpr int N = 30;
const dim3 Grid(2), Block(16);

/// Checks \p Got against d/dt Grad(P + t V)[J] for each J it holds.
template <class GradFn>
void checkAgainstFd(const std::string &Name, const std::vector<double> &P,
                    const std::vector<double> &V, const std::vector<double> &Got,
                    GradFn Grad) {
  for (size_t J = 0; J < Got.size(); ++J) {
    double Fd = mt::centralDifference(
        [&](double T) {
          std::vector<double> PT(P.size());
          for (size_t I = 0; I < P.size(); ++I)
            PT[I] = P[I] + T * V[I];
          return Grad(PT)[J];
        },
        0.0);
    mt::checkClose(Name + "[" + std::to_string(J) + "]", Got[J], Fd);
  }
}

int main() {
  mt::RandomInputs Rng;
  auto g = meshad::gradient(chain, "x, k, E");
  // The gradient w.r.t. x and k at P = (x, k), the energy weighed by W.
  double W = Rng.uniform(0.5, 1.5);
  auto Grad = [&](const std::vector<double> &P) {
    mt::DeviceArray<double> X(N), E(1), GX(N), GK(1), DE(1);
    for (int I = 0; I < N; ++I)
      X[I] = P[I];
    X.upload();
    DE[0] = W;
    DE.upload();
    g.execute_kernel(Grid, Block, X.device(), E.device(), P[N], N,
                     GX.device(), DE.device(), GK.device());
    GX.download();
    GK.download();
    std::vector<double> R(GX.host(), GX.host() + N);
    R.push_back(GK[0]);
    return R;
  };
  std::vector<double> P(N + 1), V(N + 1);
  Rng.fill(P.data(), N, -1.0, 1.0);
  Rng.fill(V.data(), N + 1, -1.0, 1.0);
  P[N] = Rng.uniform(0.5, 1.5);
  mt::DeviceArray<double> X(N), VX(N), E(1), H(N), HK(1), Seed(1);
  for (int I = 0; I < N; ++I)
    X[I] = P[I], VX[I] = V[I];
  X.upload();
  VX.upload();
  Seed[0] = W;
  Seed.upload();

  // W.r.t. x only: the direction of k is 0, and only x's part is compared.
  auto hx = meshad::hvp(chain, "x");
  H.zero();
  hx.execute_kernel(Grid, Block, X.device(), E.device(), P[N], N, VX.device(),
                    H.device(), Seed.device());
  mt::checkLaunch("chain_hvp_0");
  H.download();
  std::vector<double> VNoK(V);
  VNoK[N] = 0;
  checkAgainstFd("x", P, VNoK, std::vector<double>(H.host(), H.host() + N),
                 [&](const std::vector<double> &Q) {
                   std::vector<double> R = Grad(Q);
                   R.pop_back();
                   return R;
                 });

  // W.r.t. x and k.
  auto hxk = meshad::hvp(chain, "x, k");
  H.zero();
  HK.zero();
  hxk.execute_kernel(Grid, Block, X.device(), E.device(), P[N], N,
                     VX.device(), V[N], H.device(), HK.device(),
                     Seed.device());
  mt::checkLaunch("chain_hvp_0_2");
  H.download();
  HK.download();
  std::vector<double> Got(H.host(), H.host() + N);
  Got.push_back(HK[0]);
  checkAgainstFd("xk", P, V, Got, Grad);

  // gated, on the host.
  auto hg = meshad::hvp(gated, "x");
  auto gg = meshad::gradient(gated, "x");
  std::vector<double> Q(3), VQ(3), HQ(3, 0.0);
  Rng.fill(Q.data(), 3, -1.0, 1.0);
  Rng.fill(VQ.data(), 3, -1.0, 1.0);
  hg.execute(Q.data(), VQ.data(), HQ.data());
  checkAgainstFd("gated", Q, VQ, HQ, [&](const std::vector<double> &X) {
    std::vector<double> G(3, 0.0);
    gg.execute(X.data(), G.data());
    return G;
  });
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: PASS x[29]
// NUM: PASS xk[30]
// NUM: PASS gated[2]
