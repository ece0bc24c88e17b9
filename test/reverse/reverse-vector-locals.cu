// CUDA vector values (double3) that carry derivatives: locals built with
// make_double3, copied, and passed by value to __device__ helpers, and
// elements of a double3 array passed straight to a helper. CUDA's vector
// types have no += (and no atomicAdd): every adjoint of a vector is added
// component by component, each component in the form its store gets (plain
// for a local or a thread-exclusive element, atomicAdd for a shared one).
// Forward mode passes vector tangents to the helpers' pushforwards. The
// kernel runs on the CPU emulation; the host/device function on the host.
// Every derivative is checked against central finite differences.
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "KernelCheck.h"
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>
#include <vector>

__host__ __device__ double dot3(double3 a, double3 b) {
  return a.x * b.x + a.y * b.y + sin(a.z) * b.z;
}

__host__ __device__ double3 cross3(double3 a, double3 b) {
  return make_double3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z,
                      a.x * b.y - a.y * b.x);
}

/// E += dot(n, m) + dot(c, p[i]) + dot(p[(i + 1) % n], n) for triangle i,
/// with n and m built from x, c a copy of n x m.
__global__ void tri(int count, const double *x, const double3 *p, double *E) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) {
    double3 nrm = make_double3(x[3 * i], x[3 * i + 1] * x[3 * i], x[3 * i + 2]);
    double3 m = make_double3(1.0, 2.0 * x[3 * i + 2], x[3 * i]);
    double3 c = cross3(nrm, m);
    double3 d = c;
    atomicAdd(E, dot3(nrm, m) + dot3(d, p[i]) +
                     dot3(p[(i + 1) % count], nrm));
  }
}
// CHECK-LABEL: __global__ void tri_grad(
// CHECK: dot3_pullback(p[(i + 1) % count], nrm, {{.*}}, &[[RP:_r[0-9]+]], &[[RN:_r[0-9]+]]);
// CHECK: atomicAdd(&_d_p[(i + 1) % count].x, [[RP]].x);
// CHECK-NEXT: atomicAdd(&_d_p[(i + 1) % count].y, [[RP]].y);
// CHECK-NEXT: atomicAdd(&_d_p[(i + 1) % count].z, [[RP]].z);
// CHECK-NEXT: _d_nrm.x += [[RN]].x;
// CHECK-NEXT: _d_nrm.y += [[RN]].y;
// CHECK-NEXT: _d_nrm.z += [[RN]].z;
// CHECK: }
// CHECK-LABEL: __device__ void dot3_pullback(double3 a, double3 b, double _d_y, double3 *_d_a, double3 *_d_b) {

/// The same energy for one triangle, on the host or the device.
__host__ __device__ double triEnergy(const double *x, const double *q) {
  double3 nrm = make_double3(x[0], x[1] * x[0], x[2]);
  double3 m = make_double3(1.0, 2.0 * x[2], x[0]);
  double3 c = cross3(nrm, m);
  double3 pq = make_double3(q[0], q[1], q[2]);
  return dot3(nrm, m) + dot3(c, pq) + dot3(pq, nrm);
}
// CHECK-LABEL: __host__ __device__ void triEnergy_grad(const double *x, const double *q, double *_d_x, double *_d_q) {
// CHECK-LABEL: __host__ __device__ double triEnergy_darg0_2(const double *x, const double *q) {

namespace mt = meshad::test;

constexpr int Count = 37;

void checkKernel() {
  mt::RandomInputs Rng;
  mt::DeviceArray<double> X(3 * Count), E(1), DX(3 * Count), DE(1);
  mt::DeviceArray<double3> P(Count), DP(Count);
  std::vector<double> PFlat(3 * Count);
  Rng.fill(X.host(), 3 * Count, -1, 1);
  Rng.fill(PFlat.data(), 3 * Count, -1, 1);
  auto Loss = [&] {
    for (int I = 0; I < Count; ++I)
      P[I] = make_double3(PFlat[3 * I], PFlat[3 * I + 1], PFlat[3 * I + 2]);
    X.upload();
    P.upload();
    E.zero();
    MESHAD_LAUNCH(tri, dim3(2), dim3(32))(Count, X.device(), P.device(),
                                          E.device());
    E.download();
    return E[0];
  };
  std::vector<double> RefX = mt::fdGradient(Loss, X.host(), 3 * Count);
  std::vector<double> RefP = mt::fdGradient(Loss, PFlat.data(), 3 * Count);
  Loss();
  DX.zero();
  DP.zero();
  DE[0] = 1;
  DE.upload();
  auto Grad = meshad::gradient(tri, "x, p, E");
  Grad.execute_kernel(dim3(2), dim3(32), Count, X.device(), P.device(),
                      E.device(), DX.device(), DP.device(), DE.device());
  if (!mt::checkLaunch("tri_grad"))
    return;
  DX.download();
  DP.download();
  mt::checkArray("tri dx", DX.host(), RefX.data(), 3 * Count);
  for (int I = 0; I < Count; ++I) {
    MESHAD_CHECK_CLOSE("tri dp.x", DP[I].x, RefP[3 * I]);
    MESHAD_CHECK_CLOSE("tri dp.y", DP[I].y, RefP[3 * I + 1]);
    MESHAD_CHECK_CLOSE("tri dp.z", DP[I].z, RefP[3 * I + 2]);
  }

  // Forward mode of the kernel: dE/dx[5] (x[5] is x[3*1 + 2]).
  auto Tangent = meshad::differentiate(tri, "x[5]");
  mt::DeviceArray<double> DE5(1);
  Loss();
  DE5.zero();
  Tangent.execute_kernel(dim3(2), dim3(32), Count, X.device(), P.device(),
                         E.device(), DE5.device());
  if (!mt::checkLaunch("tri_darg1_5"))
    return;
  DE5.download();
  MESHAD_CHECK_CLOSE("tri forward dE/dx[5]", DE5[0], RefX[5]);
}

void checkHostDevice() {
  mt::RandomInputs Rng;
  double X[3], Q[3], DX[3] = {}, DQ[3] = {};
  Rng.fill(X, 3, -1, 1);
  Rng.fill(Q, 3, -1, 1);
  auto Loss = [&] { return triEnergy(X, Q); };
  meshad::gradient(triEnergy, "x, q").execute(X, Q, DX, DQ);
  for (int K = 0; K < 3; ++K) {
    MESHAD_CHECK_CLOSE("triEnergy dx", DX[K], mt::centralDifferenceAt(Loss, X, K));
    MESHAD_CHECK_CLOSE("triEnergy dq", DQ[K], mt::centralDifferenceAt(Loss, Q, K));
  }
  double Forward = meshad::differentiate(triEnergy, "x[2]").execute(X, Q);
  MESHAD_CHECK_CLOSE("triEnergy forward d/dx[2]", Forward,
                     mt::centralDifferenceAt(Loss, X, 2));
}

int main() {
  checkKernel();
  checkHostDevice();
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 230 passed, 0 failed
