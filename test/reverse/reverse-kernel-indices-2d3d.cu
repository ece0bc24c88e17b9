// Reverse mode of kernels indexed with .x/.y/.z of threadIdx, blockIdx and
// blockDim on 2D and 3D grids (partial blocks at every edge), one of them
// reading a neighbour in x and y: two threads then add to the same adjoint
// element, so the derived kernel must accumulate it safely.
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "KernelCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>

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
// CHECK-LABEL: __global__ void field2d_grad(int nx, int ny, const double *a, double *b, double *_d_a, double *_d_b) {
// CHECK: threadIdx.y

__global__ void field3d(int nx, int ny, int nz, double s, const double *a,
                        double *b) {
  int ix = blockIdx.x * blockDim.x + threadIdx.x;
  int iy = blockIdx.y * blockDim.y + threadIdx.y;
  int iz = blockIdx.z * blockDim.z + threadIdx.z;
  if (ix < nx && iy < ny && iz < nz) {
    int k = (iz * ny + iy) * nx + ix;
    b[k] = exp(s * a[k]) * (1 + ix + 2 * iy + 3 * iz) / (1 + a[k] * a[k]);
  }
}
// CHECK-LABEL: __global__ void field3d_grad(int nx, int ny, int nz, double s, const double *a, double *b, double *_d_s, double *_d_a, double *_d_b) {
// CHECK: threadIdx.z

namespace mt = meshad::test;

int main() {
  mt::RandomInputs Rng;
  auto g2 = meshad::gradient(field2d, "a, b");
  auto g3 = meshad::gradient(field3d, "s, a, b");

  // 2D: 13 x 7 points, 4 x 3 blocks of 4 x 3 threads.
  const int NX = 13, NY = 7, N2 = NX * NY;
  const dim3 Grid2(4, 3), Block2(4, 3);
  std::vector<double> W(N2);
  Rng.fill(W.data(), N2, 0.2, 1); // positive: no adjoint sums to ~0
  mt::DeviceArray<double> A(N2), B(N2), DA(N2), DB(N2);
  Rng.fill(A.host(), N2, 0.2, 1.2);
  auto Loss2 = [&] {
    A.upload();
    MESHAD_LAUNCH(field2d, Grid2, Block2)(NX, NY, A.device(), B.device());
    B.download();
    return mt::weightedSum(W.data(), B.host(), N2);
  };
  std::vector<double> Ref = mt::fdGradient(Loss2, A.host(), N2);
  A.upload();
  DA.zero();
  for (int I = 0; I < N2; ++I)
    DB[I] = W[I];
  DB.upload();
  g2.execute_kernel(Grid2, Block2, NX, NY, A.device(), B.device(), DA.device(),
                    DB.device());
  mt::checkLaunch("field2d_grad");
  DA.download();
  mt::checkArray("d field2d/da", DA.host(), Ref.data(), N2);

  // 3D: 5 x 4 x 3 points, blocks of 2 x 2 x 2 threads.
  const int NX3 = 5, NY3 = 4, NZ3 = 3, N3 = NX3 * NY3 * NZ3;
  const dim3 Grid3(3, 2, 2), Block3(2, 2, 2);
  std::vector<double> W3(N3);
  Rng.fill(W3.data(), N3, -1, 1);
  mt::DeviceArray<double> A3(N3), B3(N3), DA3(N3), DB3(N3), DS(1);
  Rng.fill(A3.host(), N3, 0.3, 1.3);
  double S = Rng.uniform(1.2, 1.5); // s (1 + a^2) > 2 a: d b/d a != 0
  auto Loss3 = [&] {
    A3.upload();
    MESHAD_LAUNCH(field3d, Grid3, Block3)(NX3, NY3, NZ3, S, A3.device(),
                                          B3.device());
    B3.download();
    return mt::weightedSum(W3.data(), B3.host(), N3);
  };
  Ref = mt::fdGradient(Loss3, A3.host(), N3);
  double RefS = mt::fdGradient(Loss3, &S, 1)[0];
  A3.upload();
  DA3.zero();
  DS.zero();
  for (int I = 0; I < N3; ++I)
    DB3[I] = W3[I];
  DB3.upload();
  g3.execute_kernel(Grid3, Block3, NX3, NY3, NZ3, S, A3.device(), B3.device(),
                    DS.device(), DA3.device(), DB3.device());
  mt::checkLaunch("field3d_grad");
  DA3.download();
  DS.download();
  mt::checkArray("d field3d/da", DA3.host(), Ref.data(), N3);
  MESHAD_CHECK_CLOSE("d field3d/ds", DS[0], RefS);
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 152 passed, 0 failed
