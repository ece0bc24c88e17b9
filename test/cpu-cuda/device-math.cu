// CUDA-on-CPU emulation: the CUDA math functions and intrinsics the host
// library lacks, called from a kernel: values at exact points, the float
// overloads (sin(float) is float as in CUDA), CUDA's min/max next to
// std::min/std::max, and the derivative rules of DerivativeRules.def for
// the emulated functions against central differences.
//
// RUN: %clangxx %cpu_cuda_flags -I%test_inputs %s -o %t && %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: PASS sinpi/cospi exact
// CHECK: PASS intrinsics
// CHECK: PASS min/max
// CHECK: PASS d/dx rsqrt
// CHECK: PASS d/dx rcbrt
// CHECK: PASS d/dx sinpi
// CHECK: PASS d/dx cospi
// CHECK: PASS d/dx exp10
// CHECK: PASS d/dx normcdf
// CHECK: numeric checks: {{[0-9]+}} passed, 0 failed

#include "NumericCheck.h"

#include <algorithm>
#include <type_traits>

static_assert(std::is_same_v<decltype(sin(1.0f)), float>);
static_assert(std::is_same_v<decltype(rsqrt(1.0f)), float>);
static_assert(std::is_same_v<decltype(sinpi(1.0f)), float>);
static_assert(std::is_same_v<decltype(min(1.0f, 2.0f)), float>);
static_assert(std::is_same_v<decltype(min(1.0f, 2.0)), double>);
static_assert(std::is_same_v<decltype(max(1, 2u)), unsigned>);

namespace {

/// R[0..]: the values checked on the host.
__global__ void mathKernel(double *R, float *F, int *I) {
  R[0] = sinpi(1.0);
  R[1] = cospi(0.5);
  R[2] = sinpi(-2.5);
  R[3] = cospi(3.0);
  R[4] = rsqrt(4.0);
  R[5] = exp10(2.0);
  R[6] = normcdf(0.0);
  double S, C;
  sincos(0.0, &S, &C);
  R[7] = S + 2 * C;
  F[0] = __fdividef(1.0f, 4.0f);
  F[1] = __saturatef(1.5f) + __saturatef(-1.0f);
  F[2] = __expf(0.0f) + __logf(1.0f);
  float Sf, Cf;
  sincosf(0.0f, &Sf, &Cf);
  F[3] = Sf + Cf;
  F[4] = rsqrtf(16.0f);
  F[5] = __int_as_float(__float_as_int(2.5f));
  I[0] = __popc(0xf0f0u);
  I[1] = int(__brev(1u) >> 31);
  I[2] = __clz(1);
  I[3] = min(3, -4);
  I[4] = max(3, -4);
  I[5] = __ffs(8);
}

void check(const char *Name, bool Ok) {
  meshad::test::checker().close(Name, Ok, 1.0, 0.0);
}

} // namespace

int main() {
  double *DR;
  float *DF;
  int *DI;
  cudaMalloc(&DR, 8 * sizeof(double));
  cudaMalloc(&DF, 6 * sizeof(float));
  cudaMalloc(&DI, 6 * sizeof(int));
  MESHAD_LAUNCH(mathKernel, 1, 1)(DR, DF, DI);
  double R[8];
  float F[6];
  int I[6];
  cudaMemcpy(R, DR, sizeof R, cudaMemcpyDeviceToHost);
  cudaMemcpy(F, DF, sizeof F, cudaMemcpyDeviceToHost);
  cudaMemcpy(I, DI, sizeof I, cudaMemcpyDeviceToHost);
  check("sinpi/cospi exact",
        R[0] == 0.0 && R[1] == 0.0 && R[2] == -1.0 && R[3] == -1.0);
  check("intrinsics", R[4] == 0.5 && R[5] == 100.0 && R[6] == 0.5 &&
                          R[7] == 2.0 && F[0] == 0.25f && F[1] == 1.0f &&
                          F[2] == 1.0f && F[3] == 1.0f && F[4] == 0.25f &&
                          F[5] == 2.5f && I[0] == 8 && I[1] == 1 &&
                          I[2] == 31 && I[5] == 4);
  {
    using namespace std; // CUDA's min/max do not make std::min ambiguous
    check("min/max", I[3] == -4 && I[4] == 3 && min(2, 5) == 2 &&
                         std::max(2.0, 5.0) == 5.0 && min(1.5f, 2.5f) == 1.5f);
  }
  meshad::test::RandomInputs Rng;
  using meshad::test::centralDifference;
  const double Pi = 3.141592653589793;
  for (int K = 0; K < 3; ++K) {
    double X = Rng.uniform(0.5, 3.0), Y = Rng.uniform(-2.0, 2.0);
    MESHAD_CHECK_CLOSE("d/dx rsqrt", -0.5 * rsqrt(X) / X,
                       centralDifference([](double V) { return rsqrt(V); }, X));
    MESHAD_CHECK_CLOSE("d/dx rcbrt", -rcbrt(X) / (3 * X),
                       centralDifference([](double V) { return rcbrt(V); }, X));
    MESHAD_CHECK_CLOSE("d/dx sinpi", Pi * cospi(Y),
                       centralDifference([](double V) { return sinpi(V); }, Y));
    MESHAD_CHECK_CLOSE("d/dx cospi", -Pi * sinpi(Y),
                       centralDifference([](double V) { return cospi(V); }, Y));
    MESHAD_CHECK_CLOSE("d/dx exp10", 2.302585092994046 * exp10(Y),
                       centralDifference([](double V) { return exp10(V); }, Y));
    MESHAD_CHECK_CLOSE(
        "d/dx normcdf", 0.3989422804014327 * exp(-0.5 * Y * Y),
        centralDifference([](double V) { return normcdf(V); }, Y));
  }
  cudaFree(DR);
  cudaFree(DF);
  cudaFree(DI);
  return meshad::test::summary();
}
