// meshad::hessian(kernel, "x") of element kernels (issue 12): the plugin
// generates <k>_element (the element's energy over its local DOFs), its
// pullback and local Hessian, and <k>_hessian, which adds every element's
// energy, gradient and Hessian into E, a gradient and a sparse matrix
// (meshad/runtime/SparsePattern.h) in one launch, through the
// meshad::ElementHessian handle. Springs (stride 3, a guard), symmetric
// Dirichlet triangles in 2D (stride 2, an early return, the DOFs gathered
// into a local array passed to a __device__ energy), triangle areas in 3D
// (vertex locals, loops over the local vertices), neo-Hookean tets and
// scalar edge energies (stride 1, the index load in the access). Each:
// the energy against the primal kernel's, the gradient against central
// differences of the energy, the Hessian against central differences of
// the gradient and against the dense assembly of the local Hessians of the
// same energies (MESHAD_HESSIAN, as test/runtime/runtime-sparse-hessian.cu
// assembles them), CSR against block CSR, the deterministic option bitwise
// reproducible and equal to the atomic one to rounding, ProjectPsd against
// the projected dense assembly, multiply() against the dense product; the
// springs also in a grid-stride loop. Also runs on the GPU
// (scripts/gpu/tests.txt).
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -fplugin-arg-meshad-remarks -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: FileCheck %s --check-prefix=REMARK < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "HessianCheck.h"
#include "ElementCheck.h"
#include "KernelCheck.h"
#include "MeshGeometry.h"
#include <cmath>
#include <functional>
#include <meshad/Differentiator.h>
#include <meshad/ElementHessian.h>

namespace mt = meshad::test;
using mt::inverse;
using mt::jiggle;
using mt::restEdges;
using meshad::runtime::SparseFormat;

//===-- The element kernels -----------------------------------------------===//

__global__ void springs(int n, const int *edges, const double *x,
                        const double *P, double *E) {
  int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e < n) {
    int a = edges[2 * e], b = edges[2 * e + 1];
    double l2 = 0;
    for (int k = 0; k < 3; ++k) {
      double d = x[3 * a + k] - x[3 * b + k];
      l2 += d * d;
    }
    double l = sqrt(l2) - P[2 * e + 1];
    atomicAdd(E, 0.5 * P[2 * e] * l * l);
  }
}
// CHECK-LABEL: __device__ double springs_element(int n, const int *edges, const double *P, int e, const double *x) {
// CHECK: double E = 0.;
// CHECK: double d = x[k] - x[3 + k];
// CHECK: E += 0.5 * P[2 * e] * l * l;
// CHECK: return E;
// CHECK-LABEL: __device__ void springs_element_hessian(int n, const int *edges, const double *P, int e, const double *x, double *H) {
// CHECK: // Hessian pattern: 6 x 6
// CHECK-LABEL: __device__ void springs_element_grad(int n, const int *edges, const double *P, int e, const double *x, double _d_y, double *_d_x) {
// CHECK-NOT: atomicAdd
// CHECK-LABEL: __global__ void springs_hessian(int n, const int *edges, const double *x, const double *P, double *E, meshad::ElementAssembly<double> assembly) {
// CHECK-NEXT: int e = (int)(blockIdx.x * blockDim.x + threadIdx.x);
// CHECK-NEXT: if (e < n) {
// CHECK-NEXT: double xl[6];
// CHECK-NEXT: meshad::gatherElement<2, 3>(x, edges, e, xl);
// CHECK-NEXT: double gl[6] = {};
// CHECK-NEXT: springs_element_grad(n, edges, P, e, xl, 1., gl);
// CHECK-NEXT: double hl[36];
// CHECK-NEXT: springs_element_hessian(n, edges, P, e, xl, hl);
// CHECK-NEXT: meshad::assembleElement<2, 3>(assembly, edges, e, E, springs_element(n, edges, P, e, xl), gl, hl);

// The same springs in a grid-stride loop (launched with fewer threads than
// springs below).
__global__ void springsStride(int n, const int *edges, const double *x,
                              const double *P, double *E) {
  for (int e = blockIdx.x * blockDim.x + threadIdx.x; e < n;
       e += blockDim.x * gridDim.x) {
    int a = edges[2 * e], b = edges[2 * e + 1];
    double l2 = 0;
    for (int k = 0; k < 3; ++k) {
      double d = x[3 * a + k] - x[3 * b + k];
      l2 += d * d;
    }
    double l = sqrt(l2) - P[2 * e + 1];
    atomicAdd(E, 0.5 * P[2 * e] * l * l);
  }
}
// CHECK-LABEL: __global__ void springsStride_hessian(int n, const int *edges, const double *x, const double *P, double *E, meshad::ElementAssembly<double> assembly) {
// CHECK-NEXT: for (int e = (int)(blockIdx.x * blockDim.x + threadIdx.x); e < n; e += blockDim.x * gridDim.x) {
// CHECK-NEXT: double xl[6];
// CHECK-NEXT: meshad::gatherElement<2, 3>(x, edges, e, xl);

MESHAD_HESSIAN("x[0:6]")
__host__ __device__ double dirichlet(const double *x, const double *p) {
  double e1x = x[2] - x[0], e1y = x[3] - x[1];
  double e2x = x[4] - x[0], e2y = x[5] - x[1];
  double f00 = e1x * p[0] + e2x * p[2], f01 = e1x * p[1] + e2x * p[3];
  double f10 = e1y * p[0] + e2y * p[2], f11 = e1y * p[1] + e2y * p[3];
  double fro = f00 * f00 + f01 * f01 + f10 * f10 + f11 * f11;
  double det = f00 * f11 - f01 * f10;
  return p[4] * (fro + fro / (det * det));
}

__global__ void dirichletTris(int n, const int *tris, const double *x,
                              const double *P, double *E) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n)
    return;
  double xl[6];
  for (int j = 0; j < 3; ++j)
    for (int k = 0; k < 2; ++k)
      xl[2 * j + k] = x[2 * tris[3 * t + j] + k];
  atomicAdd(E, dirichlet(xl, P + 5 * t));
}
// CHECK-LABEL: __device__ double dirichletTris_element(int n, const int *tris, const double *P, int t, const double *x) {
// CHECK: xl[2 * j + k] = x[2 * j + k];
// CHECK: dirichlet(xl, P + 5 * t);
// CHECK: return E;
// CHECK-LABEL: __global__ void dirichletTris_hessian(int n, const int *tris, const double *x, const double *P, double *E, meshad::ElementAssembly<double> assembly) {
// CHECK: if (t >= n) {
// CHECK-NEXT: return;
// CHECK: meshad::gatherElement<3, 2>(x, tris, t, xl_1);

MESHAD_HESSIAN("x[0:9]")
__host__ __device__ double area(const double *x, const double *p) {
  double ux = x[3] - x[0], uy = x[4] - x[1], uz = x[5] - x[2];
  double vx = x[6] - x[0], vy = x[7] - x[1], vz = x[8] - x[2];
  double cx = uy * vz - uz * vy, cy = uz * vx - ux * vz, cz = ux * vy - uy * vx;
  return p[0] * sqrt(cx * cx + cy * cy + cz * cz);
}

__global__ void areas(int n, const int *tris, const double *x,
                      const double *w, double *E) {
  int f = blockIdx.x * blockDim.x + threadIdx.x;
  if (f < n) {
    double e[6];
    int v0 = tris[3 * f];
    for (int j = 1; j < 3; ++j) {
      int v = tris[3 * f + j];
      for (int k = 0; k < 3; ++k)
        e[3 * j - 3 + k] = x[3 * v + k] - x[3 * v0 + k];
    }
    double cx = e[1] * e[5] - e[2] * e[4];
    double cy = e[2] * e[3] - e[0] * e[5];
    double cz = e[0] * e[4] - e[1] * e[3];
    atomicAdd(E, w[f] * sqrt(cx * cx + cy * cy + cz * cz));
  }
}
// CHECK-LABEL: __global__ void areas_hessian(
// CHECK: meshad::gatherElement<3, 3>(x, tris, f, xl);

MESHAD_HESSIAN("x[0:12]")
__host__ __device__ double neoHookean(const double *x, const double *p) {
  double a0 = x[3] - x[0], a1 = x[4] - x[1], a2 = x[5] - x[2];
  double b0 = x[6] - x[0], b1 = x[7] - x[1], b2 = x[8] - x[2];
  double c0 = x[9] - x[0], c1 = x[10] - x[1], c2 = x[11] - x[2];
  double F00 = a0 * p[0] + b0 * p[3] + c0 * p[6];
  double F01 = a0 * p[1] + b0 * p[4] + c0 * p[7];
  double F02 = a0 * p[2] + b0 * p[5] + c0 * p[8];
  double F10 = a1 * p[0] + b1 * p[3] + c1 * p[6];
  double F11 = a1 * p[1] + b1 * p[4] + c1 * p[7];
  double F12 = a1 * p[2] + b1 * p[5] + c1 * p[8];
  double F20 = a2 * p[0] + b2 * p[3] + c2 * p[6];
  double F21 = a2 * p[1] + b2 * p[4] + c2 * p[7];
  double F22 = a2 * p[2] + b2 * p[5] + c2 * p[8];
  double J = F00 * (F11 * F22 - F12 * F21) - F01 * (F10 * F22 - F12 * F20) +
             F02 * (F10 * F21 - F11 * F20);
  double Ic = F00 * F00 + F01 * F01 + F02 * F02 + F10 * F10 + F11 * F11 +
              F12 * F12 + F20 * F20 + F21 * F21 + F22 * F22;
  double logJ = log(J);
  return 0.5 * p[9] * (Ic - 3.0) - p[9] * logJ + 0.5 * p[10] * logJ * logJ;
}

__global__ void tets(int n, const int *tet, const double *x, const double *P,
                     double *E) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < n) {
    double xl[12];
    for (int j = 0; j < 4; ++j)
      for (int k = 0; k < 3; ++k)
        xl[3 * j + k] = x[3 * tet[4 * t + j] + k];
    atomicAdd(E, neoHookean(xl, P + 11 * t));
  }
}
// CHECK-LABEL: __global__ void tets_hessian(
// CHECK: meshad::gatherElement<4, 3>(x, tet, t, xl_1);

__global__ void scalarEdges(int n, const int *edges, const double *u,
                            const double *w, double *E) {
  int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e < n) {
    double d = u[edges[2 * e]] - u[edges[2 * e + 1]];
    atomicAdd(E, w[e] * d * d + d * d * d * d);
  }
}
// CHECK-LABEL: __device__ double scalarEdges_element(int n, const int *edges, const double *w, int e, const double *u) {
// CHECK: double d = u[0] - u[1];
// CHECK-LABEL: __global__ void scalarEdges_hessian(
// CHECK: meshad::gatherElement<2, 1>(u, edges, e, xl);

// The local patterns: a spring's [K -K; -K K] (6 values), the scalar
// edge's [a -a; -a a] (1), the others symmetric.
// The local Hessian's internal HVP prints no accumulation remark (its
// adjoint stores become adds into H); the element's pullback adds plainly.
// REMARK-NOT: adjoint store to 'x': atomicAdd
// REMARK: adjoint store to 'x': plain += (its memory is private to the thread)
// REMARK-NOT: adjoint store to 'x': atomicAdd
// CHECK: remark: hessian of 'springs': element map through edges (arity 2, stride 3), n elements (guard); local Hessian of 6 DOFs: 6 unique values of 36 entries
// CHECK: remark: hessian of 'dirichletTris': element map through tris (arity 3, stride 2), n elements (early return); local Hessian of 6 DOFs: 21 unique values of 36 entries
// CHECK: remark: hessian of 'areas': {{.*}} 45 unique values of 81 entries
// CHECK: remark: hessian of 'tets': {{.*}} 78 unique values of 144 entries
// CHECK: remark: hessian of 'scalarEdges': {{.*}} 1 unique values of 4 entries

MESHAD_HESSIAN("x[0:6]")
__host__ __device__ double springRef(const double *x, const double *p) {
  double l2 = 0;
  for (int k = 0; k < 3; ++k)
    l2 += (x[k] - x[3 + k]) * (x[k] - x[3 + k]);
  double l = sqrt(l2) - p[1];
  return 0.5 * p[0] * l * l;
}
MESHAD_HESSIAN("u[0:2]")
__host__ __device__ double scalarRef(const double *u, const double *w) {
  double d = u[0] - u[1];
  return w[0] * d * d + d * d * d * d;
}

//===-- The meshes --------------------------------------------------------===//

/// One element kind: its mesh, DOFs, per-element parameters and the local
/// energy and Hessian of one element (the references).
struct Problem {
  const char *Name;
  int Arity, S, NumParams;
  std::vector<double> X, P;
  std::vector<int> Idx;
  double (*Local)(const double *, const double *);
  void (*LocalHessian)(const double *, const double *, double *);
  int numElements() const { return static_cast<int>(Idx.size()) / Arity; }
  int dofs() const { return static_cast<int>(X.size()); }
};

/// Springs along the edges of a 2x3 grid in 3D (7 springs, 6 vertices).
static Problem springGrid(mt::RandomInputs &Rng) {
  Problem Pb{"springs", 2, 3, 2, {}, {}, {}, springRef, springRef_hessian_0};
  for (int V = 0; V < 6; ++V)
    Pb.X.insert(Pb.X.end(), {double(V % 3), double(V / 3), 0.0});
  jiggle(Rng, Pb.X, 0.1);
  for (int V = 0; V < 6; ++V) {
    if (V % 3 < 2)
      Pb.Idx.insert(Pb.Idx.end(), {V, V + 1});
    if (V / 3 < 1)
      Pb.Idx.insert(Pb.Idx.end(), {V, V + 3});
  }
  for (int T = 0; T < Pb.numElements(); ++T)
    Pb.P.insert(Pb.P.end(), {Rng.uniform(1, 2), Rng.uniform(0.5, 1.5)});
  return Pb;
}

/// Symmetric Dirichlet on the 4 triangles of a 3x2 grid in 2D.
static Problem dirichletGrid(mt::RandomInputs &Rng) {
  Problem Pb{"dirichlet", 3, 2, 5, {}, {}, {}, dirichlet, dirichlet_hessian_0};
  for (int V = 0; V < 6; ++V)
    Pb.X.insert(Pb.X.end(), {double(V % 3), double(V / 3)});
  std::vector<double> Rest = Pb.X;
  jiggle(Rng, Pb.X, 0.05);
  for (int V : {0, 1})
    Pb.Idx.insert(Pb.Idx.end(), {V, V + 1, V + 4, V, V + 4, V + 3});
  for (int T = 0; T < Pb.numElements(); ++T) {
    std::vector<double> Inv =
        inverse(restEdges(Rest, &Pb.Idx[3 * T], 2).data(), 2);
    Pb.P.insert(Pb.P.end(), Inv.begin(), Inv.end());
    Pb.P.push_back(Rng.uniform(0.5, 1.5));
  }
  return Pb;
}

/// Weighted areas of 4 triangles of a tetrahedron's surface in 3D.
static Problem areaTetra(mt::RandomInputs &Rng) {
  Problem Pb{"areas", 3, 3, 1, {}, {}, {}, area, area_hessian_0};
  Pb.X = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
  jiggle(Rng, Pb.X, 0.2);
  Pb.Idx = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3};
  for (int T = 0; T < Pb.numElements(); ++T)
    Pb.P.push_back(Rng.uniform(0.5, 1.5));
  return Pb;
}

/// Neo-Hookean tets: two tets sharing a face (5 vertices).
static Problem tetPair(mt::RandomInputs &Rng) {
  Problem Pb{"tets", 4, 3, 11, {}, {}, {}, neoHookean, neoHookean_hessian_0};
  Pb.X = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1};
  std::vector<double> Rest = Pb.X;
  jiggle(Rng, Pb.X, 0.05);
  Pb.Idx = {0, 1, 2, 3, 1, 2, 3, 4};
  for (int T = 0; T < Pb.numElements(); ++T) {
    std::vector<double> Inv =
        inverse(restEdges(Rest, &Pb.Idx[4 * T], 3).data(), 3);
    Pb.P.insert(Pb.P.end(), Inv.begin(), Inv.end());
    Pb.P.insert(Pb.P.end(), {Rng.uniform(0.5, 1.5), Rng.uniform(0.5, 1.5)});
  }
  return Pb;
}

/// Scalar edge energies on a path and a chord (5 vertices, 1 DOF each).
static Problem scalarPath(mt::RandomInputs &Rng) {
  Problem Pb{"scalar", 2, 1, 1, {}, {}, {}, scalarRef, scalarRef_hessian_0};
  for (int V = 0; V < 5; ++V)
    Pb.X.push_back(Rng.uniform(-1, 1));
  Pb.Idx = {0, 1, 1, 2, 2, 3, 3, 4, 0, 3};
  for (int T = 0; T < Pb.numElements(); ++T)
    Pb.P.push_back(Rng.uniform(0.5, 1.5));
  return Pb;
}

//===-- The checks --------------------------------------------------------===//

/// What one launch of a generated Hessian kernel gives, on the host.
struct Assembled {
  double E = 0;
  std::vector<double> G, H; ///< H dense, row-major
};

/// The dense matrix of \p M (values in format \p F).
static std::vector<double>
toDense(const meshad::runtime::SparseHessian<double> &M, SparseFormat F) {
  int N = M.numRows();
  std::vector<double> D(N * N, 0.0), V(M.nnz());
  cudaMemcpy(V.data(), M.values(), V.size() * sizeof(double),
             cudaMemcpyDeviceToHost);
  std::vector<int> Rows(N + 1), Cols(M.nnz());
  cudaMemcpy(Rows.data(), M.csrRowOffsets(), Rows.size() * sizeof(int),
             cudaMemcpyDeviceToHost);
  cudaMemcpy(Cols.data(), M.csrColumns(), Cols.size() * sizeof(int),
             cudaMemcpyDeviceToHost);
  if (F == SparseFormat::Csr) {
    for (int R = 0; R < N; ++R)
      for (int I = Rows[R]; I < Rows[R + 1]; ++I)
        D[R * N + Cols[I]] += V[I];
    return D;
  }
  meshad::runtime::HessianPatternArrays P = M.toHost();
  int S = M.blockSize(), NV = N / S;
  for (int R = 0; R < NV; ++R)
    for (int B = P.BlockRowOffsets[R]; B < P.BlockRowOffsets[R + 1]; ++B)
      for (int K = 0; K < S; ++K)
        for (int L = 0; L < S; ++L)
          D[(S * R + K) * N + S * P.BlockColumns[B] + L] +=
              V[(B * S + K) * S + L];
  return D;
}

/// The dense assembly of the references' local Hessians (projected:
/// \p Project).
static std::vector<double> denseAssembly(const Problem &Pb,
                                         const std::vector<double> &X,
                                         bool Project) {
  int N = Pb.dofs(), K = Pb.Arity * Pb.S;
  std::vector<double> D(N * N, 0.0);
  for (int T = 0; T < Pb.numElements(); ++T) {
    double xl[12], Hl[144];
    for (int I = 0; I < K; ++I)
      xl[I] = X[Pb.S * Pb.Idx[Pb.Arity * T + I / Pb.S] + I % Pb.S];
    Pb.LocalHessian(xl, Pb.P.data() + Pb.NumParams * T, Hl);
    if (Project)
      meshad::projectPsd(Hl, K);
    for (int I = 0; I < K; ++I)
      for (int J = 0; J < K; ++J)
        D[(Pb.S * Pb.Idx[Pb.Arity * T + I / Pb.S] + I % Pb.S) * N +
          Pb.S * Pb.Idx[Pb.Arity * T + J / Pb.S] + J % Pb.S] += Hl[I * K + J];
  }
  return D;
}

/// The largest |A - B| relative to the largest |B|.
static double relDiff(const std::vector<double> &A,
                      const std::vector<double> &B) {
  double D = 0, Scale = 0;
  for (size_t I = 0; I < A.size(); ++I) {
    D = std::max(D, std::fabs(A[I] - B[I]));
    Scale = std::max(Scale, std::fabs(B[I]));
  }
  return D / Scale;
}

/// The device arrays of a problem and the launches of its primal kernel
/// and its generated Hessian (through the handle \p h).
template <class Primal, class Handle> struct Runner {
  const Problem &Pb;
  Primal Kernel;
  const Handle &h;
  mt::DeviceArray<int> Idx;
  mt::DeviceArray<double> X, P, E, G;

  Runner(const Problem &Pb, Primal Kernel, const Handle &h)
      : Pb(Pb), Kernel(Kernel), h(h), Idx(Pb.Idx.size()), X(Pb.X.size()),
        P(Pb.P.size()), E(1), G(Pb.X.size()) {
    mt::upload(Idx, Pb.Idx);
    mt::upload(P, Pb.P);
  }
  /// Grid-stride kernels get one block of 4 threads (several elements a
  /// thread).
  bool Stride = false;
  dim3 grid() const { return dim3((Pb.numElements() + 31) / 32); }
  dim3 block() const { return dim3(Stride ? 4 : 32); }

  double energy(const std::vector<double> &XV) {
    mt::upload(X, XV);
    E.zero();
    MESHAD_LAUNCH(Kernel, Stride ? dim3(1) : grid(), block())(
        Pb.numElements(), Idx.device(), X.device(), P.device(), E.device());
    E.download();
    return E[0];
  }
  Assembled assemble(const std::vector<double> &XV, SparseFormat F) {
    mt::upload(X, XV);
    E.zero();
    G.zero();
    h.execute_kernel(Stride ? dim3(1) : grid(), block(), Pb.numElements(),
                     Idx.device(), X.device(), P.device(), E.device(),
                     G.device());
    mt::checkLaunch(Pb.Name);
    E.download();
    G.download();
    Assembled A;
    A.E = E[0];
    A.G.assign(G.host(), G.host() + XV.size());
    A.H = toDense(h.matrix(), F);
    return A;
  }
};

template <class Primal, class Handle>
static void checkProblem(const Problem &Pb, Primal Kernel, Handle h,
                         bool Stride = false) {
  Runner<Primal, Handle> R(Pb, Kernel, h);
  R.Stride = Stride;
  std::string Name = Pb.Name;
  std::vector<double> X = Pb.X;
  int N = Pb.dofs();
  Assembled A = R.assemble(X, SparseFormat::Bsr);
  MESHAD_CHECK_CLOSE((Name + " energy").c_str(), A.E, R.energy(X));
  for (int I = 0; I < N; ++I)
    MESHAD_CHECK_CLOSE((Name + " dE/dx[" + std::to_string(I) + "]").c_str(),
                       A.G[I],
                       mt::centralDifferenceAt([&] { return R.energy(X); },
                                               X.data(), I));
  mt::checkHessian(
      Name, X, 0, N,
      [&](const double *, double *H) { std::copy(A.H.begin(), A.H.end(), H); },
      [&](const double *XP, double *G) {
        Assembled B = R.assemble(std::vector<double>(XP, XP + N),
                                 SparseFormat::Bsr);
        for (int I = 0; I < N; ++I)
          G[I] += B.G[I];
      });
  MESHAD_CHECK_CLOSE_TOL((Name + " dense assembly").c_str(),
                         relDiff(A.H, denseAssembly(Pb, X, false)) + 1, 1.0,
                         1e-12);
  // Hv = H v, on the matrix of the last launch (at X again).
  R.assemble(X, SparseFormat::Bsr);
  std::vector<double> V(N), Hv(N), Want(N, 0.0);
  mt::RandomInputs Rng(7);
  Rng.fill(V.data(), N, -1, 1);
  mt::DeviceArray<double> DV(N), DHv(N);
  mt::upload(DV, V);
  h.multiply(DV.device(), DHv.device());
  DHv.download();
  for (int I = 0; I < N; ++I)
    for (int J = 0; J < N; ++J)
      Want[I] += A.H[I * N + J] * V[J];
  MESHAD_CHECK_CLOSE_TOL((Name + " multiply").c_str(),
                         relDiff(std::vector<double>(DHv.host(),
                                                     DHv.host() + N),
                                 Want) + 1, 1.0, 1e-12);
  // CSR: the same matrix.
  h.set_options({false, false, SparseFormat::Csr});
  MESHAD_CHECK_CLOSE((Name + " csr").c_str(),
                     R.assemble(X, SparseFormat::Csr).H == A.H ? 1.0 : 0.0,
                     1.0);
  // Deterministic: the same Hessian and gradient bits twice, the atomic
  // ones to rounding (the energy is still added with atomicAdd).
  h.set_options({false, true, SparseFormat::Bsr});
  Assembled D1 = R.assemble(X, SparseFormat::Bsr);
  Assembled D2 = R.assemble(X, SparseFormat::Bsr);
  MESHAD_CHECK_CLOSE((Name + " deterministic bits").c_str(),
                     D1.H == D2.H && D1.G == D2.G ? 1.0 : 0.0, 1.0);
  MESHAD_CHECK_CLOSE_TOL((Name + " deterministic").c_str(),
                         relDiff(D1.H, A.H) + 1, 1.0, 1e-12);
  MESHAD_CHECK_CLOSE_TOL((Name + " deterministic gradient").c_str(),
                         relDiff(D1.G, A.G) + 1, 1.0, 1e-12);
  // ProjectPsd: the projected local Hessians' assembly.
  h.set_options(meshad::ProjectPsd);
  MESHAD_CHECK_CLOSE_TOL((Name + " projected").c_str(),
                         relDiff(R.assemble(X, SparseFormat::Bsr).H,
                                 denseAssembly(Pb, X, true)) + 1,
                         1.0, 1e-10);
  h.set_options({});
  std::printf("%s: %s\n", Pb.Name, h.remark().c_str());
}

int main() {
  mt::RandomInputs Rng;
  checkProblem(springGrid(Rng), springs, meshad::hessian(springs, "x"));
  Problem Stride = springGrid(Rng);
  Stride.Name = "springs (grid-stride)";
  checkProblem(Stride, springsStride, meshad::hessian(springsStride, "x"),
               true);
  checkProblem(dirichletGrid(Rng), dirichletTris,
               meshad::hessian(dirichletTris, "x"));
  checkProblem(areaTetra(Rng), areas, meshad::hessian(areas, "x"));
  checkProblem(tetPair(Rng), tets, meshad::hessian(tets, "x"));
  checkProblem(scalarPath(Rng), scalarEdges,
               meshad::hessian(scalarEdges, "u"));
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: springs: sparse Hessian: {{[0-9]+}} blocks of 3x3
// NUM: dirichlet: sparse Hessian: {{[0-9]+}} blocks of 2x2
// NUM: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
