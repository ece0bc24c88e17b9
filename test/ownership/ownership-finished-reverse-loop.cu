// Ownership on the finished function (issue 10, item 2): a loop counter
// that the reverse sweep recomputes. Reverse mode writes the forward loop
// `for (k = 0; k < K; ++k) { ++_cnt0; ... }` and the reverse loop `for (;
// _cnt0 > 0; --_cnt0) { k = _cnt0 - 1; ... }`: _cnt0 starts at 0, only the
// forward loop (in no loop) counts it up and only the reverse loops count it
// down, so in a reverse body k takes only values the forward loop gave it
// (Analysis/SweepDefs): the counter's symbol, with its literal range when
// the bounds are literals. The gradient and the HVP, whose Accumulates
// record no primal reads, get the primal kernel's decision:
// - splat: p[2 * k] with k < K uniform: summed per warp in the gradient,
//   warp-aggregated adds in the HVP (atomics before);
// - norms: pos[3 * i + c], c in [0, 2]: thread-exclusive, plain adds in the
//   gradient and in the HVP (atomics before);
// - nested: the inner loop runs once per outer iteration: its trip counter
//   is reset before it (`_cnt0 = 0;`), pushed onto a tape that holds only
//   its values and popped back in the reverse sweep, so it still counts one
//   run: w[4 * i + 2 * a + c] is thread-exclusive, plain adds in the HVP.
// No cross-check warning. Each gradient and HVP is checked against central
// finite differences.
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-remarks -fplugin-arg-meshad-ownership-crosscheck -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.log
// RUN: FileCheck %s --check-prefix=REMARK < %t.log
// RUN: not grep "cross-check" %t.log
// RUN: FileCheck %s < %t.log
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "KernelCheck.h"
#include "NumericCheck.h"
#include <cmath>
#include <map>
#include <meshad/Differentiator.h>
#include <string>
#include <vector>

// REMARK-NOT: cross-check
__global__ void splat(const double *p, double *E, int n, int K) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    double acc = 0.0;
    for (int k = 0; k < K; ++k)
      acc += p[2 * k] * exp(-p[2 * k + 1] * (i - k) * (i - k));
    atomicAdd(&E[0], acc * acc);
  }
}
// REMARK-DAG: ownership-finished-reverse-loop.cu:[[#@LINE-4]]:14: remark: adjoint store to 'p': summed per warp
// REMARK-DAG: ownership-finished-reverse-loop.cu:[[#@LINE-5]]:14: remark: adjoint store to 'p': warp-aggregated atomicAdd (uniform: every access
// CHECK-LABEL: __global__ void splat_grad(
// CHECK: meshad::warpKeyedAdds(
// CHECK-LABEL: __global__ void splat_hvp_0(
// CHECK-NOT: atomicAdd(&_d2_d_p
// CHECK: meshad::warpAtomicAdd(&_d2_d_p[2 * k]
// CHECK-NOT: atomicAdd(&_d2_d_p

__global__ void norms(const double *pos, double *E, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    double s = 0;
    for (int c = 0; c < 3; ++c)
      s += pos[3 * i + c] * pos[3 * i + c];
    atomicAdd(&E[0], sqrt(s) * s);
  }
}
// REMARK-DAG: ownership-finished-reverse-loop.cu:[[#@LINE-4]]:12: remark: adjoint store to 'pos': plain += (thread-exclusive: every access is 3*gid + {c} with c in [0, 2])
// CHECK-LABEL: __global__ void norms_grad(
// CHECK-NOT: atomicAdd(&_d_pos
// CHECK: meshad::exclusiveAdd(&_d_pos[3 * i + c],
// CHECK-NOT: atomicAdd(&_d_pos
// CHECK-LABEL: __global__ void norms_hvp_0(
// CHECK: meshad::requireLaunch1D();
// CHECK-NOT: atomicAdd(&_d2_d_pos
// CHECK: _d2_d_pos[3 * i + c] +=
// CHECK-NOT: atomicAdd(&_d2_d_pos

__global__ void nested(const double *w, double *E, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    double s = 0;
    for (int a = 0; a < 2; ++a)
      for (int c = 0; c < 2; ++c)
        s += w[4 * i + 2 * a + c] * sin(s);
    atomicAdd(&E[0], s * s);
  }
}
// REMARK-DAG: ownership-finished-reverse-loop.cu:[[#@LINE-4]]:14: remark: adjoint store to 'w': plain += (thread-exclusive: every access is 4*gid + {2*a + c} with a in [0, 1], c in [0, 1])
// CHECK-LABEL: __global__ void nested_grad(
// CHECK: meshad::exclusiveAdd(&_d_w[4 * i + 2 * a + c],
// CHECK-LABEL: __global__ void nested_hvp_0(
// CHECK: meshad::requireLaunch1D();
// CHECK-NOT: atomicAdd(&_d2_d_w
// CHECK: _d2_d_w[4 * i + 2 * a + c] +=
// CHECK-NOT: atomicAdd(&_d2_d_w

namespace mt = meshad::test;

/// Checks \p Got against d/dt Grad(X + t V)[J] for every J; the gradient
/// is computed once per step t (every J differentiates at the same steps).
template <class GradFn>
void checkAgainstFd(const std::string &Name, const std::vector<double> &X,
                    const std::vector<double> &V, const double *Got,
                    GradFn Grad) {
  std::map<double, std::vector<double>> AtStep;
  auto GradAt = [&](double T) -> const std::vector<double> & {
    auto It = AtStep.find(T);
    if (It != AtStep.end())
      return It->second;
    std::vector<double> XT(X.size());
    for (size_t I = 0; I < X.size(); ++I)
      XT[I] = X[I] + T * V[I];
    return AtStep.emplace(T, Grad(XT)).first->second;
  };
  for (size_t J = 0; J < X.size(); ++J) {
    double Fd = mt::centralDifference([&](double T) { return GradAt(T)[J]; },
                                      0.0);
    mt::checkClose(Name + "[" + std::to_string(J) + "]", Got[J], Fd);
  }
}

/// The gradient of the energy \p Launch(x, E) against central differences,
/// then the HVP \p Hvp(x, v, Hv) against differences of \p Grad(x, g).
template <class L, class G, class H>
void check(const char *Name, int N, L Launch, G Grad, H Hvp) {
  mt::RandomInputs Rng;
  std::vector<double> X(N), V(N);
  Rng.fill(X.data(), N, 0.2, 1.2);
  Rng.fill(V.data(), N, -1.0, 1.0);
  mt::DeviceArray<double> DX(N), DV(N), Out(N), E(1);
  auto GradAt = [&](const std::vector<double> &P) {
    for (int I = 0; I < N; ++I)
      DX[I] = P[I];
    DX.upload();
    Out.zero();
    Grad(DX.device(), Out.device());
    mt::checkLaunch(Name);
    Out.download();
    return std::vector<double>(Out.host(), Out.host() + N);
  };
  auto Energy = [&] {
    DX.upload();
    E.zero();
    Launch(DX.device(), E.device());
    mt::checkLaunch(Name);
    E.download();
    return E[0];
  };
  for (int I = 0; I < N; ++I)
    DX[I] = X[I];
  std::vector<double> Fd = mt::fdGradient(Energy, DX.host(), N);
  std::vector<double> Got = GradAt(X);
  mt::checkArray((std::string(Name) + " gradient").c_str(), Got.data(),
                 Fd.data(), N);
  for (int I = 0; I < N; ++I)
    DX[I] = X[I], DV[I] = V[I];
  DX.upload();
  DV.upload();
  Out.zero();
  Hvp(DX.device(), DV.device(), Out.device());
  mt::checkLaunch(Name);
  Out.download();
  std::vector<double> Hv(Out.host(), Out.host() + N);
  checkAgainstFd(std::string(Name) + " hvp", X, V, Hv.data(), GradAt);
}

int main() {
  const int N = 50, K = 5;
  const dim3 Grid(2), Block(32);
  mt::DeviceArray<double> Seed(1), Energy(1);
  Seed[0] = 1;
  Seed.upload();
  auto gSplat = meshad::gradient(splat, "p, E");
  auto hSplat = meshad::hvp(splat, "p");
  check(
      "splat", 2 * K,
      [&](double *X, double *E) {
        MESHAD_LAUNCH(splat, Grid, Block)(X, E, N, K);
      },
      [&](double *X, double *G) {
        gSplat.execute_kernel(Grid, Block, X, Energy.device(), N, K, G,
                              Seed.device());
      },
      [&](double *X, double *V, double *Hv) {
        hSplat.execute_kernel(Grid, Block, X, Energy.device(), N, K, V, Hv,
                              Seed.device());
      });
  auto gNorms = meshad::gradient(norms, "pos, E");
  auto hNorms = meshad::hvp(norms, "pos");
  check(
      "norms", 3 * N,
      [&](double *X, double *E) {
        MESHAD_LAUNCH(norms, Grid, Block)(X, E, N);
      },
      [&](double *X, double *G) {
        gNorms.execute_kernel(Grid, Block, X, Energy.device(), N, G,
                              Seed.device());
      },
      [&](double *X, double *V, double *Hv) {
        hNorms.execute_kernel(Grid, Block, X, Energy.device(), N, V, Hv,
                              Seed.device());
      });
  auto gNested = meshad::gradient(nested, "w, E");
  auto hNested = meshad::hvp(nested, "w");
  check(
      "nested", 4 * N,
      [&](double *X, double *E) {
        MESHAD_LAUNCH(nested, Grid, Block)(X, E, N);
      },
      [&](double *X, double *G) {
        gNested.execute_kernel(Grid, Block, X, Energy.device(), N, G,
                               Seed.device());
      },
      [&](double *X, double *V, double *Hv) {
        hNested.execute_kernel(Grid, Block, X, Energy.device(), N, V, Hv,
                               Seed.device());
      });
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: {{[0-9]+}} passed, 0 failed
