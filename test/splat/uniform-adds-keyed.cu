// Block-uniform adds addressed through one key (issue 15, GPU/BlockUniformKey,
// meshad::warpKeyedAdds in meshad/codegen/WarpStep.h): when every uniform add
// of a reverse iteration indexes its adjoint as Scale * key + Offset for one
// integer local (`j = order[i]`: w[2 * j], w[2 * j + 1], a[j], b[3 * j + 2]),
// the in-step loop records the key once per iteration instead of an address
// per add, and the warp checks one key per iteration. keyed: three arrays,
// per-thread trip counts (a break), a partial warp. fixedKey: the key is
// uniform in the whole kernel (recorded first in the iteration).
// keyInBranch: the key is assigned in the branch after the break (recorded
// there, before the adds that follow it in that branch). twoVars:
// the index reads two variables, so each address is recorded and checked
// (warpUniformAdds). Each gradient is checked against central differences
// in double, and against the all-atomics form (the second build, with
// -fplugin-arg-meshad-atomics=all, compares its gradients with those the
// first wrote, to 1e-12). The checks the kernels share are FileCheck
// variables: STEP, the in-step loop; KEYED, the keyed sums of the three
// kernels with a key (w[2 * j + 1], a[j], b[3 * j + 2], w[2 * j]).
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-remarks -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.log
// RUN: FileCheck %s < %t.log -DSTEP='for (int _step = meshad::warpMaxSteps(_steps); _step > 0; --_step) {' \
// RUN:   -DKEYED='meshad::warpKeyedAdds(_key, _d_w, 2, 1, _d_w_sum, _d_a, 1, 0, _d_a_sum, _d_b, 3, 2, _d_b_sum, _d_w, 2, 0, _d_w_sum1);'
// RUN: FileCheck %s --check-prefix=REMARK < %t.log
// RUN: %t %t.grad | FileCheck %s --check-prefix=NUM
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-atomics=all -DCOMPARE -I%test_inputs %s -o %t.atomics
// RUN: %t.atomics %t.grad | FileCheck %s --check-prefix=ATOMICS
// RUN: env MESHAD_TEST_QUICK=1 %t | FileCheck %s --check-prefix=QUICK
#include "KernelCheck.h"
#include "NumericCheck.h"
#include <cmath>
#include <cstdio>
#include <meshad/Differentiator.h>

__global__ void keyed(int n, int m, const int *stop, const int *order,
                      const double *w, const double *a, const double *b,
                      const double *x, double *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= m)
    return;
  double acc = 0;
  for (int i = 0; i < n; ++i) {
    int j = order[i];
    if (i >= stop[t])
      break;
    double d = x[t] - w[2 * j];
    acc += (w[2 * j + 1] * exp(-d * d) + a[j] * x[t]) * b[3 * j + 2];
  }
  out[t] = acc;
}
// REMARK: uniform-adds-keyed.cu:[[#@LINE-4]]:{{[0-9]+}}: remark: adjoint store to 'b': summed per warp, one atomicAdd per warp and iteration (the address b[3 * j + 2] is the same in every thread at an iteration of the reverse loop; the loop runs in step across the warp, from its largest trip count, lanes past their own count or outside the guard adding nothing; the iteration's adds of one type summed in one shuffle tree, skipped by a warp whose lanes all add zero; the addresses as 32-bit offsets from the key 'j', checked once per iteration)
// CHECK-LABEL: __global__ void keyed_grad(
// CHECK: [[STEP]]
// CHECK-NEXT: int _key = 0;
// CHECK-NOT: _at
// CHECK: if (_step <= _steps) {
// CHECK: j = order[i];
// CHECK-NEXT: _key = j;
// CHECK-NOT: atomicAdd
// CHECK: [[KEYED]]
// CHECK-NOT: atomicAdd
// CHECK: {{^}}}

__global__ void fixedKey(int n, int m, const int *stop, const int *order,
                         const double *w, const double *a, const double *b,
                         const double *x, double *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= m)
    return;
  double acc = 0;
  int s = order[blockIdx.x] % 3;
  for (int i = 0; i < n; ++i) {
    if (i >= stop[t])
      break;
    double d = x[t] - w[2 * s] * i;
    acc += (w[2 * s + 1] * exp(-d * d) + a[s] * x[t]) * b[3 * s + 2];
  }
  out[t] = acc;
}
// REMARK: uniform-adds-keyed.cu:[[#@LINE-4]]:{{[0-9]+}}: remark: adjoint store to 'b': summed per warp, {{.*}}; the addresses as 32-bit offsets from the key 's', checked once per iteration)
// CHECK-LABEL: __global__ void fixedKey_grad(
// CHECK: [[STEP]]
// CHECK-NEXT: int _key = 0;
// CHECK: if (_step <= _steps) {
// CHECK-NEXT: _key = s;
// CHECK: [[KEYED]]
// CHECK-NOT: atomicAdd
// CHECK: {{^}}}

__global__ void keyInBranch(int n, int m, const int *stop, const int *order,
                            const double *w, const double *a, const double *b,
                            const double *x, double *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= m)
    return;
  double acc = 0;
  for (int i = 0; i < n; ++i) {
    if (i >= stop[t])
      break;
    int j = order[i];
    double d = x[t] - w[2 * j];
    acc += (w[2 * j + 1] * exp(-d * d) + a[j] * x[t]) * b[3 * j + 2];
  }
  out[t] = acc;
}
// REMARK: uniform-adds-keyed.cu:[[#@LINE-4]]:{{[0-9]+}}: remark: adjoint store to 'b': summed per warp, {{.*}}; the addresses as 32-bit offsets from the key 'j', checked once per iteration)
// CHECK-LABEL: __global__ void keyInBranch_grad(
// CHECK: [[STEP]]
// CHECK-NEXT: int _key = 0;
// CHECK: if (!_cond0) {
// CHECK-NEXT: j = order[i];
// CHECK-NEXT: _key = j;
// CHECK: [[KEYED]]
// CHECK-NOT: atomicAdd
// CHECK: {{^}}}

__global__ void twoVars(int n, int m, const int *stop, const int *order,
                        const double *w, const double *a, const double *b,
                        const double *x, double *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= m)
    return;
  double acc = 0;
  int s = order[0] % 2;
  for (int i = 0; i < n; ++i) {
    if (i >= stop[t])
      break;
    double d = x[t] - w[2 * i + s];
    acc += (w[2 * i + 1] * exp(-d * d) + a[i] * x[t]) * b[3 * i + 2];
  }
  out[t] = acc;
}
// REMARK: uniform-adds-keyed.cu:[[#@LINE-5]]:{{[0-9]+}}: remark: adjoint store to 'w': summed per warp, {{.*}}; each address checked (no key: the indices are not one integer variable times a constant plus a constant))
// CHECK-LABEL: __global__ void twoVars_grad(
// CHECK: [[STEP]]
// CHECK-NOT: _key
// CHECK: meshad::warpUniformAdds(
// CHECK-NOT: atomicAdd
// CHECK: {{^}}}

namespace {

const int N = 7, M = 90, Threads = 96;

/// The gradients of one kernel: what the second build compares.
struct Grads {
  std::vector<double> W, A, B, X;
};

/// Checks the gradient of \p K (w, a, b, x) against central differences
/// of sum(Wt * out) on 2 blocks of 48 threads (the second warp partial).
template <class Kernel, class Grad>
Grads check(const char *Name, Kernel K, Grad G) {
  meshad::test::RandomInputs Rng;
  meshad::test::DeviceArray<int> Stop(Threads), Order(N);
  meshad::test::DeviceArray<double> Wv(2 * N), A(N), Bv(3 * N), X(Threads),
      Out(Threads), Wt(Threads), DW(2 * N), DA(N), DB(3 * N), DX(Threads),
      DOut(Threads);
  Rng.fill(Wv.host(), 2 * N, 0.2, 1.5);
  Rng.fill(A.host(), N, -1, 1);
  Rng.fill(Bv.host(), 3 * N, 0.5, 1.5);
  Rng.fill(X.host(), Threads, 0, 1.5);
  Rng.fill(Wt.host(), Threads, -1, 1);
  for (int T = 0; T < Threads; ++T)
    Stop[T] = (T * 5) % (N + 2);
  for (int I = 0; I < N; ++I)
    Order[I] = (3 * I + 2) % N;
  Stop.upload();
  Order.upload();
  dim3 Grid(2), Block(48);
  auto Loss = [&] {
    Wv.upload();
    A.upload();
    Bv.upload();
    X.upload();
    MESHAD_LAUNCH(K, Grid, Block)(N, M, Stop.device(), Order.device(),
                                  Wv.device(), A.device(), Bv.device(),
                                  X.device(), Out.device());
    Out.download();
    return meshad::test::weightedSum(Wt.host(), Out.host(), M);
  };
  using meshad::test::checkedEntries;
  const std::size_t CW = checkedEntries(2 * N), CA = checkedEntries(N),
                    CB = checkedEntries(3 * N), CX = checkedEntries(M);
  std::vector<double> EW = meshad::test::fdGradient(Loss, Wv.host(), CW);
  std::vector<double> EA = meshad::test::fdGradient(Loss, A.host(), CA);
  std::vector<double> EB = meshad::test::fdGradient(Loss, Bv.host(), CB);
  std::vector<double> EX = meshad::test::fdGradient(Loss, X.host(), CX);
  Loss();
  for (int T = 0; T < Threads; ++T)
    DOut[T] = T < M ? Wt[T] : 0.0;
  DOut.upload();
  DW.zero();
  DA.zero();
  DB.zero();
  DX.zero();
  G.execute_kernel(Grid, Block, N, M, Stop.device(), Order.device(),
                   Wv.device(), A.device(), Bv.device(), X.device(),
                   Out.device(), DW.device(), DA.device(), DB.device(),
                   DX.device(), DOut.device());
  meshad::test::checkLaunch(Name);
  DW.download();
  DA.download();
  DB.download();
  DX.download();
  std::string S = Name;
  meshad::test::checkArray(S + " dw", DW.host(), EW.data(), CW);
  meshad::test::checkArray(S + " da", DA.host(), EA.data(), CA);
  meshad::test::checkArray(S + " db", DB.host(), EB.data(), CB);
  meshad::test::checkArray(S + " dx", DX.host(), EX.data(), CX);
  auto Copy = [](const double *P, int Size) {
    return std::vector<double>(P, P + Size);
  };
  return {Copy(DW.host(), 2 * N), Copy(DA.host(), N), Copy(DB.host(), 3 * N),
          Copy(DX.host(), M)};
}

/// Writes \p All to \p Path, or (COMPARE) checks them against it to 1e-12.
void exchangeGradients(const char *Path, const std::vector<Grads> &All) {
  std::vector<double> Flat;
  for (const Grads &G : All)
    for (const std::vector<double> *V : {&G.W, &G.A, &G.B, &G.X})
      Flat.insert(Flat.end(), V->begin(), V->end());
#ifndef COMPARE
  FILE *F = std::fopen(Path, "w");
  for (double V : Flat)
    std::fprintf(F, "%.17g\n", V);
  std::fclose(F);
#else
  FILE *F = std::fopen(Path, "r");
  std::vector<double> Other(Flat.size());
  for (double &V : Other)
    if (!F || std::fscanf(F, "%lf", &V) != 1)
      V = NAN;
  if (F)
    std::fclose(F);
  for (std::size_t I = 0; I < Flat.size(); ++I)
    meshad::test::checker().close("atomics = per-warp sums [" +
                                      std::to_string(I) + "]",
                                  Flat[I], Other[I], 1e-12);
#endif
}

} // namespace

int main(int Argc, char **Argv) {
  std::vector<Grads> All;
  All.push_back(check("keyed", keyed, meshad::gradient(keyed, "w, a, b, x, out")));
  All.push_back(check("fixedKey", fixedKey,
                      meshad::gradient(fixedKey, "w, a, b, x, out")));
  All.push_back(check("keyInBranch", keyInBranch,
                      meshad::gradient(keyInBranch, "w, a, b, x, out")));
  All.push_back(
      check("twoVars", twoVars, meshad::gradient(twoVars, "w, a, b, x, out")));
  if (Argc > 1 && !std::getenv("MESHAD_TEST_QUICK"))
    exchangeGradients(Argv[1], All);
  return meshad::test::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: {{[0-9]+}} passed, 0 failed
// ATOMICS-NOT: FAIL
// ATOMICS: PASS atomics = per-warp sums [0]
// ATOMICS: numeric checks: {{[0-9]+}} passed, 0 failed
// QUICK-NOT: FAIL
// QUICK: numeric checks: 16 passed, 0 failed
