// A small CUDA translation unit that includes the API and requests nothing:
// what every CUDA file of a project pays for <meshad/Differentiator.h>
// (benchmarks/compile-cost/run.sh).
#include <meshad/Differentiator.h>
__global__ void scale(int n, const double *x, double *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = 2.0 * x[i] * x[i];
}
int main() { scale<<<1, 32>>>(4, nullptr, nullptr); return 0; }
