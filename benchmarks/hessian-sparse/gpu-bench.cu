//===- benchmarks/hessian-sparse/gpu-bench.cu - Sparse loop Hessian on GPU ===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Issue 12's benchmark: the CSR Hessian of a mass-spring energy over an
/// n x n grid (3 springs per vertex: right, down, diagonal; V = n^2, 3 DOFs
/// per vertex, fp64) on the GPU:
///
/// - meshad: meshad::hessian(springs, "x", meshad::SparseDevice) of the
///   plain host-style loop below (the pattern built on the first call,
///   timed apart; then each call zeroes the values and runs the kernel);
/// - write once: a kernel storing every value once (the bandwidth floor);
/// - hand-written, straightforward: one thread per spring, its 3x3 block
///   K computed in closed form, the four blocks (+K, -K, -K, +K) added by
///   atomicAdd at positions found by a binary search of each row (values
///   zeroed first), into meshad's CSR pattern (checked: the same values to
///   rounding, the largest relative difference printed).
///
/// CUDA events, 3 warm-ups, the median of --reps (10). Options: --n=1024,
/// --reps=10. Compiled with the plugin by scripts/gpu/hessian-sparse-bench.sh.
///
//===----------------------------------------------------------------------===//

#include <meshad/Differentiator.h>
#include <meshad/cpu/Portable.h>
#include <meshad/runtime/SparseLoopDevice.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <vector>

__host__ __device__ double springs(const double *x, const int *e,
                                   const double *L, int m, double k) {
  double E = 0;
  for (int i = 0; i < m; ++i) {
    int a = e[2 * i], b = e[2 * i + 1];
    double dx = x[3 * a] - x[3 * b];
    double dy = x[3 * a + 1] - x[3 * b + 1];
    double dz = x[3 * a + 2] - x[3 * b + 2];
    double len = sqrt(dx * dx + dy * dy + dz * dz);
    E += 0.5 * k * (len - L[i]) * (len - L[i]);
  }
  return E;
}

/// The position of column \p C in row \p R of the CSR pattern.
__device__ int findColumn(const int *Offsets, const int *Columns, int R,
                          int C) {
  int Lo = Offsets[R], Hi = Offsets[R + 1];
  while (Lo < Hi) {
    int Mid = (Lo + Hi) / 2;
    if (Columns[Mid] < C)
      Lo = Mid + 1;
    else
      Hi = Mid;
  }
  return Lo;
}

/// The straightforward kernel: one thread per spring, atomicAdd into
/// positions searched in the rows.
__global__ void handSprings(const double *x, const int *e, const double *L,
                            int m, double k, const int *Offsets,
                            const int *Columns, double *Values) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m)
    return;
  int a = e[2 * i], b = e[2 * i + 1];
  double d[3] = {x[3 * a] - x[3 * b], x[3 * a + 1] - x[3 * b + 1],
                 x[3 * a + 2] - x[3 * b + 2]};
  double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  double s = L[i] / len, c = k * s / (len * len), diag = k * (1 - s);
  int V[2] = {a, b};
  for (int p = 0; p < 2; ++p)
    for (int q = 0; q < 2; ++q) {
      double sign = p == q ? 1.0 : -1.0;
      for (int r = 0; r < 3; ++r) {
        int Row = 3 * V[p] + r;
        int First = findColumn(Offsets, Columns, Row, 3 * V[q]);
        for (int t = 0; t < 3; ++t)
          atomicAdd(&Values[First + t],
                    sign * (c * d[r] * d[t] + (r == t ? diag : 0.0)));
      }
    }
}

/// Stores every value once: the bandwidth floor.
__global__ void writeOnce(double *Values, long long N) {
  long long Stride = (long long)gridDim.x * blockDim.x;
  for (long long I = blockIdx.x * (long long)blockDim.x + threadIdx.x; I < N;
       I += Stride)
    Values[I] = 1e-9 * (double)I;
}

static float medianMs(int Reps, const std::function<void()> &Run) {
  cudaEvent_t Start, Stop;
  cudaEventCreate(&Start);
  cudaEventCreate(&Stop);
  for (int W = 0; W < 3; ++W)
    Run();
  std::vector<float> Times;
  for (int R = 0; R < Reps; ++R) {
    cudaEventRecord(Start);
    Run();
    cudaEventRecord(Stop);
    cudaEventSynchronize(Stop);
    float T = 0;
    cudaEventElapsedTime(&T, Start, Stop);
    Times.push_back(T);
  }
  std::sort(Times.begin(), Times.end());
  return Times[Times.size() / 2];
}

template <class T> static T *toDevice(const std::vector<T> &Host) {
  T *D = nullptr;
  cudaMalloc(reinterpret_cast<void **>(&D), Host.size() * sizeof(T));
  cudaMemcpy(D, Host.data(), Host.size() * sizeof(T), cudaMemcpyHostToDevice);
  return D;
}

int main(int argc, char **argv) {
  int N = 1024, Reps = 10;
  for (int A = 1; A < argc; ++A) {
    if (!std::strncmp(argv[A], "--n=", 4))
      N = std::atoi(argv[A] + 4);
    if (!std::strncmp(argv[A], "--reps=", 7))
      Reps = std::atoi(argv[A] + 7);
  }
  const int V = N * N;
  std::mt19937 Gen(12);
  std::uniform_real_distribution<double> U(-0.1, 0.1);
  std::vector<double> X(3 * V);
  for (int R = 0; R < N; ++R)
    for (int C = 0; C < N; ++C) {
      int Vi = R * N + C;
      X[3 * Vi] = C + U(Gen);
      X[3 * Vi + 1] = R + U(Gen);
      X[3 * Vi + 2] = U(Gen);
    }
  std::vector<int> E;
  std::vector<double> Rest;
  auto Edge = [&](int A, int B, double L0) {
    E.insert(E.end(), {A, B});
    Rest.push_back(L0 * (1 + U(Gen)));
  };
  for (int R = 0; R < N; ++R)
    for (int C = 0; C < N; ++C) {
      if (C + 1 < N)
        Edge(R * N + C, R * N + C + 1, 1.0);
      if (R + 1 < N)
        Edge(R * N + C, (R + 1) * N + C, 1.0);
      if (R + 1 < N && C + 1 < N)
        Edge(R * N + C, (R + 1) * N + C + 1, std::sqrt(2.0));
    }
  const int M = static_cast<int>(Rest.size());
  const double K = 3.0;
  double *DX = toDevice(X), *DL = toDevice(Rest);
  int *DE = toDevice(E);

  auto H = meshad::hessian(springs, "x", meshad::SparseDevice);
  meshad::DeviceSparseMatrix<double> DH;
  auto T0 = std::chrono::steady_clock::now();
  H.execute(DX, DE, DL, M, K, &DH);
  cudaDeviceSynchronize();
  double FirstMs = std::chrono::duration<double, std::milli>(
                       std::chrono::steady_clock::now() - T0)
                       .count();
  const long long Nnz = DH.Nonzeros;
  float Meshad =
      medianMs(Reps, [&] { H.execute(DX, DE, DL, M, K, &DH); });
  std::vector<double> Ours(Nnz), Hand(Nnz);
  cudaMemcpy(Ours.data(), DH.Values, Nnz * sizeof(double),
             cudaMemcpyDeviceToHost);

  double *Values = nullptr;
  cudaMalloc(reinterpret_cast<void **>(&Values), Nnz * sizeof(double));
  int Blocks = (M + 255) / 256;
  float HandMs = medianMs(Reps, [&] {
    cudaMemset(Values, 0, Nnz * sizeof(double));
    MESHAD_LAUNCH(handSprings, Blocks, 256)(DX, DE, DL, M, K, DH.RowOffsets,
                                            DH.Columns, Values);
  });
  cudaMemcpy(Hand.data(), Values, Nnz * sizeof(double),
             cudaMemcpyDeviceToHost);
  float WriteMs = medianMs(Reps, [&] {
    MESHAD_LAUNCH(writeOnce, 132 * 16, 256)(Values, Nnz);
  });
  double Scale = 0, Diff = 0;
  for (long long I = 0; I < Nnz; ++I)
    Scale = std::max(Scale, std::fabs(Hand[I]));
  for (long long I = 0; I < Nnz; ++I)
    Diff = std::max(Diff, std::fabs(Ours[I] - Hand[I]) / Scale);

  double GB = Nnz * 8.0 / 1e9;
  std::printf("mass-spring %dx%d: V = %d, %d springs, %d rows, %lld nonzeros "
              "(%.2f GB of values); %s\n",
              N, N, V, M, DH.Rows, Nnz, GB, DH.remark().c_str());
  std::printf("| variant | ms | vs write once | hand / variant |\n");
  std::printf("|---|---|---|---|\n");
  std::printf("| write every value once (%.0f GB/s) | %.3f | 1.00x | |\n",
              GB / (WriteMs * 1e-3), WriteMs);
  std::printf("| meshad SparseDevice (values: zero + kernel) | %.3f | %.2fx "
              "| %.2fx |\n",
              Meshad, Meshad / WriteMs, HandMs / Meshad);
  std::printf("| hand-written, atomicAdd + row search (zero + kernel) | %.3f "
              "| %.2fx | 1.00x |\n",
              HandMs, HandMs / WriteMs);
  std::printf("| meshad first call (rows pass, pattern on the host, "
              "upload, values) | %.1f | | |\n",
              FirstMs);
  std::printf("max relative difference meshad vs hand-written: %.2e %s\n",
              Diff, Diff < 1e-12 ? "PASS" : "FAIL");
  cudaFree(Values);
  cudaFree(DX);
  cudaFree(DL);
  cudaFree(DE);
  return Diff < 1e-12 ? 0 : 1;
}
