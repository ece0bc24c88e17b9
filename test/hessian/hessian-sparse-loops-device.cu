// meshad::hessian(f, "x", meshad::SparseDevice) (issue 12): the sparse
// Hessian of a __host__ __device__ function's loops over device arrays,
// filled by generated kernels (one thread per iteration) into a
// meshad::DeviceSparseMatrix: the pattern built on the first call from the
// rows a first pass of the kernels writes, slots cached, plain stores into
// values with one owner and atomicAdd into shared ones. A chain (affine),
// springs over an edge list (an index array), triangles and a vertex loop
// (two kernels), a guarded neighbour term (skipped rows) and positions
// with velocities (two arrays). Each: the device matrix against the host
// meshad::Sparse matrix of the same function (same pattern, values to
// rounding), against the dense forward-over-reverse Hessian entry by entry
// with its nonzero count, and against central differences of
// meshad::gradient on random inputs; the pattern kept across calls,
// rebuilt for other bounds and after connectivity_changed(). Runs on the
// CPU emulation here and on the GPU (scripts/gpu/tests.txt).
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -fplugin-arg-meshad-remarks -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: FileCheck %s --check-prefix=REMARK < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
// NUM-NOT: FAIL
// NUM: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
#include "SparseHessianCheck.h"
#include <algorithm>
#include <cmath>
#include <meshad/Differentiator.h>
#include <meshad/cpu/Portable.h>
#include <meshad/runtime/SparseLoopDevice.h>

__host__ __device__ double chain(const double *x, int n) {
  double loss = 0;
  for (int i = 1; i < n; ++i)
    loss += (x[i - 1] - x[i]) * (x[i - 1] - x[i]) * (x[i - 1] - x[i]) *
            (x[i - 1] - x[i]);
  return loss;
}
// CHECK-LABEL: double chain_term(int n, int i, const double *x) {
// CHECK-LABEL: void chain_term_hessian(int n, int i, const double *x, double *H) {
// CHECK-LABEL: __global__ void chain_hessian_sparse_kernel(const double *x, int n, meshad::SparseLoopLaunch<double> launch) {
// CHECK-NEXT: int i = launch.Lo + blockIdx.x * blockDim.x + threadIdx.x;
// CHECK-NEXT: if (i >= launch.Hi) {
// CHECK-NEXT: return;
// CHECK-NEXT: }
// CHECK-NEXT: int x_rows[2] = {i - 1, i};
// CHECK-NEXT: if (meshad::sparseLoopRows<2>(launch, i, x_rows)) {
// CHECK-NEXT: return;
// CHECK-NEXT: }
// CHECK-NEXT: double x_l[2] = {x[x_rows[0]], x[x_rows[1]]};
// CHECK-NEXT: double hl[4];
// CHECK-NEXT: chain_term_hessian(n, i, x_l, hl);
// CHECK-NEXT: meshad::sparseLoopDeviceAdd<2, 15ull>(launch, i, hl);
// CHECK-NEXT: }
// CHECK-LABEL: void chain_hessian_sparse_device(const double *x, int n, meshad::DeviceSparseMatrix<double> *H) {
// CHECK-NEXT: meshad::sparseDeviceBegin(H);
// CHECK-NEXT: do {
// CHECK-NEXT: meshad::SparseLoopLaunch<double> launch = meshad::sparseDeviceLoop<2, 15ull>(H, 1, n);
// CHECK-NEXT: MESHAD_LAUNCH(chain_hessian_sparse_kernel, launch.Blocks, launch.Threads)(x, n, launch);
// CHECK-NEXT: } while (meshad::sparseDeviceNext(H));
// CHECK-NEXT: }
// REMARK: remark: sparse hessian of 'chain' w.r.t. 'x': each iteration of the loop over i reads x[i - 1], x[i]; local Hessian of 2 entries: 1 unique values, 4 nonzero entries, added by a kernel, one thread per iteration, into CSR slots (meshad::DeviceSparseMatrix

// A mass-spring energy over an edge list, 3 DOFs per vertex.
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
// CHECK-LABEL: __global__ void springs_hessian_sparse_kernel_0(const double *x, const int *e, const double *L, int m, double k, meshad::SparseLoopLaunch<double> launch) {
// CHECK:      int x_rows[6] = {3 * e[2 * i], 3 * e[2 * i] + 1, 3 * e[2 * i] + 2, 3 * e[2 * i + 1], 3 * e[2 * i + 1] + 1, 3 * e[2 * i + 1] + 2};
// CHECK-NEXT: if (meshad::sparseLoopRows<6>(launch, i, x_rows)) {
// CHECK:      springs_term_hessian(e, L, m, k, i, x_l, hl);
// CHECK-NEXT: meshad::sparseLoopDeviceAdd<6, 68719476735ull>(launch, i, hl);
// CHECK-LABEL: void springs_hessian_sparse_device_0(const double *x, const int *e, const double *L, int m, double k, meshad::DeviceSparseMatrix<double> *H) {
// CHECK:      meshad::SparseLoopLaunch<double> launch = meshad::sparseDeviceLoop<6, 68719476735ull>(H, 0, m);
// CHECK-NEXT: MESHAD_LAUNCH(springs_hessian_sparse_kernel_0, launch.Blocks, launch.Threads)(x, e, L, m, k, launch);

// 2D triangles through a triangle list and a vertex loop: two kernels.
__host__ __device__ double triangles(const double *x, const int *t,
                                     const double *A0, int nt, int nv) {
  double E = 0;
  for (int i = 0; i < nt; ++i) {
    double ux = x[2 * t[3 * i + 1]] - x[2 * t[3 * i]];
    double uy = x[2 * t[3 * i + 1] + 1] - x[2 * t[3 * i] + 1];
    double vx = x[2 * t[3 * i + 2]] - x[2 * t[3 * i]];
    double vy = x[2 * t[3 * i + 2] + 1] - x[2 * t[3 * i] + 1];
    double area = 0.5 * (ux * vy - uy * vx);
    E += (area - A0[i]) * (area - A0[i]);
  }
  for (int v = 0; v < nv; ++v)
    E += 0.01 * x[2 * v] * x[2 * v] * x[2 * v + 1];
  return E;
}
// CHECK-LABEL: __global__ void triangles_hessian_sparse_kernel_0(
// CHECK-LABEL: __global__ void triangles_hessian_sparse_kernel2_0(const double *x, const int *t, const double *A0, int nt, int nv, meshad::SparseLoopLaunch<double> launch) {
// CHECK-NEXT: int v = launch.Lo + blockIdx.x * blockDim.x + threadIdx.x;
// CHECK-LABEL: void triangles_hessian_sparse_device_0(
// CHECK:      meshad::SparseLoopLaunch<double> launch = meshad::sparseDeviceLoop<6, 68719476735ull>(H, 0, nt);
// CHECK-NEXT: MESHAD_LAUNCH(triangles_hessian_sparse_kernel_0, launch.Blocks, launch.Threads)(x, t, A0, nt, nv, launch);
// CHECK-NEXT: meshad::SparseLoopLaunch<double> launch_1 = meshad::sparseDeviceLoop<2, 7ull>(H, 0, nv);
// CHECK-NEXT: MESHAD_LAUNCH(triangles_hessian_sparse_kernel2_0, launch_1.Blocks, launch_1.Threads)(x, t, A0, nt, nv, launch_1);
// CHECK-NEXT: } while (meshad::sparseDeviceNext(H));
// REMARK: remark: sparse hessian of 'triangles' w.r.t. 'x': each iteration of loop 2 of 2 over v reads x[2*v], x[2*v + 1]; local Hessian of 2 entries: 2 unique values, 3 nonzero entries, added by a kernel

// A neighbour term under a condition: its entry's row is SkipRow in the
// last iteration.
__host__ __device__ double guarded(const double *x, int n) {
  double e = 0;
  for (int i = 0; i < n; ++i) {
    e += x[i] * x[i] * x[i] * x[i];
    if (i + 1 < n)
      e += x[i] * x[i + 1] * x[i + 1];
  }
  return e;
}
// CHECK-LABEL: __global__ void guarded_hessian_sparse_kernel(
// CHECK:      int x_rows[2] = {i, i + 1 < n ? i + 1 : meshad::SkipRow};

// Positions and velocities: two selected arrays, rows encoded per array.
__host__ __device__ double particles(const double *x, const double *v,
                                     const double *m, int n, double h) {
  double e = 0;
  for (int i = 0; i < n - 1; ++i) {
    double d = x[i + 1] - x[i] + h * (v[i + 1] - v[i]);
    e += d * d * d * d;
  }
  for (int i = 0; i < n; ++i)
    e += 0.5 * m[i] * v[i] * v[i] * cos(x[i]);
  return e;
}
// CHECK-LABEL: __global__ void particles_hessian_sparse_kernel_0_1(
// CHECK:      int rows[4] = {i, i + 1, i, i + 1};
// CHECK-NEXT: int arrays[4] = {0, 0, 1, 1};
// CHECK-NEXT: if (meshad::sparseLoopRows<4>(launch, i, rows, arrays)) {
// CHECK-LABEL: void particles_hessian_sparse_device_0_1(
// CHECK:      meshad::sparseDeviceLoop<4, 65535ull>(H, 0, n - 1, 2);

namespace mt = meshad::test;

template <class T> static T *toDevice(const std::vector<T> &Host) {
  T *D = nullptr;
  cudaMalloc(reinterpret_cast<void **>(&D), Host.size() * sizeof(T));
  cudaMemcpy(D, Host.data(), Host.size() * sizeof(T), cudaMemcpyHostToDevice);
  return D;
}

/// The device matrix of \p Run(dX, H) at \p X, copied to the host.
template <class Run>
static meshad::SparseMatrix<double>
onDevice(meshad::DeviceSparseMatrix<double> &DH, const std::vector<double> &X,
         Run R) {
  double *DX = toDevice(X);
  R(DX, &DH);
  meshad::SparseMatrix<double> Out;
  DH.copyTo(Out);
  cudaFree(DX);
  return Out;
}

/// The device matrix \p D against the host one \p H: the same pattern, the
/// values to rounding.
static void checkAgainstHost(const std::string &Name,
                             const meshad::SparseMatrix<double> &D,
                             const meshad::SparseMatrix<double> &H) {
  MESHAD_CHECK_CLOSE((Name + " rows as host").c_str(), double(D.Rows),
                     double(H.Rows));
  bool Same = D.RowOffsets == H.RowOffsets && D.Columns == H.Columns &&
              D.ArrayOffsets == H.ArrayOffsets;
  MESHAD_CHECK_CLOSE((Name + " pattern as host").c_str(), Same ? 1.0 : 0.0,
                     1.0);
  double Scale = 1e-300;
  for (double V : H.Values)
    Scale = std::max(Scale, std::fabs(V));
  double Diff = 0;
  for (size_t E = 0; Same && E < H.Values.size(); ++E)
    Diff = std::max(Diff, std::fabs(D.Values[E] - H.Values[E]) / Scale);
  MESHAD_CHECK_CLOSE_TOL((Name + " values as host").c_str(), 1.0 + Diff, 1.0,
                         1e-13);
}

/// The number of distinct (v, w) vertex pairs that share an element of
/// \p Idx (Arity vertices each), diagonal pairs included, times S*S.
static int blockNonzeros(const std::vector<int> &Idx, int Arity, int S) {
  std::vector<std::pair<int, int>> P;
  for (size_t E = 0; E < Idx.size(); E += Arity)
    for (int A = 0; A < Arity; ++A)
      for (int B = 0; B < Arity; ++B)
        P.push_back({Idx[E + A], Idx[E + B]});
  std::sort(P.begin(), P.end());
  P.erase(std::unique(P.begin(), P.end()), P.end());
  return static_cast<int>(P.size()) * S * S;
}

static void checkChain(mt::RandomInputs &Rng) {
  const int N = 9;
  std::vector<double> X(N), Dense(N * N);
  Rng.fill(X.data(), N, -1.0, 1.0);
  auto sd = meshad::hessian(chain, "x", meshad::SparseDevice);
  auto sh = meshad::hessian(chain, "x", meshad::Sparse);
  auto dn = meshad::hessian(chain, "x[0:9]");
  auto gr = meshad::gradient(chain, "x");
  meshad::DeviceSparseMatrix<double> DH;
  meshad::SparseMatrix<double> H;
  auto Run = [&](double *DX, meshad::DeviceSparseMatrix<double> *M) {
    sd.execute(DX, N, M);
  };
  meshad::SparseMatrix<double> D = onDevice(DH, X, Run);
  sh.execute(X.data(), N, &H);
  dn.execute(X.data(), N, Dense.data());
  checkAgainstHost("chain", D, H);
  mt::checkAgainstDense("chain", D, N, 3 * N - 2, Dense);
  // The diagonal is shared by two iterations, the off-diagonal owned.
  MESHAD_CHECK_CLOSE("chain plain values", double(DH.PlainValues),
                     double(2 * (N - 1) + 2));
  MESHAD_CHECK_CLOSE("chain shared values", double(DH.SharedValues),
                     double(N - 2));
  mt::checkSparseHessian(
      "chain", X,
      [&](double *P, meshad::SparseMatrix<double> *S) {
        *S = onDevice(DH, std::vector<double>(P, P + N), Run);
      },
      [&](double *P, double *G) { gr.execute(P, N, G); });
  MESHAD_CHECK_CLOSE("chain pattern kept", double(DH.Rebuilds), 1.0);
  // Fewer iterations: other bounds, the pattern rebuilt in the same call.
  double *DX = toDevice(X);
  sd.execute(DX, 5, &DH);
  DH.copyTo(D);
  sh.execute(X.data(), 5, &H);
  checkAgainstHost("chain n = 5", D, H);
  MESHAD_CHECK_CLOSE("chain n = 5 rebuilt", double(DH.Rebuilds), 2.0);
  cudaFree(DX);
}

static void checkSprings(mt::RandomInputs &Rng) {
  std::vector<int> Edges = {0, 1, 1, 2, 2, 0, 0, 3, 1, 3, 2, 3, 3, 0};
  const int M = 7, NX = 12;
  std::vector<double> X(NX), L(M), Dense(NX * NX);
  Rng.fill(X.data(), NX, -1.0, 1.0);
  Rng.fill(L.data(), M, 0.2, 0.8);
  double K = Rng.uniform(0.5, 2.0);
  int *DE = toDevice(Edges);
  double *DL = toDevice(L);
  auto sd = meshad::hessian(springs, "x", meshad::SparseDevice);
  auto sh = meshad::hessian(springs, "x", meshad::Sparse);
  auto dn = meshad::hessian(springs, "x[0:12]");
  auto gr = meshad::gradient(springs, "x");
  meshad::DeviceSparseMatrix<double> DH;
  meshad::SparseMatrix<double> H;
  auto Run = [&](double *DX, meshad::DeviceSparseMatrix<double> *S) {
    sd.execute(DX, DE, DL, M, K, S);
  };
  meshad::SparseMatrix<double> D = onDevice(DH, X, Run);
  sh.execute(X.data(), Edges.data(), L.data(), M, K, &H);
  dn.execute(X.data(), Edges.data(), L.data(), M, K, Dense.data());
  checkAgainstHost("springs", D, H);
  mt::checkAgainstDense("springs", D, NX, blockNonzeros(Edges, 2, 3), Dense);
  std::printf("%s\n", DH.remark().c_str());
  mt::checkSparseHessian(
      "springs", X,
      [&](double *P, meshad::SparseMatrix<double> *S) {
        *S = onDevice(DH, std::vector<double>(P, P + NX), Run);
      },
      [&](double *P, double *G) {
        gr.execute(P, Edges.data(), L.data(), M, K, G);
      });
  MESHAD_CHECK_CLOSE("springs pattern kept", double(DH.Rebuilds), 1.0);
  // The edge list changed in place: the caller says so.
  std::vector<int> Path = {0, 1, 1, 2, 2, 3, 1, 0, 2, 1, 3, 2, 0, 1};
  cudaMemcpy(DE, Path.data(), Path.size() * sizeof(int),
             cudaMemcpyHostToDevice);
  DH.connectivity_changed();
  D = onDevice(DH, X, Run);
  sh.execute(X.data(), Path.data(), L.data(), M, K, &H);
  dn.execute(X.data(), Path.data(), L.data(), M, K, Dense.data());
  checkAgainstHost("springs path", D, H);
  mt::checkAgainstDense("springs path", D, NX, blockNonzeros(Path, 2, 3),
                        Dense);
  MESHAD_CHECK_CLOSE("springs path rebuilt", double(DH.Rebuilds), 2.0);
  cudaFree(DE);
  cudaFree(DL);
}

static void checkTriangles(mt::RandomInputs &Rng) {
  std::vector<int> Tris = {0, 1, 2, 1, 3, 2, 3, 4, 2};
  const int NT = 3, NV = 5, NX = 2 * NV;
  std::vector<double> X(NX), A0(NT), Dense(NX * NX);
  Rng.fill(X.data(), NX, -1.0, 1.0);
  Rng.fill(A0.data(), NT, -0.2, 0.2);
  int *DT = toDevice(Tris);
  double *DA = toDevice(A0);
  auto sd = meshad::hessian(triangles, "x", meshad::SparseDevice);
  auto dn = meshad::hessian(triangles, "x[0:10]");
  auto gr = meshad::gradient(triangles, "x");
  meshad::DeviceSparseMatrix<double> DH;
  auto Run = [&](double *DX, meshad::DeviceSparseMatrix<double> *S) {
    sd.execute(DX, DT, DA, NT, NV, S);
  };
  meshad::SparseMatrix<double> D = onDevice(DH, X, Run);
  dn.execute(X.data(), Tris.data(), A0.data(), NT, NV, Dense.data());
  mt::checkAgainstDense("triangles", D, NX, blockNonzeros(Tris, 3, 2), Dense);
  mt::checkSparseHessian(
      "triangles", X,
      [&](double *P, meshad::SparseMatrix<double> *S) {
        *S = onDevice(DH, std::vector<double>(P, P + NX), Run);
      },
      [&](double *P, double *G) {
        gr.execute(P, Tris.data(), A0.data(), NT, NV, G);
      });
  MESHAD_CHECK_CLOSE("triangles pattern kept", double(DH.Rebuilds), 1.0);
  cudaFree(DT);
  cudaFree(DA);
}

static void checkGuarded(mt::RandomInputs &Rng) {
  const int N = 8;
  std::vector<double> X(N), Dense(N * N);
  Rng.fill(X.data(), N, -1.0, 1.0);
  auto sd = meshad::hessian(guarded, "x", meshad::SparseDevice);
  auto sh = meshad::hessian(guarded, "x", meshad::Sparse);
  auto dn = meshad::hessian(guarded, "x[0:8]");
  auto gr = meshad::gradient(guarded, "x");
  meshad::DeviceSparseMatrix<double> DH;
  meshad::SparseMatrix<double> H;
  auto Run = [&](double *DX, meshad::DeviceSparseMatrix<double> *S) {
    sd.execute(DX, N, S);
  };
  meshad::SparseMatrix<double> D = onDevice(DH, X, Run);
  sh.execute(X.data(), N, &H);
  dn.execute(X.data(), N, Dense.data());
  checkAgainstHost("guarded", D, H);
  mt::checkAgainstDense("guarded", D, N, 3 * N - 2, Dense);
  mt::checkSparseHessian(
      "guarded", X,
      [&](double *P, meshad::SparseMatrix<double> *S) {
        *S = onDevice(DH, std::vector<double>(P, P + N), Run);
      },
      [&](double *P, double *G) { gr.execute(P, N, G); });
}

static void checkParticles(mt::RandomInputs &Rng) {
  const int N = 6;
  std::vector<double> XV(2 * N), Mass(N), Dense(4 * N * N);
  Rng.fill(XV.data(), 2 * N, -1.0, 1.0);
  Rng.fill(Mass.data(), N, 0.5, 2.0);
  double Hs = Rng.uniform(0.1, 0.5);
  double *DM = toDevice(Mass);
  auto sd = meshad::hessian(particles, "x, v", meshad::SparseDevice);
  auto sh = meshad::hessian(particles, "x, v", meshad::Sparse);
  auto dn = meshad::hessian(particles, "x[0:6], v[0:6]");
  auto gr = meshad::gradient(particles, "x, v");
  meshad::DeviceSparseMatrix<double> DH;
  meshad::SparseMatrix<double> H;
  // X and V in one device buffer: x = P, v = P + N.
  auto Run = [&](double *DP, meshad::DeviceSparseMatrix<double> *S) {
    sd.execute(DP, DP + N, DM, N, Hs, S);
  };
  meshad::SparseMatrix<double> D = onDevice(DH, XV, Run);
  sh.execute(XV.data(), XV.data() + N, Mass.data(), N, Hs, &H);
  dn.execute(XV.data(), XV.data() + N, Mass.data(), N, Hs, Dense.data());
  checkAgainstHost("particles", D, H);
  // x-x, x-v, v-x and v-v blocks, each tridiagonal.
  mt::checkAgainstDense("particles", D, 2 * N, 4 * (3 * N - 2), Dense);
  mt::checkSparseHessian(
      "particles", XV,
      [&](double *P, meshad::SparseMatrix<double> *S) {
        *S = onDevice(DH, std::vector<double>(P, P + 2 * N), Run);
      },
      [&](double *P, double *G) {
        gr.execute(P, P + N, Mass.data(), N, Hs, G, G + N);
      });
  cudaFree(DM);
}

int main() {
  mt::RandomInputs Rng;
  checkChain(Rng);
  checkSprings(Rng);
  checkTriangles(Rng);
  checkGuarded(Rng);
  checkParticles(Rng);
  return mt::summary();
}
