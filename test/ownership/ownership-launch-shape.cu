// A gradient kernel whose thread-exclusive adjoint stores are plain relies on
// a 1D launch (threads then differ in blockIdx.x * blockDim.x + threadIdx.x);
// launched with 2D blocks it stops with a message instead of racing.
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -I%test_inputs %s -o %t
// RUN: %t 1d | FileCheck %s --check-prefix=OK
// RUN: not --crash %t 2d 2>&1 | FileCheck %s
#include <cstdio>
#include <cstring>
#include <meshad/Differentiator.h>

__global__ void squares(const double *x, double *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = x[i] * x[i];
}

int main(int Argc, char **Argv) {
  double X[64], Y[64], DX[64] = {}, DY[64];
  for (int I = 0; I < 64; ++I) {
    X[I] = 0.5 + I;
    DY[I] = 1;
  }
  auto G = meshad::gradient(squares, "x, y");
  bool TwoD = Argc > 1 && !std::strcmp(Argv[1], "2d");
  G.execute_kernel(dim3(2), TwoD ? dim3(16, 2) : dim3(32), X, Y, 64, DX, DY);
  bool Ok = true;
  for (int I = 0; I < 64; ++I)
    Ok &= DX[I] == 2 * X[I];
  std::printf("%s\n", Ok ? "gradient ok" : "gradient wrong");
  return Ok ? 0 : 1;
}
// OK: gradient ok
// CHECK: meshad: this gradient kernel relies on a 1D launch
