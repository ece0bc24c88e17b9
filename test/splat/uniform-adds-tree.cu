// Block-uniform adds summed in one shuffle tree per element type (issue 15,
// GPU/BlockUniformReduce, meshad::warpKeyedAdds in meshad/codegen/WarpStep.h,
// the addresses through the key i, GPU/BlockUniformKey):
// the reverse loop of twoTypes adds, at each iteration, to two elements of
// the double gradient of w and one element of the float gradient of a; the
// per-warp form sums the iteration's double adds in one reduce-scatter tree
// and the float add in another. A warp whose lanes all add zero skips the
// iteration: warp 1 of each block (its x < 1, so g = 0 and every adjoint
// value is an exact zero); lanes past their own trip count, or outside the
// guard, add nothing. The gradients of w and x are checked against central
// differences, that of a (float) against its analytic value in double.
// manyAdds has 34 adds of one type: two trees (32 adds at most in one).
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-remarks -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.log
// RUN: FileCheck %s < %t.log
// RUN: FileCheck %s --check-prefix=REMARK < %t.log
// RUN: %t | FileCheck %s --check-prefix=NUM
// RUN: env MESHAD_TEST_QUICK=1 %t | FileCheck %s --check-prefix=QUICK
#include "KernelCheck.h"
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

// 34 adds of one type: a tree of 32 pairs and one of 2 (one warpUniformAdds
// takes at most 32).
#define TERM(j) +p[34 * i + j] * ((j) + 1) * sin(x[t] + i)
__global__ void manyAdds(int n, int m, const double *p, const double *x,
                         double *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= m)
    return;
  double acc = 0;
  for (int i = 0; i < n; ++i)
    acc += 0 TERM(0) TERM(1) TERM(2) TERM(3) TERM(4) TERM(5) TERM(6) TERM(7)
        TERM(8) TERM(9) TERM(10) TERM(11) TERM(12) TERM(13) TERM(14) TERM(15)
            TERM(16) TERM(17) TERM(18) TERM(19) TERM(20) TERM(21) TERM(22)
                TERM(23) TERM(24) TERM(25) TERM(26) TERM(27) TERM(28)
                    TERM(29) TERM(30) TERM(31) TERM(32) TERM(33);
  out[t] = acc;
}
// CHECK-LABEL: __global__ void manyAdds_grad(
// CHECK: for (int _step = meshad::warpMaxSteps(_steps); _step > 0; --_step) {
// CHECK: meshad::warpKeyedAdds(_key, _d_p, 34, 0, _d_p_sum{{[0-9]*}}, _d_p, 34, 1, _d_p_sum{{[0-9]*}}, _d_p, 34, 2, _d_p_sum{{[0-9]*}}, _d_p, 34, 3, _d_p_sum{{[0-9]*}}, _d_p, 34, 4, _d_p_sum{{[0-9]*}}, _d_p, 34, 5, _d_p_sum{{[0-9]*}}, _d_p, 34, 6, _d_p_sum{{[0-9]*}}, _d_p, 34, 7, _d_p_sum{{[0-9]*}}, _d_p, 34, 8, _d_p_sum{{[0-9]*}}, _d_p, 34, 9, _d_p_sum{{[0-9]*}}, _d_p, 34, 10, _d_p_sum{{[0-9]*}}, _d_p, 34, 11, _d_p_sum{{[0-9]*}}, _d_p, 34, 12, _d_p_sum{{[0-9]*}}, _d_p, 34, 13, _d_p_sum{{[0-9]*}}, _d_p, 34, 14, _d_p_sum{{[0-9]*}}, _d_p, 34, 15, _d_p_sum{{[0-9]*}}, _d_p, 34, 16, _d_p_sum{{[0-9]*}}, _d_p, 34, 17, _d_p_sum{{[0-9]*}}, _d_p, 34, 18, _d_p_sum{{[0-9]*}}, _d_p, 34, 19, _d_p_sum{{[0-9]*}}, _d_p, 34, 20, _d_p_sum{{[0-9]*}}, _d_p, 34, 21, _d_p_sum{{[0-9]*}}, _d_p, 34, 22, _d_p_sum{{[0-9]*}}, _d_p, 34, 23, _d_p_sum{{[0-9]*}}, _d_p, 34, 24, _d_p_sum{{[0-9]*}}, _d_p, 34, 25, _d_p_sum{{[0-9]*}}, _d_p, 34, 26, _d_p_sum{{[0-9]*}}, _d_p, 34, 27, _d_p_sum{{[0-9]*}}, _d_p, 34, 28, _d_p_sum{{[0-9]*}}, _d_p, 34, 29, _d_p_sum{{[0-9]*}}, _d_p, 34, 30, _d_p_sum{{[0-9]*}}, _d_p, 34, 31, _d_p_sum{{[0-9]*}});
// CHECK-NEXT: meshad::warpKeyedAdds(_key, _d_p, 34, 32, _d_p_sum32, _d_p, 34, 33, _d_p_sum33);
// CHECK-NOT: atomicAdd(&_d_p
// CHECK: {{^}}}

__global__ void twoTypes(int n, int m, const int *stop, const float *a,
                         const double *w, const double *x, double *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= m)
    return;
  double acc = 0;
  for (int i = 0; i < n; ++i) {
    if (i >= stop[t])
      break;
    double d = x[t] - w[2 * i];
    double g = fmax(0.0, x[t] - 1.0);
    acc += g * (w[2 * i + 1] * exp(-d * d) + w[2 * i]) * a[i];
  }
  out[t] = acc;
}
// REMARK: uniform-adds-tree.cu:[[#@LINE-4]]:58: remark: adjoint store to 'a': summed per warp, one atomicAdd per warp and iteration (the address a[i] is the same in every thread at an iteration of the reverse loop; the loop runs in step across the warp, from its largest trip count, lanes past their own count or outside the guard adding nothing; the iteration's adds of one type summed in one shuffle tree, skipped by a warp whose lanes all add zero; the addresses as 32-bit offsets from the key 'i', checked once per iteration)
// CHECK-LABEL: __global__ void twoTypes_grad(
// CHECK: for (int _step = meshad::warpMaxSteps(_steps); _step > 0; --_step) {
// CHECK: if (_step <= _steps) {
// CHECK: --_cnt0;
// CHECK: meshad::warpKeyedAdds(_key, _d_w, 2, 1, _d_w_sum, _d_w, 2, 0, _d_w_sum1, _d_w, 2, 0, _d_w_sum2);
// CHECK-NEXT: meshad::warpKeyedAdds(_key, _d_a, 1, 0, _d_a_sum);
// CHECK-NOT: atomicAdd(&_d_w
// CHECK-NOT: atomicAdd(&_d_a
// CHECK: {{^}}}

namespace {

const int N = 9, M = 120, Threads = 128;

/// d sum(Wt * out) / d a[i], in double.
std::vector<double> gradA(const int *Stop, const double *W, const double *X,
                          const double *Wt) {
  std::vector<double> G(N, 0.0);
  for (int T = 0; T < M; ++T)
    for (int I = 0; I < N && I < Stop[T]; ++I) {
      double D = X[T] - W[2 * I];
      double Gx = std::fmax(0.0, X[T] - 1.0);
      G[I] += Wt[T] * Gx * (W[2 * I + 1] * std::exp(-D * D) + W[2 * I]);
    }
  return G;
}

/// manyAdds' gradient for p and x against central differences.
void checkManyAdds() {
  const int K = 3, Np = 34 * K;
  meshad::test::RandomInputs Rng;
  meshad::test::DeviceArray<double> P(Np), X(Threads), Out(Threads),
      Wt(Threads), DP(Np), DX(Threads), DOut(Threads);
  Rng.fill(P.host(), Np, -1, 1);
  Rng.fill(X.host(), Threads, 0, 2);
  Rng.fill(Wt.host(), Threads, -1, 1);
  dim3 Grid(2), Block(64);
  auto Loss = [&] {
    P.upload();
    X.upload();
    MESHAD_LAUNCH(manyAdds, Grid, Block)(K, M, P.device(), X.device(),
                                         Out.device());
    Out.download();
    return meshad::test::weightedSum(Wt.host(), Out.host(), M);
  };
  const std::size_t CP = meshad::test::checkedEntries(Np),
                    CX = meshad::test::checkedEntries(M);
  std::vector<double> EP = meshad::test::fdGradient(Loss, P.host(), CP);
  std::vector<double> EX = meshad::test::fdGradient(Loss, X.host(), CX);
  Loss();
  for (int T = 0; T < Threads; ++T)
    DOut[T] = T < M ? Wt[T] : 0.0;
  DOut.upload();
  DP.zero();
  DX.zero();
  meshad::gradient(manyAdds, "p, x, out")
      .execute_kernel(Grid, Block, K, M, P.device(), X.device(), Out.device(),
                      DP.device(), DX.device(), DOut.device());
  meshad::test::checkLaunch("manyAdds_grad");
  DP.download();
  DX.download();
  meshad::test::checkArray("many dp", DP.host(), EP.data(), CP);
  meshad::test::checkArray("many dx", DX.host(), EX.data(), CX);
}

} // namespace

int main() {
  checkManyAdds();
  meshad::test::RandomInputs Rng;
  meshad::test::DeviceArray<int> Stop(Threads);
  meshad::test::DeviceArray<float> A(N), DA(N);
  meshad::test::DeviceArray<double> Wv(2 * N), X(Threads), Out(Threads),
      Wt(Threads), DW(2 * N), DX(Threads), DOut(Threads);
  for (int I = 0; I < N; ++I)
    A[I] = float(Rng.uniform(0.5, 1.5));
  Rng.fill(Wv.host(), 2 * N, 0.2, 1.5);
  for (int T = 0; T < Threads; ++T) {
    // Warp 1 of each block below the kink of g (all its g are zero); the
    // others above it; both away from it.
    bool Low = (T % 64) / 32 == 1;
    X[T] = Low ? Rng.uniform(0.0, 0.8) : Rng.uniform(1.2, 2.0);
    Wt[T] = Rng.uniform(0.5, 1.0);
    Stop[T] = (T * 7) % (N + 3);
  }
  Stop.upload();
  A.upload();
  dim3 Grid(2), Block(64);
  auto Run = [&] {
    Wv.upload();
    X.upload();
    MESHAD_LAUNCH(twoTypes, Grid, Block)(N, M, Stop.device(), A.device(),
                                         Wv.device(), X.device(),
                                         Out.device());
    Out.download();
  };
  auto Loss = [&] {
    Run();
    return meshad::test::weightedSum(Wt.host(), Out.host(), M);
  };
  const std::size_t CW = meshad::test::checkedEntries(2 * N),
                    CX = meshad::test::checkedEntries(M),
                    CA = meshad::test::checkedEntries(N);
  std::vector<double> EW = meshad::test::fdGradient(Loss, Wv.host(), CW);
  std::vector<double> EX = meshad::test::fdGradient(Loss, X.host(), CX);
  std::vector<double> EA = gradA(Stop.host(), Wv.host(), X.host(), Wt.host());
  Run();
  for (int T = 0; T < Threads; ++T)
    DOut[T] = T < M ? Wt[T] : 0.0;
  DOut.upload();
  DW.zero();
  DX.zero();
  DA.zero();
  meshad::gradient(twoTypes, "a, w, x, out")
      .execute_kernel(Grid, Block, N, M, Stop.device(), A.device(),
                      Wv.device(), X.device(), Out.device(), DA.device(),
                      DW.device(), DX.device(), DOut.device());
  meshad::test::checkLaunch("twoTypes_grad");
  DW.download();
  DX.download();
  DA.download();
  meshad::test::checkArray("dw", DW.host(), EW.data(), CW);
  meshad::test::checkArray("dx", DX.host(), EX.data(), CX);
  meshad::test::checkArray("da", DA.host(), EA.data(), CA);
  return meshad::test::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 369 passed, 0 failed
// QUICK-NOT: FAIL
// QUICK: numeric checks: 5 passed, 0 failed
