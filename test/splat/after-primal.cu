// meshad::AfterPrimal (issue 15, AD/Reverse/ForwardFromOutputs): the
// gradient kernel runs after its primal with the same arguments, so a loop
// whose final state the primal stores is not run again by the gradient's
// forward sweep: the transmittance T is read back from finalT, the trip
// count and the early exit from walked (`stop - begin`), as a hand-written
// backward does. blend: front-to-back blending with skipped entries and an
// early stop (a break); transmit: no break, T *= 1 - alpha (the trip count
// from the bounds); notStored: the primal does not store T, so the loop
// runs again (remark). Each gradient is checked against central
// differences in double and against the gradient without the option (the
// same values: T is read back exactly); the second build, all atomics
// (-fplugin-arg-meshad-atomics=all), compares its gradients with those the
// first wrote, to 1e-12. The third build asks for what is refused.
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-remarks -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.log
// RUN: FileCheck %s < %t.log
// RUN: FileCheck %s --check-prefix=REMARK < %t.log
// RUN: %t %t.grad | FileCheck %s --check-prefix=NUM
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-atomics=all -DCOMPARE -I%test_inputs %s -o %t.atomics
// RUN: %t.atomics %t.grad | FileCheck %s --check-prefix=ATOMICS
// RUN: not %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -DREFUSED -I%test_inputs -fsyntax-only %s 2>&1 | FileCheck %s --check-prefix=REFUSED
#include "KernelCheck.h"
#include "NumericCheck.h"
#include <cmath>
#include <cstdio>
#include <type_traits>
#include <meshad/Differentiator.h>

__global__ void blend(int m, const int *ranges, const int *ids,
                      const double *w, const double *a, const double *x,
                      double *out, double *finalT, int *walked) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= m)
    return;
  int begin = ranges[2 * blockIdx.x];
  int end = ranges[2 * blockIdx.x + 1];
  double T = 1, acc = 0;
  int stop = end;
  for (int k = begin; k < end; ++k) {
    int j = ids[k];
    double d = x[t] - w[j];
    double alpha = fmin(0.9, a[j] * exp(-d * d));
    if (alpha < 0.05)
      continue;
    double nextT = T * (1 - alpha);
    if (nextT < 0.02) {
      stop = k;
      break;
    }
    acc += alpha * T * w[j];
    T = nextT;
  }
  out[t] = acc;
  finalT[t] = T;
  walked[t] = stop - begin;
}
// REMARK: after-primal.cu:[[#@LINE-18]]:3: remark: loop not run again by the gradient (meshad::AfterPrimal): the values its reverse sweep needs are read back from what the primal stored ('T' from 'finalT', the trip count and the early exit from 'walked')
// CHECK-LABEL: __global__ void blend_grad_after_primal(
// CHECK-NOT: for (k = begin
// CHECK-NOT: checkUndoable
// CHECK: T = finalT[t];
// CHECK-NEXT: _cnt0 = walked[t];
// CHECK-NEXT: _cond0 = _cnt0 < end - begin;
// CHECK-NEXT: if (_cond0) {
// CHECK-NEXT: ++_cnt0;
// CHECK-NEXT: } else {
// CHECK-NEXT: _cnt0 = begin < end ? end - begin : 0;
// CHECK-NEXT: }
// CHECK: for (int _step = meshad::warpMaxSteps(_steps); _step > 0; --_step) {
// CHECK: meshad::checkRestored(T);
// CHECK-NEXT: T /= 1 - alpha;
// CHECK: meshad::warpKeyedAdds(
// CHECK: {{^}}}

__global__ void transmit(int m, const int *ranges, const int *ids,
                         const double *w, const double *a, const double *x,
                         double *out, double *finalT) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= m)
    return;
  int begin = ranges[2 * blockIdx.x];
  int end = ranges[2 * blockIdx.x + 1];
  double T = 1, acc = 0;
  for (int k = begin; k < end; ++k) {
    int j = ids[k];
    double d = x[t] - w[j];
    double alpha = fmin(0.9, a[j] * exp(-d * d));
    acc += alpha * T;
    T *= 1 - alpha;
  }
  out[t] = acc;
  finalT[t] = T;
}
// REMARK: after-primal.cu:[[#@LINE-10]]:3: remark: loop not run again by the gradient (meshad::AfterPrimal): the values its reverse sweep needs are read back from what the primal stored ('T' from 'finalT', the trip count from the loop's bounds)
// CHECK-LABEL: __global__ void transmit_grad_after_primal(
// CHECK-NOT: for (k = begin
// CHECK: T = finalT[t];
// CHECK-NEXT: _cnt0 = begin < end ? end - begin : 0;
// CHECK: meshad::checkRestored(T);
// CHECK-NEXT: T /= 1 - alpha;
// CHECK: {{^}}}

__global__ void notStored(int m, const int *ranges, const int *ids,
                          const double *w, const double *a, const double *x,
                          double *out, double *finalT) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= m)
    return;
  int begin = ranges[2 * blockIdx.x];
  int end = ranges[2 * blockIdx.x + 1];
  double T = 1, acc = 0;
  for (int k = begin; k < end; ++k) {
    int j = ids[k];
    double d = x[t] - w[j];
    double alpha = fmin(0.9, a[j] * exp(-d * d));
    acc += alpha * T;
    T *= 1 - alpha;
  }
  out[t] = acc;
  finalT[t] = 2 * T;
}
// REMARK: after-primal.cu:[[#@LINE-10]]:3: remark: loop run again by the gradient's forward sweep (meshad::AfterPrimal): the gradient reads 'T' after it, which the primal does not store after the loop
// CHECK-LABEL: __global__ void notStored_grad_after_primal(
// CHECK: for (k = begin; k < end; ++k) {
// CHECK: meshad::checkUndoable(T, T * (1 - alpha));
// CHECK-NOT: checkRestored
// CHECK: {{^}}}

#ifdef REFUSED
double energy(const double *x) { return x[0] * x[0]; }
void refused() {
  // REFUSED: error: meshad::AfterPrimal applies to kernels; 'energy' is not a __global__ function
  meshad::gradient(energy, "x", meshad::AfterPrimal);
  // REFUSED: error: meshad::AfterPrimal and meshad::WithValue exclude each other: after the primal its results are already there
  meshad::gradient(transmit, "w, out", meshad::AfterPrimal | meshad::WithValue);
}
#else

namespace {

namespace mt = meshad::test;
const int N = 8, M = 75, Threads = 80, Entries = 11;

/// The gradients of one kernel: what the second build compares.
struct Grads {
  std::vector<double> W, A, X;
};

/// Whether \p Kernel stores where each thread stopped (blend).
template <class Kernel>
constexpr bool Walks =
    std::is_invocable_v<Kernel, int, const int *, const int *, const double *,
                        const double *, const double *, double *, double *,
                        int *>;

/// Launches the primal.
template <class Kernel>
void launch(Kernel K, dim3 Grid, dim3 Block, const int *R, const int *I,
            const double *W, const double *A, const double *X, double *Out,
            double *FinalT, int *Walked) {
  if constexpr (Walks<Kernel>)
    MESHAD_LAUNCH(K, Grid, Block)(M, R, I, W, A, X, Out, FinalT, Walked);
  else
    MESHAD_LAUNCH(K, Grid, Block)(M, R, I, W, A, X, Out, FinalT);
}

/// Threads that stopped early in \p Walked (blend): some must, not all.
void checkEarly(const char *Name, const int *Walked) {
  int Early = 0;
  for (int T = 0; T < M; ++T)
    Early += Walked[T] < (T < 40 ? 6 : Entries - 6);
  std::printf("%s: %d of %d threads stopped early\n", Name, Early, M);
  mt::checkClose("some threads stop early", Early > 0 && Early < M ? 1.0 : 0.0,
                 1.0);
}

/// The primal, then gradient \p G (\p Ref: the same without the option),
/// seeded with weights on out and finalT; checked against central
/// differences of the weighted sum on 2 blocks of 40 threads (a partial
/// warp, 5 threads outside the guard).
template <class Kernel, class Grad, class RefGrad>
Grads check(const char *Name, Kernel K, Grad G, RefGrad Ref) {
  mt::RandomInputs Rng;
  mt::DeviceArray<int> Ranges(4), Ids(Entries), Walked(Threads);
  mt::DeviceArray<double> Wv(N), A(N), X(Threads), Out(Threads),
      FinalT(Threads), Wt(Threads), Wf(Threads), DW(N), DA(N), DX(Threads),
      DOut(Threads), DFinalT(Threads);
  Rng.fill(Wv.host(), N, 0, 2);
  Rng.fill(A.host(), N, 0.3, 0.85); // below the clamp: no kink
  Rng.fill(X.host(), Threads, 0, 2);
  Rng.fill(Wt.host(), Threads, -1, 1);
  Rng.fill(Wf.host(), Threads, -1, 1);
  int R[4] = {0, 6, 6, Entries};
  for (int I = 0; I < 4; ++I)
    Ranges[I] = R[I];
  for (int I = 0; I < Entries; ++I)
    Ids[I] = (3 * I + 1) % N;
  Ranges.upload();
  Ids.upload();
  dim3 Grid(2), Block(40);
  auto Loss = [&] {
    Wv.upload(), A.upload(), X.upload();
    launch(K, Grid, Block, Ranges.device(), Ids.device(), Wv.device(),
           A.device(), X.device(), Out.device(), FinalT.device(),
           Walked.device());
    Out.download(), FinalT.download(), Walked.download();
    return mt::weightedSum(Wt.host(), Out.host(), M) +
           mt::weightedSum(Wf.host(), FinalT.host(), M);
  };
  const std::size_t CX = mt::checkedEntries(M);
  std::vector<double> EW = mt::fdGradient(Loss, Wv.host(), N);
  std::vector<double> EA = mt::fdGradient(Loss, A.host(), N);
  std::vector<double> EX = mt::fdGradient(Loss, X.host(), CX);
  std::vector<double> Got[2][3];
  if constexpr (Walks<Kernel>) {
    Loss();
    checkEarly(Name, Walked.host());
  }
  for (int Pass = 0; Pass < 2; ++Pass) {
    Loss(); // The primal's outputs, which the gradient reads back.
    for (int T = 0; T < Threads; ++T) {
      DOut[T] = T < M ? Wt[T] : 0.0;
      DFinalT[T] = T < M ? Wf[T] : 0.0;
    }
    DOut.upload(), DFinalT.upload(), DW.zero(), DA.zero(), DX.zero();
    auto Run = [&](auto &H) {
      if constexpr (Walks<Kernel>)
        H.execute_kernel(Grid, Block, M, Ranges.device(), Ids.device(),
                         Wv.device(), A.device(), X.device(), Out.device(),
                         FinalT.device(), Walked.device(), DW.device(),
                         DA.device(), DX.device(), DOut.device(),
                         DFinalT.device());
      else
        H.execute_kernel(Grid, Block, M, Ranges.device(), Ids.device(),
                         Wv.device(), A.device(), X.device(), Out.device(),
                         FinalT.device(), DW.device(), DA.device(), DX.device(),
                         DOut.device(), DFinalT.device());
    };
    if (Pass == 0)
      Run(G);
    else
      Run(Ref);
    mt::checkLaunch(Name);
    DW.download(), DA.download(), DX.download();
    Got[Pass][0].assign(DW.host(), DW.host() + N);
    Got[Pass][1].assign(DA.host(), DA.host() + N);
    Got[Pass][2].assign(DX.host(), DX.host() + M);
  }
  std::string S = Name;
  mt::checkArray(S + " dw", Got[0][0].data(), EW.data(), N);
  mt::checkArray(S + " da", Got[0][1].data(), EA.data(), N);
  mt::checkArray(S + " dx", Got[0][2].data(), EX.data(), CX);
  for (int I = 0; I < 3; ++I)
    for (std::size_t J = 0; J < Got[0][I].size(); ++J)
      mt::checker().close(S + " = without AfterPrimal", Got[0][I][J],
                          Got[1][I][J], 1e-12);
  return {Got[0][0], Got[0][1], Got[0][2]};
}

/// Writes \p All to \p Path, or (COMPARE) checks them against it to 1e-12.
void exchangeGradients(const char *Path, const std::vector<Grads> &All) {
  std::vector<double> Flat;
  for (const Grads &G : All)
    for (const std::vector<double> *V : {&G.W, &G.A, &G.X})
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
    mt::checker().close("atomics = per-warp sums [" + std::to_string(I) + "]",
                        Flat[I], Other[I], 1e-12);
#endif
}

} // namespace

int main(int Argc, char **Argv) {
  std::vector<Grads> All;
  All.push_back(check(
      "blend", blend,
      meshad::gradient(blend, "w, a, x, out, finalT", meshad::AfterPrimal),
      meshad::gradient(blend, "w, a, x, out, finalT")));
  All.push_back(check(
      "transmit", transmit,
      meshad::gradient(transmit, "w, a, x, out, finalT", meshad::AfterPrimal),
      meshad::gradient(transmit, "w, a, x, out, finalT")));
  All.push_back(check(
      "notStored", notStored,
      meshad::gradient(notStored, "w, a, x, out, finalT", meshad::AfterPrimal),
      meshad::gradient(notStored, "w, a, x, out, finalT")));
  if (Argc > 1)
    exchangeGradients(Argv[1], All);
  return mt::summary();
}
#endif
// NUM-NOT: FAIL
// NUM: numeric checks: {{[0-9]+}} passed, 0 failed
// ATOMICS-NOT: FAIL
// ATOMICS: PASS atomics = per-warp sums [0]
// ATOMICS: numeric checks: {{[0-9]+}} passed, 0 failed
