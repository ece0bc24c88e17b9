// Invertible recurrences (AD/Analysis/InvertibleUpdates): a multiplicative
// update in a loop whose factor is proven nonzero (`T *= 1 - alpha` with
// alpha = fmin(0.9, ...), so 1 - alpha >= 0.1; `T = nextT` with
// nextT = T * (1 - alpha)) is undone by division in the reverse sweep
// instead of taped: a loop of 100 iterations (more than a device tape's 64
// values) keeps no tape. A factor not proven nonzero, and an additive update
// whose value the sweep reads (sums are not undone exactly in floating
// point), stay taped. A remark says which and why. Every gradient against
// central differences. The forward sweep checks each undone update
// (meshad::checkUndoable): a product that underflows (T = 0.1^400) stops the
// program instead of giving a wrong derivative.
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -fplugin-arg-meshad-remarks -I%test_inputs %s -o %t 2> %t.log
// RUN: FileCheck %s < %t.log
// RUN: FileCheck %s --check-prefix=REMARK < %t.log
// RUN: %t | FileCheck %s --check-prefix=NUM
// RUN: not --crash %t underflow 2>&1 | FileCheck %s --check-prefix=UNDERFLOW
#include "KernelCheck.h"
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

/// One thread per row of a: front-to-back compositing of K layers.
__global__ void composite(int n, int K, const double *a, const double *c,
                          double *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  double T = 1, acc = 0;
  for (int k = 0; k < K; ++k) {
    double alpha = fmin(0.9, a[i * K + k]);
    acc += c[i * K + k] * alpha * T;
    T *= 1 - alpha;
  }
  out[i] = acc + T;
}
// CHECK-LABEL: __global__ void composite_grad(
// CHECK-NOT: meshad::Tape
// CHECK: meshad::checkUndoable(T, T * (1 - alpha));
// CHECK-NEXT: T *= 1 - alpha;
// CHECK: for (; _cnt0 > 0; --_cnt0) {
// CHECK-NEXT: k = _cnt0 - 1;
// CHECK-NEXT: alpha = fmin(0.9, a[i * K + k]);
// CHECK-NEXT: T /= 1 - alpha;
// REMARK: :[[@LINE-12]]:5: remark: recurrence of 'T' undone by its inverse in the reverse sweep (divided by its factor), not taped: the factor lies in [0.1, inf]

/// The same through a local holding the next value (as renderers write it).
__global__ void compositeNext(int n, int K, const double *a, double *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  double T = 1;
  for (int k = 0; k < K; ++k) {
    double alpha = fmin(0.9, a[i * K + k]);
    double nextT = T * (1 - alpha);
    T = nextT;
  }
  out[i] = T;
}
// CHECK-LABEL: __global__ void compositeNext_grad(
// CHECK-NOT: meshad::Tape
// CHECK: meshad::checkUndoable(T, nextT);
// CHECK-NEXT: T = nextT;
// CHECK: T /= 1 - alpha;
// REMARK: :[[@LINE-9]]:5: remark: recurrence of 'T' undone by its inverse in the reverse sweep (divided by its factor), not taped: the factor lies in [0.1, inf]

/// Factors that may be zero, and a sum the sweep reads: taped.
__global__ void taped(int n, int K, const double *s, double *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  double P = 1, acc = 0, q = 0;
  for (int k = 0; k < K; ++k) {
    P *= s[i * K + k];
    acc += s[i * K + k];
    q += acc * acc;
  }
  out[i] = P + q;
}
// CHECK-LABEL: __global__ void taped_grad(
// CHECK: meshad::push(_t{{[0-9]+}}, P);
// CHECK: meshad::push(_t{{[0-9]+}}, acc);
// REMARK: :[[@LINE-9]]:5: remark: recurrence of 'P' taped: its factor may change before the reverse sweep would undo it
// REMARK: :[[@LINE-9]]:5: remark: recurrence of 'acc' taped: an additive update is not undone exactly in floating point

namespace mt = meshad::test;

/// Checks the gradient of `Kernel(n, K, In..., out)` w.r.t. its first input
/// array against central differences of L = sum w out.
template <class Primal, class Grad>
void check(const char *Name, int N, int K, mt::DeviceArray<double> &A,
           Primal &&RunPrimal, Grad &&RunGrad, mt::RandomInputs &Rng) {
  mt::DeviceArray<double> Out(N), DA(A.size()), DOut(N);
  std::vector<double> W(N);
  Rng.fill(W.data(), N, 0.5, 1.0);
  auto Loss = [&] {
    A.upload();
    RunPrimal(Out.device());
    mt::checkLaunch(Name);
    Out.download();
    return mt::weightedSum(W.data(), Out.host(), N);
  };
  std::vector<double> Ref = mt::fdGradient(Loss, A.host(), A.size());
  A.upload();
  for (int I = 0; I < N; ++I)
    DOut[I] = W[I];
  DOut.upload();
  DA.zero();
  RunGrad(Out.device(), DA.device(), DOut.device());
  mt::checkLaunch(Name);
  DA.download();
  mt::checkArray(std::string(Name) + " d", DA.host(), Ref.data(), A.size());
}

int underflow();

int main(int Argc, char **Argv) {
  if (Argc > 1)
    return underflow();
  mt::RandomInputs Rng;
  const int N = 3, K = 100;
  // The taped kernel keeps two tapes of KT values per thread: below the
  // device tape's 64 (on the GPU a longer loop traps with "tape overflow";
  // the CPU emulation's tapes grow on the heap and would hide it).
  const int KT = 40;
  mt::DeviceArray<double> A(N * K), C(N * K), S(N * KT), DC(N * K);
  Rng.fill(A.host(), N * K, 0.005, 0.05); // below the clamp: no kink
  Rng.fill(C.host(), N * K, -1, 1);
  Rng.fill(S.host(), N * KT, 0.9, 1.1);
  C.upload();
  auto GComp = meshad::gradient(composite, "a, c, out");
  check("composite", N, K, A,
        [&](double *Out) {
          MESHAD_LAUNCH(composite, 1, 32)(N, K, A.device(), C.device(), Out);
        },
        [&](double *Out, double *DA, double *DOut) {
          DC.zero();
          GComp.execute_kernel(dim3(1), dim3(32), N, K, A.device(),
                               C.device(), Out, DA, DC.device(), DOut);
        },
        Rng);
  auto GNext = meshad::gradient(compositeNext, "a, out");
  check("compositeNext", N, K, A,
        [&](double *Out) {
          MESHAD_LAUNCH(compositeNext, 1, 32)(N, K, A.device(), Out);
        },
        [&](double *Out, double *DA, double *DOut) {
          GNext.execute_kernel(dim3(1), dim3(32), N, K, A.device(), Out, DA,
                               DOut);
        },
        Rng);
  auto GTaped = meshad::gradient(taped, "s, out");
  check("taped", N, KT, S,
        [&](double *Out) {
          MESHAD_LAUNCH(taped, 1, 32)(N, KT, S.device(), Out);
        },
        [&](double *Out, double *DS, double *DOut) {
          GTaped.execute_kernel(dim3(1), dim3(32), N, KT, S.device(), Out, DS,
                                DOut);
        },
        Rng);
  return mt::summary();
}
/// T = 0.1^400 underflows: the forward sweep's check stops the program.
int underflow() {
  const int K = 400;
  mt::DeviceArray<double> A(K), Out(1), DA(K), DOut(1);
  for (int I = 0; I < K; ++I)
    A[I] = 0.9;
  A.upload();
  DOut[0] = 1;
  DOut.upload();
  meshad::gradient(compositeNext, "a, out")
      .execute_kernel(dim3(1), dim3(1), 1, K, A.device(), Out.device(),
                      DA.device(), DOut.device());
  mt::checkLaunch("underflow");
  return 0;
}
// UNDERFLOW: meshad: a recurrence that the reverse sweep undoes by its inverse (T *= f, then T /= f) left the normal numbers (underflow, overflow or not a number); the derivative would be wrong

// NUM-NOT: FAIL
// NUM: numeric checks: 720 passed, 0 failed
