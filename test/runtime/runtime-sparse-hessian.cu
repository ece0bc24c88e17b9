// The sparse Hessian runtime (meshad/runtime/SparsePattern.h): element
// kernels call the local Hessians that meshad::hessian generates
// (MESHAD_HESSIAN) and add them into the global matrix through the slot
// map, in block CSR and plain CSR, atomically (plain stores for blocks with
// one owner) and deterministically (per-slot values, then a fixed-order
// sum). On springs (3x3 blocks), 2D symmetric Dirichlet triangles (2x2),
// 3D triangle areas and neo-Hookean tets (3x3): the pattern against the
// vertex pairs that share an element, every format against dense assembly,
// the dense Hessian against central differences of the global gradient
// (meshad::gradient of the element energies), the deterministic option
// bitwise reproducible, a rebuild after the connectivity changed, an empty
// mesh and an index out of range as an error. Also runs on the GPU
// (scripts/gpu/tests.txt).
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "HessianCheck.h"
#include "KernelCheck.h"
#include "MeshGeometry.h"
#include <cmath>
#include <cstring>
#include <meshad/Differentiator.h>
#include <meshad/runtime/SparsePattern.h>
#include <set>

MESHAD_HESSIAN("x[0:6]")
__host__ __device__ double spring(const double *x, const double *p) {
  double dx = x[0] - x[3], dy = x[1] - x[4], dz = x[2] - x[5];
  double len = sqrt(dx * dx + dy * dy + dz * dz);
  return 0.5 * p[0] * (len - p[1]) * (len - p[1]);
}
// CHECK-LABEL: __host__ __device__ void spring_hessian_0(const double *x, const double *p, double *H) {
// CHECK-LABEL: __host__ __device__ void spring_hessian_0_packed(const double *x, const double *p, double *vals) {

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
// CHECK-LABEL: __host__ __device__ void dirichlet_hessian_0(const double *x, const double *p, double *H) {
// CHECK-LABEL: __host__ __device__ void dirichlet_hessian_0_packed(const double *x, const double *p, double *vals) {

MESHAD_HESSIAN("x[0:9]")
__host__ __device__ double area(const double *x, const double *p) {
  double ux = x[3] - x[0], uy = x[4] - x[1], uz = x[5] - x[2];
  double vx = x[6] - x[0], vy = x[7] - x[1], vz = x[8] - x[2];
  double cx = uy * vz - uz * vy, cy = uz * vx - ux * vz, cz = ux * vy - uy * vx;
  return p[0] * sqrt(cx * cx + cy * cy + cz * cz);
}
// CHECK-LABEL: __host__ __device__ void area_hessian_0(const double *x, const double *p, double *H) {
// CHECK-LABEL: __host__ __device__ void area_hessian_0_packed(const double *x, const double *p, double *vals) {

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
// CHECK-LABEL: __host__ __device__ void neoHookean_hessian_0(const double *x, const double *p, double *H) {
// CHECK-LABEL: __host__ __device__ void neoHookean_hessian_0_packed(const double *x, const double *p, double *vals) {
// CHECK-LABEL: __host__ __device__ void spring_grad_0(const double *x, const double *p, double *_d_x) {
// CHECK-LABEL: __host__ __device__ void dirichlet_grad_0(const double *x, const double *p, double *_d_x) {
// CHECK-LABEL: __host__ __device__ void area_grad_0(const double *x, const double *p, double *_d_x) {
// CHECK-LABEL: __host__ __device__ void neoHookean_grad_0(const double *x, const double *p, double *_d_x) {

using namespace meshad::runtime;
namespace mt = meshad::test;
using mt::inverse;
using mt::jiggle;
using mt::restEdges;

/// The element kinds: local Hessian, arity, DOFs per vertex, parameters per
/// element.
enum Kind { Springs, Dirichlet, Areas, Tets };
struct Element {
  Kind K;
  int Arity, S, NumParams;
};

__device__ void localHessian(Kind K, const double *x, const double *p,
                             double *H) {
  switch (K) {
  case Springs:
    spring_hessian_0(x, p, H);
    break;
  case Dirichlet:
    dirichlet_hessian_0(x, p, H);
    break;
  case Areas:
    area_hessian_0(x, p, H);
    break;
  case Tets:
    neoHookean_hessian_0(x, p, H);
    break;
  }
}

__device__ void localGradient(Kind K, const double *x, const double *p,
                              double *G) {
  switch (K) {
  case Springs:
    spring_grad_0(x, p, G);
    break;
  case Dirichlet:
    dirichlet_grad_0(x, p, G);
    break;
  case Areas:
    area_grad_0(x, p, G);
    break;
  case Tets:
    neoHookean_grad_0(x, p, G);
    break;
  }
}

/// One thread per element: gather its DOFs, its local gradient (added into
/// Grad) and Hessian, the latter added through the slot map (or stored into
/// its slots: Deterministic).
__global__ void assemble(Element El, const double *X, const int *Idx,
                         const double *P, int NumElements, HessianSlots Slots,
                         bool Deterministic, double *Out, double *Grad) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= NumElements)
    return;
  double xl[12], gl[12] = {}, Hl[144];
  for (int a = 0; a < El.Arity; ++a)
    for (int k = 0; k < El.S; ++k)
      xl[a * El.S + k] = X[El.S * Idx[El.Arity * t + a] + k];
  localGradient(El.K, xl, P + El.NumParams * t, gl);
  addElementGradient(Slots, Idx, t, gl, Grad);
  localHessian(El.K, xl, P + El.NumParams * t, Hl);
  if (Deterministic)
    storeElementHessian(Slots, t, Hl, Out);
  else
    addElementHessian(Slots, t, Hl, Out);
}

/// A mesh of one element kind with its DOFs and per-element parameters.
struct Problem {
  const char *Name;
  Element El;
  std::vector<double> X, P;
  std::vector<int> Idx;
  int numVertices() const { return static_cast<int>(X.size()) / El.S; }
  int numElements() const { return static_cast<int>(Idx.size()) / El.Arity; }
  int dofs() const { return static_cast<int>(X.size()); }
};

/// The global gradient, from meshad::gradient of the element energy.
static void globalGradient(const Problem &Pb, const double *X, double *G) {
  static auto GS = meshad::gradient(spring, "x");
  static auto GD = meshad::gradient(dirichlet, "x");
  static auto GA = meshad::gradient(area, "x");
  static auto GT = meshad::gradient(neoHookean, "x");
  int A = Pb.El.Arity, S = Pb.El.S;
  for (int T = 0; T < Pb.numElements(); ++T) {
    double xl[12], gl[12] = {};
    for (int I = 0; I < A * S; ++I)
      xl[I] = X[S * Pb.Idx[A * T + I / S] + I % S];
    const double *p = Pb.P.data() + Pb.El.NumParams * T;
    switch (Pb.El.K) {
    case Springs:
      GS.execute(xl, p, gl);
      break;
    case Dirichlet:
      GD.execute(xl, p, gl);
      break;
    case Areas:
      GA.execute(xl, p, gl);
      break;
    case Tets:
      GT.execute(xl, p, gl);
      break;
    }
    for (int I = 0; I < A * S; ++I)
      G[S * Pb.Idx[A * T + I / S] + I % S] += gl[I];
  }
}

/// Springs along the edges of a 3x3 grid in 3D (12 springs, 9 vertices).
static Problem springGrid(mt::RandomInputs &Rng) {
  Problem Pb{"springs", {Springs, 2, 3, 2}, {}, {}, {}};
  for (int V = 0; V < 9; ++V)
    Pb.X.insert(Pb.X.end(), {double(V % 3), double(V / 3), 0.0});
  jiggle(Rng, Pb.X, 0.1);
  for (int V = 0; V < 9; ++V) {
    if (V % 3 < 2)
      Pb.Idx.insert(Pb.Idx.end(), {V, V + 1});
    if (V / 3 < 2)
      Pb.Idx.insert(Pb.Idx.end(), {V, V + 3});
  }
  for (int T = 0; T < Pb.numElements(); ++T)
    Pb.P.insert(Pb.P.end(), {Rng.uniform(1, 2), Rng.uniform(0.5, 1.5)});
  return Pb;
}

/// Symmetric Dirichlet on the 8 triangles of a 3x3 grid in 2D.
static Problem dirichletGrid(mt::RandomInputs &Rng) {
  Problem Pb{"dirichlet", {Dirichlet, 3, 2, 5}, {}, {}, {}};
  for (int V = 0; V < 9; ++V)
    Pb.X.insert(Pb.X.end(), {double(V % 3), double(V / 3)});
  std::vector<double> Rest = Pb.X;
  jiggle(Rng, Pb.X, 0.05);
  for (int Q = 0; Q < 4; ++Q) {
    int V = Q % 2 + 3 * (Q / 2);
    Pb.Idx.insert(Pb.Idx.end(), {V, V + 1, V + 4, V, V + 4, V + 3});
  }
  for (int T = 0; T < Pb.numElements(); ++T) {
    std::vector<double> Inv =
        inverse(restEdges(Rest, &Pb.Idx[3 * T], 2).data(), 2);
    Pb.P.insert(Pb.P.end(), Inv.begin(), Inv.end());
    Pb.P.push_back(Rng.uniform(0.5, 1.5));
  }
  return Pb;
}

/// Weighted areas of the 20 triangles of an icosahedron in 3D.
static Problem areaSphere(mt::RandomInputs &Rng) {
  const double G = (1 + std::sqrt(5.0)) / 2;
  Problem Pb{"areas", {Areas, 3, 3, 1}, {}, {}, {}};
  Pb.X = {-1, G,  0,  1, G, 0,  -1, -G, 0,  1, -G, 0, 0,  -1, G,  0,  1, G,
          0,  -1, -G, 0, 1, -G, G,  0,  -1, G, 0,  1, -G, 0,  -1, -G, 0, 1};
  jiggle(Rng, Pb.X, 0.3);
  Pb.Idx = {0, 11, 5,  0, 5,  1, 0, 1, 7, 0, 7,  10, 0, 10, 11, 1, 5, 9, 5, 11,
            4, 11, 10, 2, 10, 7, 6, 7, 1, 8, 3,  9,  4, 3,  4,  2, 3, 2, 6, 3,
            6, 8,  3,  8, 9,  4, 9, 5, 2, 4, 11, 6,  2, 10, 8,  6, 7, 9, 8, 1};
  for (int T = 0; T < Pb.numElements(); ++T)
    Pb.P.push_back(Rng.uniform(0.5, 1.5));
  return Pb;
}

/// Neo-Hookean tets: two unit cubes side by side (12 vertices), 6 tets
/// each along the cube's diagonal.
static Problem tetBlock(mt::RandomInputs &Rng) {
  Problem Pb{"tets", {Tets, 4, 3, 11}, {}, {}, {}};
  auto Vertex = [](int I, int J, int K) { return I + 3 * J + 6 * K; };
  for (int V = 0; V < 12; ++V)
    Pb.X.insert(Pb.X.end(), {double(V % 3), double(V / 3 % 2), double(V / 6)});
  std::vector<double> Rest = Pb.X;
  jiggle(Rng, Pb.X, 0.03);
  const int Axes[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2},
                          {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  for (int C = 0; C < 2; ++C)
    for (const auto &Ax : Axes) {
      int P[3] = {C, 0, 0};
      Pb.Idx.push_back(Vertex(P[0], P[1], P[2]));
      for (int Step = 0; Step < 3; ++Step) {
        ++P[Ax[Step]];
        Pb.Idx.push_back(Vertex(P[0], P[1], P[2]));
      }
    }
  for (int T = 0; T < Pb.numElements(); ++T) {
    std::vector<double> Inv =
        inverse(restEdges(Rest, &Pb.Idx[4 * T], 3).data(), 3);
    Pb.P.insert(Pb.P.end(), Inv.begin(), Inv.end());
    Pb.P.insert(Pb.P.end(), {Rng.uniform(0.5, 1.5), Rng.uniform(0.5, 1.5)});
  }
  return Pb;
}

/// The local Hessian on the host (the same generated function).
static void hostLocalHessian(Kind K, const double *x, const double *p,
                             double *H) {
  switch (K) {
  case Springs:
    spring_hessian_0(x, p, H);
    break;
  case Dirichlet:
    dirichlet_hessian_0(x, p, H);
    break;
  case Areas:
    area_hessian_0(x, p, H);
    break;
  case Tets:
    neoHookean_hessian_0(x, p, H);
    break;
  }
}

/// The reference: dense assembly of the local Hessians, N x N.
static std::vector<double> denseAssembly(const Problem &Pb) {
  int N = Pb.dofs(), A = Pb.El.Arity, S = Pb.El.S, K = A * S;
  std::vector<double> D(N * N, 0.0);
  for (int T = 0; T < Pb.numElements(); ++T) {
    double xl[12], Hl[144];
    for (int I = 0; I < K; ++I)
      xl[I] = Pb.X[S * Pb.Idx[A * T + I / S] + I % S];
    hostLocalHessian(Pb.El.K, xl, Pb.P.data() + Pb.El.NumParams * T, Hl);
    for (int I = 0; I < K; ++I)
      for (int J = 0; J < K; ++J)
        D[(S * Pb.Idx[A * T + I / S] + I % S) * N + S * Pb.Idx[A * T + J / S] +
          J % S] += Hl[I * K + J];
  }
  return D;
}

static void check(bool Ok, const std::string &What) {
  MESHAD_CHECK_CLOSE(What.c_str(), Ok ? 1.0 : 0.0, 1.0);
}

/// The pattern has a block for each vertex pair that shares an element,
/// rows sorted, and each slot names the block of its pair.
static bool patternIsPairs(const HessianPatternArrays &P,
                           const std::vector<int> &Idx, int A, int NV) {
  std::set<std::pair<int, int>> Pairs;
  for (size_t T = 0; T < Idx.size() / A; ++T)
    for (int I = 0; I < A; ++I)
      for (int J = 0; J < A; ++J)
        Pairs.insert({Idx[A * T + I], Idx[A * T + J]});
  if (P.BlockColumns.size() != Pairs.size() ||
      P.BlockRowOffsets[NV] != int(Pairs.size()))
    return false;
  size_t B = 0;
  for (auto [R, C] : Pairs) {
    if (P.BlockRows[B] != R || P.BlockColumns[B] != C ||
        B < size_t(P.BlockRowOffsets[R]) ||
        B >= size_t(P.BlockRowOffsets[R + 1]))
      return false;
    ++B;
  }
  for (size_t S = 0; S < P.SlotBlocks.size(); ++S) {
    size_t T = S / (A * A);
    int Blk = P.SlotBlocks[S];
    if (P.BlockRows[Blk] != Idx[A * T + S / A % A] ||
        P.BlockColumns[Blk] != Idx[A * T + S % A])
      return false;
  }
  return true;
}

/// The values of one format as a dense N x N matrix (NaN where no entry).
static std::vector<double> toDense(SparseHessian<double> &H, SparseFormat F,
                                   const HessianPatternArrays &P, int N) {
  int S = H.blockSize();
  std::vector<double> Vals(H.nnz()), D(N * N, 0.0);
  cudaMemcpy(Vals.data(), H.values(), Vals.size() * sizeof(double),
             cudaMemcpyDeviceToHost);
  if (F == SparseFormat::Bsr) {
    for (size_t B = 0; B < P.BlockColumns.size(); ++B)
      for (int K = 0; K < S; ++K)
        for (int L = 0; L < S; ++L)
          D[(S * P.BlockRows[B] + K) * N + S * P.BlockColumns[B] + L] =
              Vals[(B * S + K) * S + L];
    return D;
  }
  std::vector<int> Off(N + 1), Col(H.nnz());
  cudaMemcpy(Off.data(), H.csrRowOffsets(), Off.size() * sizeof(int),
             cudaMemcpyDeviceToHost);
  cudaMemcpy(Col.data(), H.csrColumns(), Col.size() * sizeof(int),
             cudaMemcpyDeviceToHost);
  for (int R = 0; R < N; ++R)
    for (int E = Off[R]; E < Off[R + 1]; ++E) {
      if (E > Off[R] && Col[E] <= Col[E - 1])
        return {};
      D[R * N + Col[E]] = Vals[E];
    }
  return D;
}

/// Assembles into H in format F, atomically or deterministically, and the
/// gradient into G in the same launch.
static void run(const Problem &Pb, SparseHessian<double> &H, SparseFormat F,
                bool Deterministic, mt::DeviceArray<double> &X,
                mt::DeviceArray<int> &Idx, mt::DeviceArray<double> &P,
                mt::DeviceArray<double> &G) {
  int NE = Pb.numElements();
  H.zero();
  G.zero();
  double *Out = Deterministic ? H.slotValues() : H.values();
  MESHAD_LAUNCH(assemble, (NE + 31) / 32, 32)
  (Pb.El, X.device(), Idx.device(), P.device(), NE, H.slots(F), Deterministic,
   Out, G.device());
  mt::checkLaunch("assemble");
  if (Deterministic)
    H.sumSlots(F);
  G.download();
}

static void checkProblem(const Problem &Pb) {
  std::string Name = Pb.Name;
  int N = Pb.dofs(), NV = Pb.numVertices(), A = Pb.El.Arity;
  mt::DeviceArray<double> X(N), P(Pb.P.size());
  mt::DeviceArray<int> Idx(Pb.Idx.size());
  std::copy(Pb.X.begin(), Pb.X.end(), X.host());
  std::copy(Pb.P.begin(), Pb.P.end(), P.host());
  std::copy(Pb.Idx.begin(), Pb.Idx.end(), Idx.host());
  X.upload(), P.upload(), Idx.upload();
  SparseHessian<double> H(Idx.device(), Pb.numElements(), A, NV, Pb.El.S);
  HessianPatternArrays Pat = H.toHost();
  HessianPatternArrays Ref =
      buildHessianPatternOnHost(Pb.Idx.data(), Pb.numElements(), A, NV);
  check(patternIsPairs(Pat, Pb.Idx, A, NV),
        Name + ": pattern is the vertex pairs of the elements");
  check(Pat.SlotBlocks == Ref.SlotBlocks && Pat.BlockSlots == Ref.BlockSlots &&
            Pat.BlockRowOffsets == Ref.BlockRowOffsets,
        Name + ": device pattern as the host reference");
  int Single = 0;
  for (size_t B = 0; B < Ref.BlockColumns.size(); ++B)
    Single += Ref.SlotOffsets[B + 1] - Ref.SlotOffsets[B] == 1;
  check(Single == H.numSingleOwnerBlocks(),
        Name + ": " + std::to_string(Single) + " single-owner blocks of " +
            std::to_string(H.numBlocks()));
  std::printf("%s: %s\n", Pb.Name, H.remark(Accumulation::Atomic).c_str());
  std::printf("%s: %s\n", Pb.Name,
              H.remark(Accumulation::Deterministic).c_str());
  std::vector<double> Dense = denseAssembly(Pb), WantG(N, 0.0);
  globalGradient(Pb, Pb.X.data(), WantG.data());
  mt::DeviceArray<double> G(N);
  double Scale = 0;
  for (double V : Dense)
    Scale = std::max(Scale, std::fabs(V));
  std::vector<double> Det[2];
  for (SparseFormat F : {SparseFormat::Bsr, SparseFormat::Csr})
    for (bool Deterministic : {false, true}) {
      std::string Tag = Name + (F == SparseFormat::Bsr ? ": bsr" : ": csr") +
                        (Deterministic ? " deterministic" : " atomic");
      run(Pb, H, F, Deterministic, X, Idx, P, G);
      std::vector<double> Got = toDense(H, F, Pat, N);
      for (int I = 0; I < N; ++I)
        MESHAD_CHECK_CLOSE(
            (Tag + " gradient[" + std::to_string(I) + "]").c_str(), G[I],
            WantG[I]);
      check(Got.size() == Dense.size(), Tag + " columns increasing per row");
      double Err = 0;
      for (size_t I = 0; I < Got.size(); ++I) // NaN-propagating
        if (!(std::fabs(Got[I] - Dense[I]) <= Err))
          Err = std::fabs(Got[I] - Dense[I]);
      MESHAD_CHECK_CLOSE_TOL((Tag + " as dense assembly").c_str(), Err + Scale,
                             Scale, 1e-13);
      if (!Deterministic)
        continue;
      Det[F == SparseFormat::Csr] = Got;
      bool Same = true;
      for (int Again = 0; Again < 3; ++Again) {
        run(Pb, H, F, true, X, Idx, P, G);
        std::vector<double> Next = toDense(H, F, Pat, N);
        Same &= std::memcmp(Next.data(), Got.data(),
                            Got.size() * sizeof(double)) == 0;
      }
      check(Same, Tag + " bitwise reproducible");
    }
  check(Det[0] == Det[1], Name + ": deterministic bsr and csr equal bitwise");
  mt::checkHessian(
      Name, Pb.X, 0, N,
      [&](double *, double *Out) {
        std::copy(Dense.begin(), Dense.end(), Out);
      },
      [&](double *Q, double *G) { globalGradient(Pb, Q, G); });
}

/// The pattern rebuilt after the connectivity changed (the springs' grid
/// with its diagonals), and an index out of range as an error.
static void checkRebuildAndErrors(const Problem &Springs3) {
  std::vector<int> Idx = Springs3.Idx;
  for (int V : {0, 1, 3, 4})
    Idx.insert(Idx.end(), {V, V + 4});
  int NV = Springs3.numVertices(), NE = static_cast<int>(Idx.size()) / 2;
  mt::DeviceArray<int> DIdx(Idx.size());
  std::copy(Idx.begin(), Idx.end(), DIdx.host());
  DIdx.upload();
  SparseHessian<double> H(DIdx.device(), Springs3.numElements(), 2, NV, 3);
  H.rebuild(DIdx.device(), NE, 2, NV, 3);
  check(H.matches(NE, 2, NV, 3) && patternIsPairs(H.toHost(), Idx, 2, NV) &&
            H.numBlocks() == 9 + 2 * NE,
        "springs: rebuilt after the connectivity changed");
  SparseHessian<double> Empty(DIdx.device(), 0, 2, NV, 3);
  std::vector<int> Rows(3 * NV + 1, -1);
  cudaMemcpy(Rows.data(), Empty.csrRowOffsets(), Rows.size() * sizeof(int),
             cudaMemcpyDeviceToHost);
  Empty.sumSlots(SparseFormat::Csr);
  check(Empty.numBlocks() == 0 && Empty.nnz() == 0 &&
            std::count(Rows.begin(), Rows.end(), 0) == 3 * NV + 1,
        "no elements: an empty pattern");
  DIdx[3] = NV;
  DIdx.upload();
  try {
    H.rebuild(DIdx.device(), NE, 2, NV, 3);
    check(false, "an index out of range is an error");
  } catch (const MeshError &E) {
    std::printf("error: %s\n", E.what());
  }
  check(!H.matches(NE, 2, NV, 3) && H.numBlocks() == 0,
        "a failed rebuild leaves no pattern");
}

int main() {
  mt::RandomInputs Rng;
  std::vector<Problem> All = {springGrid(Rng), dirichletGrid(Rng),
                              areaSphere(Rng), tetBlock(Rng)};
  for (const Problem &Pb : All)
    checkProblem(Pb);
  checkRebuildAndErrors(All[0]);
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: PASS springs: pattern is the vertex pairs of the elements
// NUM: PASS springs: 24 single-owner blocks of 33
// NUM: springs: sparse Hessian: 33 blocks of 3x3 (297 values), 24 with one owner (plain stores), 9 shared (atomicAdd)
// NUM: springs: sparse Hessian: 33 blocks of 3x3 (297 values), each the sum of its slots in a fixed order (deterministic)
// NUM: dirichlet: sparse Hessian: 41 blocks of 2x2 (164 values), 18 with one owner (plain stores), 23 shared (atomicAdd)
// NUM: PASS tets: bsr deterministic bitwise reproducible
// NUM: PASS no elements: an empty pattern
// NUM: error: sparse Hessian: index[3] = 9 is not a vertex (9 vertices)
// NUM: PASS a failed rebuild leaves no pattern
// NUM: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
