// CUDA-on-CPU emulation: the runtime API on host memory: allocations start
// as 0xFF bytes (NaN), copies in a wrong direction or past the end of an
// allocation fail with cudaErrorInvalidValue (also from cudaGetLastError),
// memset, symbols, streams and events, and cudaLaunchKernel with a typed
// kernel and with a registered `const void *` kernel.
//
// RUN: %clangxx %cpu_cuda_flags -I%test_inputs %s -o %t && %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: PASS fresh allocation is NaN
// CHECK: PASS memset and copies
// CHECK: PASS bad copies rejected
// CHECK: PASS last error
// CHECK: PASS symbols
// CHECK: PASS streams and events
// CHECK: PASS cudaLaunchKernel typed
// CHECK: PASS cudaLaunchKernel registered
// CHECK: PASS unregistered kernel rejected
// CHECK: numeric checks: {{[0-9]+}} passed, 0 failed

#include "NumericCheck.h"

#include <cmath>

namespace {

__constant__ float Coefficients[4];

__global__ void axpy(int N, float A, const float *X, float *Y) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    Y[I] = A * X[I] + Y[I] * Coefficients[0];
}

void check(const char *Name, bool Ok) {
  meshad::test::checker().close(Name, Ok, 1.0, 0.0);
}

} // namespace

int main() {
  const int N = 100;
  float *X, *Y, H[N];
  check("fresh allocation is NaN",
        cudaMalloc(&X, N * sizeof(float)) == cudaSuccess &&
            cudaMalloc(&Y, N * sizeof(float)) == cudaSuccess &&
            std::isnan(X[0]) && std::isnan(Y[N - 1]));

  for (int I = 0; I < N; ++I)
    H[I] = float(I);
  bool Ok = cudaMemset(Y, 0, N * sizeof(float)) == cudaSuccess &&
            cudaMemcpy(X, H, sizeof H, cudaMemcpyHostToDevice) == cudaSuccess &&
            cudaMemcpy(H, Y, sizeof H, cudaMemcpyDeviceToHost) == cudaSuccess;
  Ok = Ok && H[0] == 0.0f && H[N - 1] == 0.0f;
  check("memset and copies", Ok);

  float Host[2 * N];
  bool Rejected = cudaMemcpy(X, Host, sizeof Host, cudaMemcpyHostToDevice) ==
                      cudaErrorInvalidValue && // past the end of X
                  cudaMemcpy(Host, H, sizeof H, cudaMemcpyHostToDevice) ==
                      cudaErrorInvalidValue && // destination is host memory
                  cudaMemcpy(X, Y, sizeof H, cudaMemcpyHostToDevice) ==
                      cudaErrorInvalidValue && // source is device memory
                  cudaMemcpy(H, X + 1, sizeof H, cudaMemcpyDeviceToHost) ==
                      cudaErrorInvalidValue && // past the end of X
                  cudaMemset(H, 0, sizeof H) == cudaErrorInvalidValue &&
                  cudaFree(H) == cudaErrorInvalidValue;
  check("bad copies rejected", Rejected);
  check("last error", cudaPeekAtLastError() == cudaErrorInvalidValue &&
                          cudaGetLastError() == cudaErrorInvalidValue &&
                          cudaGetLastError() == cudaSuccess);

  float C[4] = {2.0f, 0.0f, 0.0f, 0.0f}, Back[4];
  check("symbols",
        cudaMemcpyToSymbol(Coefficients, C, sizeof C) == cudaSuccess &&
            cudaMemcpyFromSymbol(Back, Coefficients, sizeof Back) ==
                cudaSuccess &&
            Back[0] == 2.0f &&
            cudaMemcpyToSymbol(Coefficients, C, sizeof C, 4) ==
                cudaErrorInvalidValue);
  cudaGetLastError();

  cudaStream_t Stream;
  cudaEvent_t Start, Stop;
  float Ms = -1;
  Ok = cudaStreamCreate(&Stream) == cudaSuccess &&
       cudaEventCreate(&Start) == cudaSuccess &&
       cudaEventCreate(&Stop) == cudaSuccess &&
       cudaEventRecord(Start, Stream) == cudaSuccess &&
       MESHAD_LAUNCH(axpy, 1, 128, 0, Stream)(N, 1.0f, X, Y) == cudaSuccess &&
       cudaEventRecord(Stop, Stream) == cudaSuccess &&
       cudaStreamSynchronize(Stream) == cudaSuccess &&
       cudaEventElapsedTime(&Ms, Start, Stop) == cudaSuccess && Ms >= 0 &&
       cudaEventDestroy(Start) == cudaSuccess &&
       cudaEventDestroy(Stop) == cudaSuccess &&
       cudaStreamDestroy(Stream) == cudaSuccess;
  check("streams and events", Ok);

  // Y = 1 * X + 2 * Y twice more: Y[I] = I (from the stream launch), then
  // 3 I, then 7 I.
  int Count = N;
  float A = 1.0f;
  void *Args[] = {&Count, &A, &X, &Y};
  Ok = cudaLaunchKernel(axpy, dim3(4), dim3(32), Args) == cudaSuccess;
  cudaMemcpy(H, Y, sizeof H, cudaMemcpyDeviceToHost);
  check("cudaLaunchKernel typed", Ok && H[5] == 15.0f && H[99] == 297.0f);
  meshad::cpu::registerKernel(axpy);
  Ok = cudaLaunchKernel(reinterpret_cast<const void *>(&axpy), dim3(4),
                        dim3(32), Args, 0, nullptr) == cudaSuccess;
  cudaMemcpy(H, Y, sizeof H, cudaMemcpyDeviceToHost);
  check("cudaLaunchKernel registered", Ok && H[5] == 35.0f && H[99] == 693.0f);
  check("unregistered kernel rejected",
        cudaLaunchKernel(reinterpret_cast<const void *>(&check), dim3(1),
                         dim3(1), Args) == cudaErrorInvalidDeviceFunction &&
            cudaGetLastError() == cudaErrorInvalidDeviceFunction);
  cudaFree(X);
  cudaFree(Y);
  return meshad::test::summary();
}
