// A problem's term that is a plain CUDA element kernel
// (meshad/runtime/solve/ElementKernelTerm.h): StVK springs written as a
// kernel (atomicAdd of each edge's energy), whose gradient and sparse
// Hessian meshad::hessian(kernel, "x") generates, next to anchors as an
// ElementTerm. Checked: its derivatives against central differences; its
// energy, gradient and Hessian against the same springs as a hand-written
// ElementTerm (a local energy with MESHAD_HESSIAN); Newton with each to the
// same minimum (Newton with AdaptiveProjection: the exact Hessian near the
// minimum). Problem::setDeterministic: the gradient and the Hessian of
// both problems bitwise equal over repeated evaluations and a new problem,
// and equal to the atomic ones to rounding. ElementTerm<Local, float>: the
// float problem's gradient and Hessian against the double problem's, and
// Newton in float to the double minimum: to a gradient tolerance float can
// meet, and to one it cannot (0), where the solve must end at the round-off
// floor (StopReason::RoundOff), not on a line-search failure or a zero
// energy decrease (the GPU's "newton float converged got 0" of session 5,
// reproduced here by the unreachable tolerance), at the same minimum. On
// the CPU emulation; also on a GPU (scripts/gpu/tests.txt).
//
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "SolveCheck.h"
#include <cstring>
#include <meshad/Differentiator.h>
#include <meshad/ElementHessian.h>
#include <meshad/runtime/solve/ElementKernelTerm.h>
#include <meshad/runtime/solve/Minimize.h>

/// StVK springs, P = (k, rest length) per edge: k r (|d|^2 / r^2 - 1)^2 / 8.
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
    double r = P[2 * e + 1], s = l2 / (r * r) - 1;
    atomicAdd(E, 0.125 * P[2 * e] * r * s * s);
  }
}

/// The same spring as a local energy (hand-written term).
MESHAD_HESSIAN("x[0:6]")
__host__ __device__ double spring(const double *x, const double *p) {
  double l2 = 0;
  for (int k = 0; k < 3; ++k) {
    double d = x[k] - x[3 + k];
    l2 += d * d;
  }
  double s = l2 / (p[1] * p[1]) - 1;
  return 0.125 * p[0] * p[1] * s * s;
}

/// An anchor and gravity, p = (k, a_x, a_y, a_z, weight).
MESHAD_HESSIAN("x[0:3]")
__host__ __device__ double anchor(const double *x, const double *p) {
  double dx = x[0] - p[1], dy = x[1] - p[2], dz = x[2] - p[3];
  return 0.5 * p[0] * (dx * dx + dy * dy + dz * dz) + p[4] * x[2];
}

/// Float instances of the two local energies.
MESHAD_HESSIAN("x[0:6]")
__host__ __device__ float springF(const float *x, const float *p) {
  float l2 = 0;
  for (int k = 0; k < 3; ++k) {
    float d = x[k] - x[3 + k];
    l2 += d * d;
  }
  float s = l2 / (p[1] * p[1]) - 1;
  return 0.125f * p[0] * p[1] * s * s;
}
MESHAD_HESSIAN("x[0:3]")
__host__ __device__ float anchorF(const float *x, const float *p) {
  float dx = x[0] - p[1], dy = x[1] - p[2], dz = x[2] - p[3];
  return 0.5f * p[0] * (dx * dx + dy * dy + dz * dz) + p[4] * x[2];
}

// The local energies of the terms (meshad/runtime/solve/Term.h).
struct Spring {
  static constexpr int Arity = 2, Dofs = 3;
  __device__ static double energy(const double *x, const double *p) {
    return spring(x, p);
  }
  __device__ static void gradient(const double *x, const double *p, double *g) {
    spring_grad_0(x, p, g);
  }
  __device__ static void hessian(const double *x, const double *p, double *H) {
    spring_hessian_0(x, p, H);
  }
};
struct Anchor {
  static constexpr int Arity = 1, Dofs = 3;
  __device__ static double energy(const double *x, const double *p) {
    return anchor(x, p);
  }
  __device__ static void gradient(const double *x, const double *p, double *g) {
    anchor_grad_0(x, p, g);
  }
  __device__ static void hessian(const double *x, const double *p, double *H) {
    anchor_hessian_0(x, p, H);
  }
};
struct SpringFloat {
  static constexpr int Arity = 2, Dofs = 3;
  __device__ static float energy(const float *x, const float *p) {
    return springF(x, p);
  }
  __device__ static void gradient(const float *x, const float *p, float *g) {
    springF_grad_0(x, p, g);
  }
  __device__ static void hessian(const float *x, const float *p, float *H) {
    springF_hessian_0(x, p, H);
  }
};
struct AnchorFloat {
  static constexpr int Arity = 1, Dofs = 3;
  __device__ static float energy(const float *x, const float *p) {
    return anchorF(x, p);
  }
  __device__ static void gradient(const float *x, const float *p, float *g) {
    anchorF_grad_0(x, p, g);
  }
  __device__ static void hessian(const float *x, const float *p, float *H) {
    anchorF_hessian_0(x, p, H);
  }
};

using namespace meshad::runtime::solve;
using meshad::runtime::ElementList;
namespace mt = meshad::test;

/// A 5 x 4 grid in the xy plane, springs on the edges and one diagonal per
/// cell (rest lengths 0.8-1.2 times the grid's), an anchor per vertex.
struct Net {
  static constexpr int NX = 5, NY = 4, NV = NX * NY;
  DeviceBuffer<int> Edges, Verts;
  DeviceBuffer<double> SpringP, AnchorP;
  DeviceBuffer<float> SpringPF, AnchorPF;
  std::vector<double> X0;
  int NE = 0;
  explicit Net(mt::RandomInputs &Rng) {
    std::vector<int> E, V;
    std::vector<double> SP, AP;
    for (int Y = 0; Y < NY; ++Y)
      for (int X = 0; X < NX; ++X) {
        int I = Y * NX + X;
        V.push_back(I);
        if (X + 1 < NX)
          E.insert(E.end(), {I, I + 1});
        if (Y + 1 < NY)
          E.insert(E.end(), {I, I + NX});
        if (X + 1 < NX && Y + 1 < NY)
          E.insert(E.end(), {I, I + NX + 1});
        X0.insert(X0.end(), {X + Rng.uniform(-0.2, 0.2),
                             Y + Rng.uniform(-0.2, 0.2), Rng.uniform(-0.3, 0.3)});
        AP.insert(AP.end(), {Rng.uniform(0.05, 0.2), double(X), double(Y),
                             0.0, Rng.uniform(0.01, 0.05)});
      }
    NE = static_cast<int>(E.size() / 2);
    for (int K = 0; K < NE; ++K) {
      int A = E[2 * K], B = E[2 * K + 1];
      double L = std::hypot(A % NX - B % NX, A / NX - B / NX);
      SP.insert(SP.end(), {Rng.uniform(1, 3), L * Rng.uniform(0.8, 1.2)});
    }
    Edges.upload(E);
    Verts.upload(V);
    SpringP.upload(SP);
    AnchorP.upload(AP);
    SpringPF.upload(std::vector<float>(SP.begin(), SP.end()));
    AnchorPF.upload(std::vector<float>(AP.begin(), AP.end()));
  }

  void addHandWritten(Problem<double> &P) {
    P.add<Spring>(Edges.data(), NE, SpringP.data(), 2);
    P.add<Anchor>(Verts.data(), NV, AnchorP.data(), 5);
  }
  void addKernel(Problem<double> &P) {
    auto H = meshad::hessian(springs, "x");
    int N = NE;
    const int *Ed = Edges.data();
    const double *Prm = SpringP.data();
    P.add(elementKernelTerm<double>(
        H, springs, ElementList{Ed, N, 2}, 3,
        [=](const double *X, double *E) {
          return std::make_tuple(N, Ed, X, Prm, E);
        }));
    P.add<Anchor>(Verts.data(), NV, AnchorP.data(), 5);
  }
  void addFloat(Problem<float> &P) {
    P.add<SpringFloat>(Edges.data(), NE, SpringPF.data(), 2);
    P.add<AnchorFloat>(Verts.data(), NV, AnchorPF.data(), 5);
  }
};

/// Energy, gradient and unprojected Hessian of P at X (host copies).
template <class T> struct Evaluation {
  double E = 0;
  std::vector<T> G, H;
  Evaluation(Problem<T> &P, const std::vector<T> &X) {
    DeviceBuffer<T> DX, DG(P.numDofs());
    DX.upload(X);
    E = P.energy(DX.data());
    P.gradient(DX.data(), DG.data());
    G = DG.download();
    CsrView<T> A = P.hessian(DX.data(), false);
    H.resize(P.matrix().nnz());
    cudaMemcpy(H.data(), A.Values, H.size() * sizeof(T),
               cudaMemcpyDeviceToHost);
  }
};

/// max |A - B| / max |B| as one check against a bound.
template <class T, class U>
static void checkNear(const std::string &Name, const std::vector<T> &A,
                      const std::vector<U> &B, double Bound) {
  double Diff = 0, Scale = 0;
  for (size_t I = 0; I < B.size(); ++I) {
    Diff = std::max(Diff, std::fabs(double(A[I]) - double(B[I])));
    Scale = std::max(Scale, std::fabs(double(B[I])));
  }
  std::printf("%s: max difference %.2e (scale %.2e)\n", Name.c_str(), Diff,
              Scale);
  MESHAD_CHECK_CLOSE_TOL(Name, 1 + Diff / Scale, 1.0, Bound);
}

template <class T>
static bool bitwiseEqual(const std::vector<T> &A, const std::vector<T> &B) {
  return A.size() == B.size() &&
         std::memcmp(A.data(), B.data(), A.size() * sizeof(T)) == 0;
}

/// Newton from X0 to |g| <= Tolerance (projected Hessians; the exact one
/// near the minimum when Adaptive); returns the minimum.
template <class T>
static std::vector<T> solve(const char *Name, Problem<T> &P,
                            const std::vector<T> &X0, double Tolerance,
                            bool Adaptive = false,
                            StopReason Expected = StopReason::GradientTolerance) {
  SolveOptions<T> O;
  O.Quiet = true;
  O.GradientTolerance = Tolerance;
  O.AdaptiveProjection = Adaptive;
  O.Cg = CgOptions{1e-12, 1000};
  DeviceBuffer<T> DX;
  DX.upload(X0);
  SolveReport R = newton(P, DX.data(), O);
  std::printf("%s: %s after %d iterations (%d on the exact Hessian), E = "
              "%.10e, |g| = %.2e\n",
              Name, toString(R.Reason), R.Iterations, R.ExactHessianSteps,
              R.Energy, R.GradientNorm);
  MESHAD_CHECK_CLOSE((std::string(Name) + " converged").c_str(),
                     double(R.Reason == Expected), 1.0);
  if (Adaptive) // near the minimum, steps on the exact Hessian
    MESHAD_CHECK_CLOSE((std::string(Name) + " exact Hessian steps").c_str(),
                       double(R.ExactHessianSteps > 0), 1.0);
  int Increases = 0; // beyond the energy's round-off in T (Armijo's slack)
  for (size_t K = 1; K < R.Energies.size(); ++K)
    Increases += R.Energies[K] > R.Energies[K - 1] +
                                     8 * std::numeric_limits<T>::epsilon() *
                                         std::fabs(R.Energies[K - 1]);
  MESHAD_CHECK_CLOSE_TOL((std::string(Name) + " energy decreases").c_str(),
                         double(Increases), 0.0, 0);
  return DX.download();
}

static void checkDeterministic(Net &N, const std::vector<double> &X) {
  for (bool Kernel : {false, true}) {
    std::string Tag = Kernel ? "kernel term" : "hand-written term";
    auto Make = [&](Problem<double> &P) {
      Kernel ? N.addKernel(P) : N.addHandWritten(P);
      P.setDeterministic(true);
    };
    Problem<double> P(Net::NV, 3), Again(Net::NV, 3), Atomic(Net::NV, 3);
    Make(P);
    Make(Again);
    Kernel ? N.addKernel(Atomic) : N.addHandWritten(Atomic);
    Evaluation<double> First(P, X), Second(P, X), Third(Again, X),
        Plain(Atomic, X);
    bool Same = bitwiseEqual(First.G, Second.G) &&
                bitwiseEqual(First.H, Second.H) &&
                bitwiseEqual(First.G, Third.G) && bitwiseEqual(First.H, Third.H);
    MESHAD_CHECK_CLOSE((Tag + " deterministic: bitwise equal").c_str(),
                       double(Same), 1.0);
    checkNear(Tag + " deterministic gradient = atomic", First.G, Plain.G, 1e-14);
    checkNear(Tag + " deterministic Hessian = atomic", First.H, Plain.H, 1e-14);
  }
}

/// The float problem against the double one at the same point, and its
/// Newton minimum against the double minimum.
static void checkFloat(Net &N, Problem<double> &Ref,
                       const std::vector<double> &X,
                       const std::vector<double> &XStar) {
  Problem<float> P(Net::NV, 3);
  N.addFloat(P);
  std::vector<float> XF(X.begin(), X.end());
  std::vector<double> XR(XF.begin(), XF.end()); // the same point in double
  Evaluation<float> F(P, XF);
  Evaluation<double> D(Ref, XR);
  MESHAD_CHECK_CLOSE("float energy", F.E, D.E);
  checkNear("float gradient", F.G, D.G, 1e-5);
  checkNear("float Hessian", F.H, D.H, 1e-5);
  // Stopped at |g| <= 5e-5, the float minimum is within |g| / 0.05 (the
  // weakest anchor) = 1e-3 of the double one, 2.5e-4 of the scale (about 4).
  std::vector<float> Min = solve("newton float", P, XF, 5e-5, true);
  checkNear("float minimum", Min, XStar, 2.5e-4);
  // A tolerance float cannot meet: the gradient's round-off floor (the
  // float iterate's own rounding times the stiffness, about 2e-6 here)
  // stops it. Projected Newton (linear here) as on the GPU run.
  Min = solve("newton float to round-off", P, XF, 0, false,
              StopReason::RoundOff);
  checkNear("float minimum at round-off", Min, XStar, 2.5e-4);
  MESHAD_CHECK_CLOSE("converged(RoundOff)",
                     double(converged(StopReason::RoundOff)), 1.0);
}

int main() {
  (void)meshad::gradient(spring, "x");
  (void)meshad::gradient(anchor, "x");
  (void)meshad::gradient(springF, "x");
  (void)meshad::gradient(anchorF, "x");
  mt::RandomInputs Rng;
  Net N(Rng);
  Problem<double> Hand(Net::NV, 3), Kernel(Net::NV, 3);
  N.addHandWritten(Hand);
  N.addKernel(Kernel);
  mt::checkProblemDerivatives("kernel term", Kernel, N.X0, Rng);
  Evaluation<double> A(Hand, N.X0), B(Kernel, N.X0);
  MESHAD_CHECK_CLOSE("kernel energy = hand-written", B.E, A.E);
  checkNear("kernel gradient = hand-written", B.G, A.G, 1e-13);
  checkNear("kernel Hessian = hand-written", B.H, A.H, 1e-13);
  // Adaptive projection: projected Newton alone is linear on these springs
  // (some compressed, their element Hessians indefinite) and, on some
  // seeds, meets neither 1e-8 nor its iteration limit.
  std::vector<double> XHand =
      solve("newton hand-written", Hand, N.X0, 1e-8, true);
  std::vector<double> XKernel =
      solve("newton kernel term", Kernel, N.X0, 1e-8, true);
  checkNear("kernel minimum = hand-written", XKernel, XHand, 1e-8);
  checkDeterministic(N, N.X0);
  checkFloat(N, Hand, N.X0, XHand);
  return mt::summary();
}
// CHECK-LABEL: __host__ __device__ void spring_hessian_0(const double *x, const double *p, double *H) {
// CHECK-LABEL: __host__ __device__ void anchor_hessian_0(const double *x, const double *p, double *H) {
// CHECK-LABEL: __host__ __device__ void springF_hessian_0(const float *x, const float *p, float *H) {
// CHECK-LABEL: __host__ __device__ void anchorF_hessian_0(const float *x, const float *p, float *H) {
// CHECK-LABEL: __device__ double springs_element(int n, const int *edges, const double *P, int e, const double *x) {
// CHECK-LABEL: __device__ void springs_element_hessian(int n, const int *edges, const double *P, int e, const double *x, double *H) {
// CHECK-LABEL: __device__ void springs_element_grad(int n, const int *edges, const double *P, int e, const double *x, double _d_y, double *_d_x) {
// CHECK-LABEL: __global__ void springs_hessian(int n, const int *edges, const double *x, const double *P, double *E, meshad::ElementAssembly<double> assembly) {
// CHECK-LABEL: __host__ __device__ void spring_grad_0(const double *x, const double *p, double *_d_x) {
// CHECK-LABEL: __host__ __device__ void anchor_grad_0(const double *x, const double *p, double *_d_x) {
// CHECK-LABEL: __host__ __device__ void springF_grad_0(const float *x, const float *p, float *_d_x) {
// CHECK-LABEL: __host__ __device__ void anchorF_grad_0(const float *x, const float *p, float *_d_x) {
// NUM-NOT: FAIL
// NUM: newton hand-written: gradient tolerance
// NUM: newton kernel term: gradient tolerance
// NUM: newton float: gradient tolerance
// NUM: newton float to round-off: round-off floor
// NUM: numeric checks: {{[1-9][0-9]*}} passed, 0 failed
