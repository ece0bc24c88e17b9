// 3D thread indices: (gz*H + gy)*W + gx is thread-exclusive when guards keep
// gx below W and gy below H; the proof covers every launch shape, so the
// generated kernel checks none. Without the guard on gy, atomics stay. The
// gradients are checked against central finite differences, launched with 3D
// blocks and a 3D grid larger than the volume.
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-remarks -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.log
// RUN: FileCheck %s --check-prefix=REMARK < %t.log
// RUN: FileCheck %s < %t.log
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "KernelCheck.h"
#include "NumericCheck.h"
#include <cmath>
#include <meshad/Differentiator.h>
#include <string>
#include <vector>

__global__ void voxels(const double *v, double *out, int W, int H, int D) {
  int gx = blockIdx.x * blockDim.x + threadIdx.x;
  int gy = blockIdx.y * blockDim.y + threadIdx.y;
  int gz = blockIdx.z * blockDim.z + threadIdx.z;
  if (gx < W && gy < H && gz < D) {
    int p = (gz * H + gy) * W + gx;
    out[p] = v[p] * v[p] * cos(v[p]);
  }
}
// REMARK-DAG: ownership-3d.cu:[[#@LINE-3]]:14: remark: adjoint store to 'v': plain += (thread-exclusive: every access is (gz*H + gy)*W + gx + {0} with 0 <= gx < W, 0 <= gy < H)
// CHECK-LABEL: __global__ void voxels_grad(
// CHECK-NOT: requireLaunch
// CHECK-NOT: atomicAdd
// CHECK: meshad::exclusiveAdd(&_d_v[p],
// CHECK-NOT: atomicAdd
// CHECK-LABEL: __global__ void slabs_grad(

__global__ void slabs(const double *v, double *out, int W, int H, int D) {
  int gx = blockIdx.x * blockDim.x + threadIdx.x;
  int gy = blockIdx.y * blockDim.y + threadIdx.y;
  int gz = blockIdx.z * blockDim.z + threadIdx.z;
  if (gx < W && gz < D) {
    int p = (gz * H + gy) * W + gx;
    out[p] = exp(v[p]) * v[p];
  }
}
// REMARK-DAG: ownership-3d.cu:[[#@LINE-3]]:18: remark: adjoint store to 'v': atomicAdd (shared: v[p]: 3D index gz*H*W + gy*W + gx: gy < H not proven)
// CHECK-NOT: requireLaunch
// CHECK: atomicAdd(&_d_v[p]

namespace mt = meshad::test;

/// Checks d/dv of L = sum_p w_p out_p for a kernel (v, out, W, H, D).
template <class Fn, class G>
void check(const std::string &Name, Fn Kernel, G Grad, int W, int H, int D,
           dim3 Grid, dim3 Block) {
  mt::RandomInputs Rng;
  int N = W * H * D;
  std::vector<double> V(N), Out(N), Wt(N), DV(N, 0.0), DOut(N);
  Rng.fill(V.data(), N, 0.2, 1.2);
  Rng.fill(Wt.data(), N, -1, 1);
  auto Loss = [&] {
    std::fill(Out.begin(), Out.end(), 0.0);
    MESHAD_LAUNCH(Kernel, Grid, Block)(V.data(), Out.data(), W, H, D);
    return mt::weightedSum(Wt.data(), Out.data(), N);
  };
  DOut = Wt;
  Grad.execute_kernel(Grid, Block, V.data(), Out.data(), W, H, D, DV.data(),
                      DOut.data());
  mt::checkLaunch(Name.c_str());
  for (int K = 0; K < N; ++K)
    MESHAD_CHECK_CLOSE(Name + "[" + std::to_string(K) + "]", DV[K],
                       mt::centralDifferenceAt(Loss, V.data(), K));
}

int main() {
  // 7 x 3 x 3 voxels under an 8 x 4 x 4 launch of 4 x 2 x 2 blocks.
  const dim3 Grid(2, 2, 2), Block(4, 2, 2);
  check("voxels", voxels, meshad::gradient(voxels, "v, out"), 7, 3, 3, Grid,
        Block);
  // No guard on gy: the launch covers exactly H = 4 rows.
  check("slabs", slabs, meshad::gradient(slabs, "v, out"), 7, 4, 3, Grid,
        Block);
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: numeric checks: 147 passed, 0 failed
