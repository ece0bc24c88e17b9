// meshad::hessian on device code: MESHAD_HESSIAN on a __host__ __device__
// spring energy and on a __device__ cell energy gives their dense Hessians
// under stable names, which a kernel calls per element (and projects onto
// the PSD cone with meshad/runtime/PsdProjection.h, as projected Newton
// does); the host-device one is also requested by meshad::hessian and run
// on the host (the same function: one layout, one Hessian). Run on the CPU
// emulation; every Hessian against central differences of its gradient
// (meshad::gradient, by hand for the device-only cell), the projected ones against the analytic projection of
// that Hessian's 2 x 2 block form.
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "HessianCheck.h"
#include "KernelCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>
#include <meshad/runtime/PsdProjection.h>

MESHAD_HESSIAN("x[0:6]")
__host__ __device__ double spring(const double *x, double k, double l0) {
  double dx = x[0] - x[3], dy = x[1] - x[4], dz = x[2] - x[5];
  double len = sqrt(dx * dx + dy * dy + dz * dz);
  return 0.5 * k * (len - l0) * (len - l0);
}
// CHECK-LABEL: __host__ __device__ void spring_hessian_0(const double *x, double k, double l0, double *H) {
// CHECK: H[1] = H[6];

MESHAD_HESSIAN("x[0:3], k")
__device__ double cell(const double *x, double k) {
  return k * x[0] * x[1] * x[2] + cos(x[0] - x[2]) + k * k * x[1];
}
// CHECK-LABEL: __device__ void cell_hessian(const double *x, double k, double *H) {
// CHECK-NOT: H[5] +=
// CHECK: H[15] +=

/// Thread t: the Hessian of spring t (6 x 6) and of cell t (4 x 4), and
/// the projected spring Hessian.
__global__ void local(const double *x, double k, double l0, double *HS,
                      double *HP, double *HC, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n)
    return;
  spring_hessian_0(x + 6 * t, k, l0, HS + 36 * t);
  spring_hessian_0(x + 6 * t, k, l0, HP + 36 * t);
  meshad::projectPsd(HP + 36 * t, 6);
  cell_hessian(x + 6 * t, k, HC + 16 * t);
}

namespace mt = meshad::test;
constexpr int Springs = 5;

/// The gradient of cell w.r.t. (x0, x1, x2, k), by hand (cell is device
/// code: its meshad::gradient would not run on the host).
static void cellGradient(const double *Q, double *G) {
  double X0 = Q[0], X1 = Q[1], X2 = Q[2], K = Q[3], S = std::sin(X0 - X2);
  G[0] += K * X1 * X2 - S;
  G[1] += K * X0 * X2 + K * K;
  G[2] += K * X0 * X1 + S;
  G[3] += X0 * X1 * X2 + 2 * K * X1;
}

int main() {
  mt::RandomInputs Rng;
  auto hHost = meshad::hessian(spring, "x[0:6]");
  auto gSpring = meshad::gradient(spring, "x");
  mt::DeviceArray<double> X(6 * Springs), HS(36 * Springs),
      HP(36 * Springs), HC(16 * Springs);
  Rng.fill(X.host(), 6 * Springs, -1, 1);
  X.upload();
  // Stretched springs (l0 small): positive along the spring; compressed
  // ones (l0 large): negative, which the projection clamps.
  double K = Rng.uniform(1, 2), L0 = Rng.uniform(2, 3);
  MESHAD_LAUNCH(local, dim3(2), dim3(4))(X.device(), K, L0, HS.device(),
                                          HP.device(), HC.device(), Springs);
  mt::checkLaunch("local");
  HS.download();
  HP.download();
  HC.download();
  for (int S = 0; S < Springs; ++S) {
    std::string Tag = "spring " + std::to_string(S);
    std::vector<double> P(&X[6 * S], &X[6 * S] + 6);
    mt::checkHessian(
        Tag, P, 0, 6,
        [&](double *Q, double *H) {
          for (int I = 0; I < 36; ++I)
            H[I] = HS[36 * S + I];
          (void)Q;
        },
        [&](double *Q, double *G) { gSpring.execute(Q, K, L0, G); });
    mt::checkHessian(
        Tag + " host", P, 0, 6,
        [&](double *Q, double *H) { hHost.execute(Q, K, L0, H); },
        [&](double *Q, double *G) { gSpring.execute(Q, K, L0, G); });
    // The spring Hessian is [A -A; -A A], A = a u u^T + b (I - u u^T):
    // eigenvalues 2a, 2b (twice) and 0 (three times). Projected: [B -B;
    // -B B] with B = max(a, 0) u u^T + max(b, 0) (I - u u^T).
    double D[3], Len = 0;
    for (int I = 0; I < 3; ++I) {
      D[I] = P[I] - P[I + 3];
      Len += D[I] * D[I];
    }
    Len = std::sqrt(Len);
    double A = K, Bv = K * (1 - L0 / Len);
    for (int I = 0; I < 3; ++I)
      for (int J = 0; J < 3; ++J) {
        double Uu = D[I] * D[J] / (Len * Len);
        double Bij = std::max(A, 0.0) * Uu + std::max(Bv, 0.0) * ((I == J) - Uu);
        for (int Blk = 0; Blk < 4; ++Blk) {
          int R = I + 3 * (Blk / 2), C = J + 3 * (Blk % 2);
          double Want = (Blk == 0 || Blk == 3) ? Bij : -Bij;
          // Absolute: entries of u u^T vanish with u's components
          // (|B| <= K here, the projection's error is a few ulps of it).
          MESHAD_CHECK_CLOSE_TOL((Tag + " projected").c_str(),
                                 HP[36 * S + R * 6 + C] + K, Want + K, 1e-12);
        }
      }
    std::vector<double> Pc = {X[6 * S], X[6 * S + 1], X[6 * S + 2], K};
    mt::checkHessian(
        "cell " + std::to_string(S), Pc, 0, 4,
        [&](double *Q, double *H) {
          for (int I = 0; I < 16; ++I)
            H[I] = HC[16 * S + I];
          (void)Q;
        },
        [&](double *Q, double *G) { cellGradient(Q, G); });
  }
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
