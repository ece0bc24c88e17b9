// Gathered stencil adjoints: where a tile-exclusive adjoint's kernel body is
// straight-line code whose sweeps have no effect besides the adjoint adds
// (the output seeds kept with meshad::KeepSeeds, or an energy summed with
// atomicAdd), the owner of each element runs its neighbours' reverse sweeps
// and adds their contributions to its element once: no shared memory, no
// atomics, a fixed summation order. The element range reaches past the last
// thread (an unguarded kernel launched with exactly one thread per output)
// and before the array's first element (x passed as base + 1), also when
// the grid has fewer threads than such elements. Negatives:
// seeds that are reset, a loop in the thread's work, threadIdx.x used alone.
// Every gradient is checked against central finite differences, kept seeds
// against their values before, and a second run against the first, bit for
// bit.
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-remarks -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.log
// RUN: FileCheck %s --check-prefix=REMARK < %t.log
// RUN: FileCheck %s < %t.log
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "KernelCheck.h"
#include "NumericCheck.h"
#include <cmath>
#include <cstring>
#include <meshad/Differentiator.h>

__global__ void stencil3(const double *x, double *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0 && i < n - 1)
    y[i] = x[i - 1] * x[i] + sin(x[i + 1]) * x[i];
}
// REMARK-DAG: ownership-gather.cu:[[#@LINE-2]]:12: remark: adjoint store to 'x': gathered (tile-exclusive: x[i - 1] and x[i + 1] overlap between neighbouring threads; every access is gid + {-1, 0, 1}: each block owns its tile but a halo of 2 elements; the thread that owns each element sums its contributions from the neighbouring threads' recomputed sweeps, then one plain += per element: no shared memory, no atomics)
// The default (seeds reset) keeps the tile and says why:
// REMARK-DAG: ownership-gather.cu:[[#@LINE-4]]:12: remark: adjoint store to 'x': shared-memory tile ({{.*}}; not gathered: the sweeps store to memory other threads can see)
// CHECK-LABEL: __global__ void stencil3_grad_keep_seeds(const double *x, double *y, int n, double *_d_x, double *_d_y) {
// Atomics only (exclusiveAdd): right for any launch shape, so no check.
// CHECK-NEXT: long long _threads = (long long)gridDim.x * blockDim.x;
// CHECK-NEXT: for (long long _j = (long long)blockIdx.x * blockDim.x + threadIdx.x; _j < meshad::gatherSlots<-1, 1>(_threads); _j += _threads) {
// CHECK-NEXT: long long _e = meshad::gatherElement<-1, 1>(_j, _threads);
// CHECK-NEXT: double _d_x_sum = 0.;
// CHECK-NEXT: bool _d_x_hit = false;
// Thread _e + 1 reads x[i - 1] = x[_e]:
// CHECK-NEXT: if (_e + 1 >= 0 && _e + 1 < _threads) {
// CHECK: i = (int)((unsigned int)(_e + 1));
// CHECK: _d_x_sum += {{.*}};
// CHECK: if (_e >= 0 && _e < _threads) {
// CHECK: i = (int)((unsigned int)_e);
// CHECK: if (_e - 1 >= 0 && _e - 1 < _threads) {
// CHECK: i = (int)((unsigned int)(_e - 1));
// CHECK: if (_d_x_hit) {
// CHECK-NEXT: meshad::exclusiveAdd(&_d_x[_e], _d_x_sum);
// CHECK-NOT: _d_y[i] = 0.
// CHECK-NOT: _tile
// CHECK-NOT: atomicAdd
// CHECK: {{^}}}
// CHECK-LABEL: __global__ void stencil3_grad(
// CHECK: meshad::tileAdd<1, -1, 1>

__global__ void chainEnergy(const double *x, double *E, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i + 1 < n) {
    double d = x[i + 1] - x[i];
    atomicAdd(&E[0], d * d * d * d + cos(d));
  }
}
// REMARK: ownership-gather.cu:[[#@LINE-4]]:16: remark: adjoint store to 'x': gathered (tile-exclusive:
// CHECK-LABEL: __global__ void chainEnergy_grad(
// CHECK: for (long long _j = (long long)blockIdx.x * blockDim.x + threadIdx.x; _j < meshad::gatherSlots<0, 1>(_threads); _j += _threads) {
// CHECK-NOT: atomicAdd
// CHECK: meshad::exclusiveAdd(&_d_x[_e], _d_x_sum);

// One thread per output, no guard: x[T] and x[T + 1] belong to no thread.
__global__ void forwardDiff(const double *x, double *y, int n) {
  int i = threadIdx.x + blockDim.x * blockIdx.x;
  y[i] = x[i] * x[i + 1] + x[i + 2] * x[i + 2];
}
// REMARK: ownership-gather.cu:[[#@LINE-2]]:10: remark: adjoint store to 'x': gathered
// CHECK-LABEL: __global__ void forwardDiff_grad_keep_seeds(
// CHECK: _j < meshad::gatherSlots<0, 2>(_threads);

// x[-1] is valid here: the caller passes base + 1.
__global__ void backwardLook(const double *x, double *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = x[i - 1] * exp(x[i]);
}
// REMARK: ownership-gather.cu:[[#@LINE-2]]:12: remark: adjoint store to 'x': gathered

__device__ double pairEnergy(double a, double b) {
  return (a - b) * (a - b) * a;
}
__global__ void calleePairs(const double *x, double *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i + 1 < n)
    y[i] = pairEnergy(x[i], x[i + 1]);
}
// REMARK: ownership-gather.cu:[[#@LINE-2]]:23: remark: adjoint store to 'x': gathered
// CHECK-LABEL: __global__ void calleePairs_grad_keep_seeds(
// CHECK: pairEnergy_pullback(

__global__ void looped(const double *x, double *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0 && i < n - 1) {
    double s = x[i - 1] * x[i + 1];
    for (int k = 0; k < 3; ++k)
      s = s * x[i] + 0.5;
    y[i] = s;
  }
}
// REMARK: ownership-gather.cu:[[#@LINE-6]]:16: remark: adjoint store to 'x': shared-memory tile ({{.*}}; not gathered: the thread's work has a loop, which each neighbour would repeat)
// CHECK-LABEL: __global__ void looped_grad_keep_seeds(
// CHECK: meshad::tileAdd<1, -1, 1>

__global__ void blockLocal(const double *x, double *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0 && i < n - 1 && threadIdx.x != 3)
    y[i] = x[i - 1] * x[i + 1];
}
// REMARK: ownership-gather.cu:[[#@LINE-2]]:12: remark: adjoint store to 'x': shared-memory tile ({{.*}}; not gathered: threadIdx.x or blockIdx.x is used outside blockIdx.x * blockDim.x + threadIdx.x)

namespace mt = meshad::test;

/// Checks the gradient of L = sum_i w_i y_i w.r.t. x of \p Kernel, whose
/// output has \p Outputs elements and input \p Inputs (the kernel gets x +
/// \p XOffset): against finite differences, the seeds against their values
/// before when \p Kept, and a second run against the first, bit for bit.
template <class K, class G>
void check(const char *Name, K Kernel, G Grad, int Inputs, int Outputs,
           dim3 Grid, dim3 Block, bool Kept, int XOffset = 0) {
  mt::RandomInputs Rng;
  mt::DeviceArray<double> X(Inputs), Y(Outputs), W(Outputs), DX(Inputs),
      DY(Outputs);
  Rng.fill(X.host(), Inputs, 0.2, 1.2);
  Rng.fill(W.host(), Outputs, -1, 1);
  int N = Outputs;
  auto Loss = [&] {
    X.upload();
    Y.zero();
    MESHAD_LAUNCH(Kernel, Grid, Block)(X.device() + XOffset, Y.device(), N);
    mt::checkLaunch(Name);
    Y.download();
    return mt::weightedSum(W.host(), Y.host(), Outputs);
  };
  std::vector<double> Expected = mt::fdGradient(Loss, X.host(), Inputs);
  std::vector<double> First;
  for (int Run = 0; Run < 2; ++Run) {
    X.upload();
    for (int I = 0; I < Outputs; ++I)
      DY[I] = W[I];
    DY.upload();
    DX.zero();
    Grad.execute_kernel(Grid, Block, X.device() + XOffset, Y.device(), N,
                        DX.device() + XOffset, DY.device());
    mt::checkLaunch(Name);
    DX.download();
    DY.download();
    if (Run == 1) {
      bool Same = std::memcmp(First.data(), DX.host(),
                              sizeof(double) * Inputs) == 0;
      mt::checker().close(std::string(Name) + ": second run bitwise equal",
                          Same ? 1.0 : 0.0, 1.0, 0.0);
      break;
    }
    First.assign(DX.host(), DX.host() + Inputs);
    mt::checkArray(Name, DX.host(), Expected.data(), Inputs);
    if (Kept)
      mt::checkArray(std::string(Name) + " seed kept", DY.host(), W.host(),
                     Outputs);
  }
}

int main() {
  const int N = 200;
  check("stencil3 kept", stencil3,
        meshad::gradient(stencil3, "x, y", meshad::KeepSeeds), N, N, dim3(7),
        dim3(32), true);
  check("stencil3 reset", stencil3, meshad::gradient(stencil3, "x, y"), N, N,
        dim3(7), dim3(32), false);
  check("chainEnergy", chainEnergy, meshad::gradient(chainEnergy, "x, E"), N,
        1, dim3(7), dim3(32), false);
  // 3 x 16 threads, 48 outputs, 50 inputs.
  check("forwardDiff", forwardDiff,
        meshad::gradient(forwardDiff, "x, y", meshad::KeepSeeds), 50, 48,
        dim3(3), dim3(16), true);
  // One thread for three elements.
  check("forwardDiff (1 thread)", forwardDiff,
        meshad::gradient(forwardDiff, "x, y", meshad::KeepSeeds), 3, 1,
        dim3(1), dim3(1), true);
  check("backwardLook", backwardLook,
        meshad::gradient(backwardLook, "x, y", meshad::KeepSeeds), N + 1, N,
        dim3(7), dim3(32), true, 1);
  check("calleePairs", calleePairs,
        meshad::gradient(calleePairs, "x, y", meshad::KeepSeeds), N, N,
        dim3(7), dim3(32), true);
  check("looped", looped, meshad::gradient(looped, "x, y", meshad::KeepSeeds),
        N, N, dim3(7), dim3(32), true);
  check("blockLocal", blockLocal,
        meshad::gradient(blockLocal, "x, y", meshad::KeepSeeds), N, N, dim3(7),
        dim3(32), true);
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 2512 passed, 0 failed
