// CUDA-on-CPU emulation: barriers that not every thread reaches hang or are
// undefined on a GPU; the emulation names the waiting thread and the culprit
// and aborts. A barrier after divergent work that every thread reaches is
// fine.
//
// RUN: %clangxx %cpu_cuda_flags -I%test_inputs %s -o %t
// RUN: %t uniform | FileCheck %s --check-prefix=OK
// RUN: not --crash %t block 2>&1 | FileCheck %s --check-prefix=BLOCK
// RUN: not --crash %t warp 2>&1 | FileCheck %s --check-prefix=WARP
// RUN: not --crash %t mask 2>&1 | FileCheck %s --check-prefix=MASK
// RUN: not --crash %t host 2>&1 | FileCheck %s --check-prefix=HOST
//
// clang-format off
// OK: PASS uniform barrier after divergent work
//
// BLOCK: launching earlyExit
// BLOCK-NEXT: meshad-cpu: error: barrier divergence in kernel 'earlyExit', block (1,0,0):
// BLOCK-SAME: thread (0,0,0) waits in __syncthreads(), but thread (48,0,0) has exited without
// BLOCK-SAME: reaching it (48 of 64 threads wait); on a GPU this hangs or is undefined behaviour
// BLOCK-NOT: PASS
//
// WARP: meshad-cpu: error: warp divergence in kernel 'halfWarpShuffle', block (0,0,0):
// WARP-SAME: thread (0,0,0) (lane 0) waits in __shfl_down_sync() with mask 0xffffffff, but
// WARP-SAME: thread (16,0,0) (lane 16) has exited without reaching it; on a GPU this hangs
//
// MASK: meshad-cpu: error: __syncwarp() in kernel 'laneOutsideMask': thread (1,0,0) of
// MASK-SAME: block (0,0,0), lane 1, is not in its mask 0x00000001
//
// HOST: meshad-cpu: error: __syncthreads() called outside of a kernel
// clang-format on

#include "NumericCheck.h"

#include <cstring>

namespace {

/// In block 1, threads 48.. return before the barrier.
__global__ void earlyExit(int *Out) {
  if (blockIdx.x == 1 && threadIdx.x >= 48)
    return;
  Out[threadIdx.x] = 1;
  __syncthreads();
}

__global__ void halfWarpShuffle(int *Out) {
  if (threadIdx.x >= 16)
    return;
  Out[threadIdx.x] = __shfl_down_sync(0xffffffffu, int(threadIdx.x), 1);
}

__global__ void laneOutsideMask() { __syncwarp(1u); }

/// Divergent work, then a barrier every thread reaches.
__global__ void uniform(int *Out) {
  __shared__ int Buf[64];
  if (threadIdx.x % 2)
    Buf[threadIdx.x] = 2 * int(threadIdx.x);
  else
    Buf[threadIdx.x] = -1;
  __syncthreads();
  Out[threadIdx.x] = Buf[63 - threadIdx.x];
}

} // namespace

int main(int Argc, char **Argv) {
  const char *Mode = Argc > 1 ? Argv[1] : "";
  int *Out;
  cudaMalloc(&Out, 64 * sizeof(int));
  if (!std::strcmp(Mode, "block")) {
    std::printf("launching earlyExit\n");
    MESHAD_LAUNCH(earlyExit, 2, 64)(Out);
  } else if (!std::strcmp(Mode, "warp")) {
    MESHAD_LAUNCH(halfWarpShuffle, 1, 32)(Out);
  } else if (!std::strcmp(Mode, "mask")) {
    MESHAD_LAUNCH(laneOutsideMask, 1, 32)();
  } else if (!std::strcmp(Mode, "host")) {
    __syncthreads();
  } else {
    MESHAD_LAUNCH(uniform, 1, 64)(Out);
    int H[64];
    cudaMemcpy(H, Out, sizeof H, cudaMemcpyDeviceToHost);
    int Bad = 0;
    for (int I = 0; I < 64; ++I)
      Bad += H[I] != ((63 - I) % 2 ? 2 * (63 - I) : -1);
    meshad::test::checker().close("uniform barrier after divergent work", Bad,
                                  0.0, 0.0);
  }
  cudaFree(Out);
  return meshad::test::summary();
}
