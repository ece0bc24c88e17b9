// CUDA-on-CPU emulation: every component of threadIdx, blockIdx, blockDim and
// gridDim in a 3D grid of 3D blocks and a 2D matrix kernel, and the
// deterministic execution order (blocks one after another, threads in order).
//
// RUN: %clangxx %cpu_cuda_flags -I%test_inputs %s -o %t && %t | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: PASS dim3 defaults
// CHECK: PASS threadIdx
// CHECK: PASS blockIdx
// CHECK: PASS blockDim and gridDim
// CHECK: PASS execution order
// CHECK: PASS 2D matrix index
// CHECK: numeric checks: {{[0-9]+}} passed, 0 failed

#include "NumericCheck.h"

#include <vector>

namespace {

bool same(uint3 A, uint3 B) { return A.x == B.x && A.y == B.y && A.z == B.z; }

/// Records the built-ins seen by each thread at its global linear index.
__global__ void recordIndices(uint3 *Thread, uint3 *Block, uint3 *Dims,
                              int *Order, int *Counter) {
  unsigned BlockId =
      (blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
  unsigned InBlock =
      (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  unsigned G = BlockId * blockDim.x * blockDim.y * blockDim.z + InBlock;
  Thread[G] = threadIdx;
  Block[G] = blockIdx;
  Dims[2 * G] = blockDim;
  Dims[2 * G + 1] = gridDim;
  Order[G] = atomicAdd(Counter, 1);
}

/// Out[Row][Col] = 1000 * Row + Col over a Rows x Cols matrix.
__global__ void fillMatrix(int *Out, int Rows, int Cols) {
  int Col = blockIdx.x * blockDim.x + threadIdx.x;
  int Row = blockIdx.y * blockDim.y + threadIdx.y;
  if (Row < Rows && Col < Cols)
    Out[Row * Cols + Col] = 1000 * Row + Col;
}

void checkCount(const char *Name, int Mismatches) {
  meshad::test::checker().close(Name, Mismatches, 0.0, 0.0);
}

void check3DGrid() {
  dim3 Grid(3, 2, 2), Block(4, 3, 2);
  const int N = 3 * 2 * 2 * 4 * 3 * 2;
  uint3 *Thread, *BlockIds, *Dims;
  int *Order, *Counter;
  cudaMalloc(&Thread, N * sizeof(uint3));
  cudaMalloc(&BlockIds, N * sizeof(uint3));
  cudaMalloc(&Dims, 2 * N * sizeof(uint3));
  cudaMalloc(&Order, N * sizeof(int));
  cudaMalloc(&Counter, sizeof(int));
  cudaMemset(Counter, 0, sizeof(int));
  MESHAD_LAUNCH(recordIndices, Grid, Block)
  (Thread, BlockIds, Dims, Order, Counter);
  std::vector<uint3> T(N), B(N), D(2 * N);
  std::vector<int> O(N);
  cudaMemcpy(T.data(), Thread, N * sizeof(uint3), cudaMemcpyDeviceToHost);
  cudaMemcpy(B.data(), BlockIds, N * sizeof(uint3), cudaMemcpyDeviceToHost);
  cudaMemcpy(D.data(), Dims, 2 * N * sizeof(uint3), cudaMemcpyDeviceToHost);
  cudaMemcpy(O.data(), Order, N * sizeof(int), cudaMemcpyDeviceToHost);
  int BadThread = 0, BadBlock = 0, BadDims = 0, BadOrder = 0, G = 0;
  for (unsigned BZ = 0; BZ < 2; ++BZ)
    for (unsigned BY = 0; BY < 2; ++BY)
      for (unsigned BX = 0; BX < 3; ++BX)
        for (unsigned TZ = 0; TZ < 2; ++TZ)
          for (unsigned TY = 0; TY < 3; ++TY)
            for (unsigned TX = 0; TX < 4; ++TX, ++G) {
              BadThread += !same(T[G], {TX, TY, TZ});
              BadBlock += !same(B[G], {BX, BY, BZ});
              BadDims +=
                  !same(D[2 * G], {4, 3, 2}) || !same(D[2 * G + 1], {3, 2, 2});
              BadOrder += O[G] != G;
            }
  checkCount("threadIdx", BadThread);
  checkCount("blockIdx", BadBlock);
  checkCount("blockDim and gridDim", BadDims);
  checkCount("execution order", BadOrder);
  cudaFree(Thread);
  cudaFree(BlockIds);
  cudaFree(Dims);
  cudaFree(Order);
  cudaFree(Counter);
}

void checkMatrix() {
  const int Rows = 11, Cols = 37;
  int *Out;
  cudaMalloc(&Out, Rows * Cols * sizeof(int));
  dim3 Block(8, 4);
  dim3 Grid((Cols + Block.x - 1) / Block.x, (Rows + Block.y - 1) / Block.y);
  cudaError_t E = MESHAD_LAUNCH(fillMatrix, Grid, Block)(Out, Rows, Cols);
  std::vector<int> H(Rows * Cols);
  cudaMemcpy(H.data(), Out, H.size() * sizeof(int), cudaMemcpyDeviceToHost);
  int Bad = E != cudaSuccess;
  for (int R = 0; R < Rows; ++R)
    for (int C = 0; C < Cols; ++C)
      Bad += H[R * Cols + C] != 1000 * R + C;
  checkCount("2D matrix index", Bad);
  cudaFree(Out);
}

} // namespace

int main() {
  dim3 D(7), E(7, 5);
  checkCount("dim3 defaults", !same(D, {7, 1, 1}) + !same(E, {7, 5, 1}) +
                                  !same(dim3(), {1, 1, 1}));
  check3DGrid();
  checkMatrix();
  return meshad::test::summary();
}
