// Forward mode of kernels (tangent kernels <kernel>_darg<N>): the primal's
// arguments, then one tangent array per selected or written array parameter
// in parameter order. Each is checked as a Jacobian-vector product against
// central differences along the direction: an elementwise kernel, a 2D
// kernel reading neighbours, a scalar parameter (tangent of the written
// array only), an in-place kernel, an atomicAdd energy and a shared-memory
// stencil with __syncthreads().
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "KernelCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

__global__ void squash(int n, const double *x, double *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = x[i] * sin(x[i]) + exp(0.5 * x[i]);
}
// CHECK-LABEL: __global__ void squash_darg1(int n, const double *x, double *y, const double *_d_x, double *_d_y) {

__global__ void field2d(int nx, int ny, const double *a, double *b) {
  int ix = blockIdx.x * blockDim.x + threadIdx.x;
  int iy = blockIdx.y * blockDim.y + threadIdx.y;
  if (ix < nx && iy < ny) {
    int k = iy * nx + ix;
    int right = iy * nx + (ix + 1) % nx;
    int up = ((iy + 1) % ny) * nx + ix;
    b[k] = a[k] * a[right] * (1 + 0.1 * ix) + sin(a[up]) * (iy + 1);
  }
}
// CHECK-LABEL: __global__ void field2d_darg2(int nx, int ny, const double *a, double *b, const double *_d_a, double *_d_b) {

__global__ void affine(int n, double a, double b, const double *x,
                       double *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = a * x[i] + b * sin(a * x[i]) + b * b;
}
// CHECK-LABEL: __global__ void affine_darg1(int n, double a, double b, const double *x, double *out, double *_d_out) {

__global__ void relaxInPlace(int n, double *v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    double t = v[i];
    v[i] = 0.5 * t * t + cos(t);
  }
}
// CHECK-LABEL: __global__ void relaxInPlace_darg1(int n, double *v, double *_d_v) {

__global__ void chainEnergy(int n, const double *x, double k, double *E) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    double d = x[(i + 1) % n] - x[i];
    double s = sqrt(d * d + 0.01) - 0.25;
    atomicAdd(&E[0], 0.5 * k * s * s + x[i] + 0.1 * sin(x[i]));
  }
}
// CHECK-LABEL: __global__ void chainEnergy_darg1(int n, const double *x, double k, double *E, const double *_d_x, double *_d_E) {
// CHECK: atomicAdd(

#define TILE 16
__global__ void stencil(int n, const double *u, double *v) {
  __shared__ double tile[TILE + 2];
  int i = blockIdx.x * TILE + threadIdx.x;
  int t = threadIdx.x + 1;
  tile[t] = i < n ? u[i] : 0.0;
  if (threadIdx.x == 0)
    tile[0] = i > 0 && i - 1 < n ? u[i - 1] : 0.0;
  if (threadIdx.x == TILE - 1)
    tile[TILE + 1] = i + 1 < n ? u[i + 1] : 0.0;
  __syncthreads();
  if (i < n)
    v[i] = 0.25 * tile[t - 1] + 0.5 * tile[t] * tile[t] +
           0.25 * sin(tile[t + 1]);
}
// CHECK-LABEL: __global__ void stencil_darg1(int n, const double *u, double *v, const double *_d_u, double *_d_v) {
// CHECK: __syncthreads()

namespace mt = meshad::test;
constexpr int N = 37;
const dim3 Grid(3), Block(16);

int main() {
  mt::RandomInputs Rng;
  auto dSquash = meshad::differentiate(squash, "x");
  auto dField = meshad::differentiate(field2d, "a");
  auto dAffine = meshad::differentiate(affine, "a");
  auto dRelax = meshad::differentiate(relaxInPlace, "v");
  auto dChain = meshad::differentiate(chainEnergy, "x");
  auto dStencil = meshad::differentiate(stencil, "u");

  std::vector<double> Dir(100);
  Rng.fill(Dir.data(), Dir.size(), 0.5, 1); // positive: no JVP cancels

  { // squash
    mt::DeviceArray<double> X(N), Y(N), DX(N), DY(N);
    Rng.fill(X.host(), N, 0.2, 1.2);
    auto Run = [&] {
      X.upload();
      MESHAD_LAUNCH(squash, Grid, Block)(N, X.device(), Y.device());
      Y.download();
    };
    std::vector<double> Ref =
        mt::fdDirectional(Run, X.host(), Dir.data(), N, Y.host(), N);
    X.upload();
    for (int I = 0; I < N; ++I)
      DX[I] = Dir[I];
    DX.upload();
    dSquash.execute_kernel(Grid, Block, N, X.device(), Y.device(),
                           DX.device(), DY.device());
    mt::checkLaunch("squash_darg1");
    DY.download();
    mt::checkArray("squash jvp", DY.host(), Ref.data(), N);
    // By name.
    DY.zero();
    MESHAD_LAUNCH(squash_darg1, Grid, Block)(N, X.device(), Y.device(),
                                             DX.device(), DY.device());
    mt::checkLaunch("squash_darg1 by name");
    DY.download();
    mt::checkArray("squash jvp by name", DY.host(), Ref.data(), N);
  }
  { // field2d on 9 x 7 points
    const int NX = 9, NY = 7, M = NX * NY;
    const dim3 Grid2(3, 3), Block2(4, 3);
    mt::DeviceArray<double> A(M), B(M), DA(M), DB(M);
    Rng.fill(A.host(), M, 0.2, 1.2);
    auto Run = [&] {
      A.upload();
      MESHAD_LAUNCH(field2d, Grid2, Block2)(NX, NY, A.device(), B.device());
      B.download();
    };
    std::vector<double> Ref =
        mt::fdDirectional(Run, A.host(), Dir.data(), M, B.host(), M);
    A.upload();
    for (int I = 0; I < M; ++I)
      DA[I] = Dir[I];
    DA.upload();
    dField.execute_kernel(Grid2, Block2, NX, NY, A.device(), B.device(),
                          DA.device(), DB.device());
    mt::checkLaunch("field2d_darg2");
    DB.download();
    mt::checkArray("field2d jvp", DB.host(), Ref.data(), M);
  }
  { // affine w.r.t. the scalar a: d out / d a
    mt::DeviceArray<double> X(N), Out(N), DOut(N);
    Rng.fill(X.host(), N, 0.1, 0.6);
    X.upload();
    double A = Rng.uniform(0.5, 1.5), B = Rng.uniform(0.5, 1.5);
    std::vector<double> Ref(N);
    for (int I = 0; I < N; ++I) // analytic: x (1 + b cos(a x))
      Ref[I] = X[I] * (1 + B * std::cos(A * X[I]));
    dAffine.execute_kernel(Grid, Block, N, A, B, X.device(), Out.device(),
                           DOut.device());
    mt::checkLaunch("affine_darg1");
    DOut.download();
    mt::checkArray("d affine/da", DOut.host(), Ref.data(), N);
  }
  { // relaxInPlace: the tangent array is direction in, tangent out
    mt::DeviceArray<double> V(N), DV(N);
    std::vector<double> V0(N);
    Rng.fill(V0.data(), N, 0.6, 1.5);
    auto Run = [&] {
      for (int I = 0; I < N; ++I)
        V[I] = V0[I];
      V.upload();
      MESHAD_LAUNCH(relaxInPlace, Grid, Block)(N, V.device());
      V.download();
    };
    std::vector<double> Ref =
        mt::fdDirectional(Run, V0.data(), Dir.data(), N, V.host(), N);
    for (int I = 0; I < N; ++I) {
      V[I] = V0[I];
      DV[I] = Dir[I];
    }
    V.upload();
    DV.upload();
    dRelax.execute_kernel(Grid, Block, N, V.device(), DV.device());
    mt::checkLaunch("relaxInPlace_darg1");
    DV.download();
    mt::checkArray("relaxInPlace jvp", DV.host(), Ref.data(), N);
  }
  { // chainEnergy: the energy's tangent accumulates with atomicAdd
    mt::DeviceArray<double> X(N), E(1), DX(N), DE(1);
    for (int I = 0; I < N; ++I)
      X[I] = 0.3 * I + Rng.uniform(-0.05, 0.05);
    double K = Rng.uniform(0.5, 2);
    auto Run = [&] {
      X.upload();
      E.zero();
      MESHAD_LAUNCH(chainEnergy, Grid, Block)(N, X.device(), K, E.device());
      E.download();
    };
    std::vector<double> Ref =
        mt::fdDirectional(Run, X.host(), Dir.data(), N, E.host(), 1);
    X.upload();
    E.zero();
    for (int I = 0; I < N; ++I)
      DX[I] = Dir[I];
    DX.upload();
    DE.zero();
    dChain.execute_kernel(Grid, Block, N, X.device(), K, E.device(),
                          DX.device(), DE.device());
    mt::checkLaunch("chainEnergy_darg1");
    DE.download();
    MESHAD_CHECK_CLOSE("chainEnergy jvp", DE[0], Ref[0]);
  }
  { // stencil with a shared tile
    const int M = 45;
    const dim3 GridS((M + TILE - 1) / TILE), BlockS(TILE);
    mt::DeviceArray<double> U(M), V(M), DU(M), DV(M);
    Rng.fill(U.host(), M, 0.2, 1.2);
    auto Run = [&] {
      U.upload();
      MESHAD_LAUNCH(stencil, GridS, BlockS)(M, U.device(), V.device());
      V.download();
    };
    std::vector<double> Ref =
        mt::fdDirectional(Run, U.host(), Dir.data(), M, V.host(), M);
    U.upload();
    for (int I = 0; I < M; ++I)
      DU[I] = Dir[I];
    DU.upload();
    dStencil.execute_kernel(GridS, BlockS, M, U.device(), V.device(),
                            DU.device(), DV.device());
    mt::checkLaunch("stencil_darg1");
    DV.download();
    mt::checkArray("stencil jvp", DV.host(), Ref.data(), M);
  }
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 257 passed, 0 failed
