// The sparse Cholesky kept across Newton iterations
// (meshad/runtime/solve/SparseCholesky.h, SolveOptions::Linear = Cholesky)
// on a 2D spring network: an S x S grid of vertices (2 DOFs each), springs
// on the grid's edges and diagonals with random rest lengths, each vertex
// pulled towards a displaced target. The local gradients and Hessians are
// meshad's, checked against central differences through the problem. Then:
// the reverse Cuthill-McKee order is a permutation that narrows a shuffled
// grid's bandwidth; the factor's solves equal a dense solve on several
// matrices of one pattern, analyzed once; an indefinite matrix is refused;
// float; Newton with the Cholesky reaches PCG's minimum in a few iterations
// that do not grow with the grid (8, 16, 32), the pattern analyzed once per
// solve. On the CPU emulation; also in the GPU suite (with cuSOLVER).
//
// GPU-BUILD: -DMESHAD_SOLVE_CUSOLVER -lcusolver -lcusparse
// RUN: %clangxx %cpu_cuda_flags -fplugin=%meshad_plugin -fplugin-arg-meshad-dump -I%test_inputs %s -o %t 2> %t.dump
// RUN: FileCheck %s < %t.dump
// RUN: %t | FileCheck %s --check-prefix=NUM
#include "SolveCheck.h"
#include <meshad/Differentiator.h>
#include <meshad/runtime/solve/Minimize.h>

#include <numeric>

/// A spring in 2D: 0.5 k (|x_a - x_b| - L)^2, p = (k, L).
MESHAD_HESSIAN("x[0:4]")
__host__ __device__ double spring2(const double *x, const double *p) {
  double dx = x[0] - x[2], dy = x[1] - x[3];
  double s = sqrt(dx * dx + dy * dy) - p[1];
  return 0.5 * p[0] * s * s;
}
// CHECK-LABEL: __host__ __device__ void spring2_hessian_0(const double *x, const double *p, double *H) {

/// A pull towards a target: 0.5 k |x - t|^2, p = (k, t_x, t_y).
MESHAD_HESSIAN("x[0:2]")
__host__ __device__ double pull(const double *x, const double *p) {
  double dx = x[0] - p[1], dy = x[1] - p[2];
  return 0.5 * p[0] * (dx * dx + dy * dy);
}
// CHECK-LABEL: __host__ __device__ void pull_hessian_0(const double *x, const double *p, double *H) {
// CHECK-LABEL: __host__ __device__ void spring2_grad_0(const double *x, const double *p, double *_d_x) {
// CHECK-LABEL: __host__ __device__ void pull_grad_0(const double *x, const double *p, double *_d_x) {

struct Spring2 {
  static constexpr int Arity = 2, Dofs = 2;
  __device__ static double energy(const double *x, const double *p) {
    return spring2(x, p);
  }
  __device__ static void gradient(const double *x, const double *p, double *g) {
    spring2_grad_0(x, p, g);
  }
  __device__ static void hessian(const double *x, const double *p, double *H) {
    spring2_hessian_0(x, p, H);
  }
};

struct Pull {
  static constexpr int Arity = 1, Dofs = 2;
  __device__ static double energy(const double *x, const double *p) {
    return pull(x, p);
  }
  __device__ static void gradient(const double *x, const double *p, double *g) {
    pull_grad_0(x, p, g);
  }
  __device__ static void hessian(const double *x, const double *p, double *H) {
    pull_hessian_0(x, p, H);
  }
};

using namespace meshad::runtime::solve;
namespace mt = meshad::test;

/// The network on an S x S grid of spacing 1 / (S - 1): stiff springs (k
/// 100) of rest length 0.8 .. 1.2 times their length, weak pulls (k 0.01
/// per vertex) towards the grid shifted and sheared.
struct Network {
  int S, NV;
  DeviceBuffer<int> Edges, Verts;
  DeviceBuffer<double> SpringP, PullP, X;
  std::vector<double> Rest;
  Problem<double> P;

  Network(int S, mt::RandomInputs &Rng) : S(S), NV(S * S), P(S * S, 2) {
    double H = 1.0 / (S - 1);
    std::vector<int> E, V(NV);
    std::vector<double> SP, PP;
    for (int J = 0; J < S; ++J)
      for (int I = 0; I < S; ++I) {
        int A = J * S + I;
        Rest.insert(Rest.end(), {I * H, J * H});
        if (I + 1 < S)
          E.insert(E.end(), {A, A + 1});
        if (J + 1 < S)
          E.insert(E.end(), {A, A + S});
        if (I + 1 < S && J + 1 < S)
          E.insert(E.end(), {A, A + S + 1});
      }
    for (size_t K = 0; K < E.size(); K += 2) {
      double L = std::hypot(Rest[2 * E[K]] - Rest[2 * E[K + 1]],
                            Rest[2 * E[K] + 1] - Rest[2 * E[K + 1] + 1]);
      SP.insert(SP.end(), {100.0, L * Rng.uniform(0.8, 1.2)});
    }
    for (int I = 0; I < NV; ++I) {
      V[I] = I;
      double X0 = Rest[2 * I], Y0 = Rest[2 * I + 1];
      PP.insert(PP.end(), {0.01, X0 + 0.3 * Y0 + 0.1, Y0 - 0.2});
    }
    Edges.upload(E);
    Verts.upload(V);
    SpringP.upload(SP);
    PullP.upload(PP);
    X.upload(Rest);
    P.add<Spring2>(Edges.data(), static_cast<int>(E.size() / 2),
                   SpringP.data(), 2);
    P.add<Pull>(Verts.data(), NV, PullP.data(), 3);
  }
};

static std::vector<double> hostX(const Network &W, mt::RandomInputs &Rng,
                                 double Jitter) {
  std::vector<double> X = W.Rest;
  for (double &V : X)
    V += Rng.uniform(-Jitter, Jitter);
  return X;
}

/// The lower bandwidth of a symmetric pattern numbered by Order (new ->
/// old).
static int bandwidth(const std::vector<int> &Off, const std::vector<int> &Col,
                     const std::vector<int> &Order) {
  std::vector<int> NewOf(Order.size());
  for (size_t I = 0; I < Order.size(); ++I)
    NewOf[Order[I]] = static_cast<int>(I);
  int B = 0;
  for (size_t R = 0; R + 1 < Off.size(); ++R)
    for (int P = Off[R]; P < Off[R + 1]; ++P)
      B = std::max(B, std::abs(NewOf[R] - NewOf[Col[P]]));
  return B;
}

/// A 20 x 20 grid graph numbered at random: the order is a permutation and
/// narrows the bandwidth to about the grid's side.
static void checkOrdering(mt::RandomInputs &Rng) {
  const int S = 20, N = S * S;
  std::vector<int> Label(N);
  std::iota(Label.begin(), Label.end(), 0);
  for (int I = N - 1; I > 0; --I)
    std::swap(Label[I], Label[static_cast<int>(Rng.uniform(0, I + 0.999))]);
  std::vector<std::vector<int>> Adj(N);
  for (int J = 0; J < S; ++J)
    for (int I = 0; I < S; ++I) {
      int A = Label[J * S + I];
      auto Link = [&](int B) {
        Adj[A].push_back(B);
        Adj[B].push_back(A);
      };
      Adj[A].push_back(A);
      if (I + 1 < S)
        Link(Label[J * S + I + 1]);
      if (J + 1 < S)
        Link(Label[J * S + I + S]);
    }
  std::vector<int> Off(1, 0), Col, Identity(N);
  for (auto &Row : Adj) {
    std::sort(Row.begin(), Row.end());
    Col.insert(Col.end(), Row.begin(), Row.end());
    Off.push_back(static_cast<int>(Col.size()));
  }
  std::iota(Identity.begin(), Identity.end(), 0);
  std::vector<int> Order = detail::reverseCuthillMcKee(N, Off, Col);
  std::vector<int> Sorted = Order;
  std::sort(Sorted.begin(), Sorted.end());
  MESHAD_CHECK_CLOSE_TOL("rcm order is a permutation", Sorted == Identity, 1, 0);
  int Before = bandwidth(Off, Col, Identity);
  int After = bandwidth(Off, Col, Order);
  std::printf("rcm: bandwidth %d -> %d\n", Before, After);
  MESHAD_CHECK_CLOSE_TOL("rcm bandwidth at most 2 S", After <= 2 * S, 1, 0);
}

/// Solves of the projected Hessian at three configurations against a dense
/// solve: one analysis, three factorizations; float too.
static void checkFactor(mt::RandomInputs &Rng) {
  Network W(8, Rng);
  long N = W.P.numDofs();
  SparseCholesky<double> F;
  DeviceBuffer<double> B(N), D(N);
  for (int K = 0; K < 3; ++K) {
    W.X.upload(hostX(W, Rng, 0.02));
    CsrView<double> A = W.P.hessian(W.X.data(), true);
    std::vector<double> Rhs(N);
    Rng.fill(Rhs.data(), N, -1.0, 1.0);
    B.upload(Rhs);
    bool Ok = F.factor(A) && F.solve(B.data(), D.data());
    MESHAD_CHECK_CLOSE_TOL("factor and solve " + std::to_string(K), Ok, 1, 0);
    std::vector<double> Ref = mt::denseSolve(mt::denseOf(A), Rhs);
    std::vector<double> Got = D.download();
    for (long I = 0; I < N; ++I)
      MESHAD_CHECK_CLOSE_TOL("cholesky x[" + std::to_string(I) + "]", Got[I],
                             Ref[I], 1e-9);
    if (K == 2) { // the same system in float
      int Nnz = 0;
      cudaMemcpy(&Nnz, A.RowOffsets + N, sizeof(int), cudaMemcpyDeviceToHost);
      std::vector<double> V(Nnz);
      cudaMemcpy(V.data(), A.Values, Nnz * sizeof(double),
                 cudaMemcpyDeviceToHost);
      DeviceBuffer<float> FV, FB, FD(N);
      FV.upload(std::vector<float>(V.begin(), V.end()));
      FB.upload(std::vector<float>(Rhs.begin(), Rhs.end()));
      SparseCholesky<float> FF;
      bool FOk = FF.factor({A.Rows, A.RowOffsets, A.Columns, FV.data(), 2}) &&
                 FF.solve(FB.data(), FD.data());
      MESHAD_CHECK_CLOSE_TOL("float factor and solve", FOk, 1, 0);
      std::vector<float> FX = FD.download();
      for (long I = 0; I < N; ++I)
        MESHAD_CHECK_CLOSE_TOL("float cholesky x[" + std::to_string(I) + "]",
                               FX[I], Ref[I], 1e-3);
    }
  }
  MESHAD_CHECK_CLOSE_TOL("one analysis", F.analyses(), 1, 0);
  MESHAD_CHECK_CLOSE_TOL("three factorizations", F.factorizations(), 3, 0);
}

/// [[1 2 0] [2 1 0] [0 0 1]] (eigenvalues -1, 1, 3): refused.
static void checkIndefinite() {
  DeviceBuffer<int> Off, Col;
  DeviceBuffer<double> Val, B, X(3);
  Off.upload(std::vector<int>{0, 2, 4, 5});
  Col.upload(std::vector<int>{0, 1, 0, 1, 2});
  Val.upload(std::vector<double>{1, 2, 2, 1, 1});
  B.upload(std::vector<double>{1, 1, 1});
  SparseCholesky<double> F;
  bool Ok = F.factor({3, Off.data(), Col.data(), Val.data(), 1}) &&
            F.solve(B.data(), X.data());
  MESHAD_CHECK_CLOSE_TOL("indefinite matrix refused", Ok, 0, 0);
}

/// Newton with the Cholesky and with PCG (to 1e-12) from the rest grid: the
/// same minimum; the Cholesky's iterations few at every size.
static void checkNewton(int S, mt::RandomInputs &Rng) {
  std::string Tag = "newton " + std::to_string(S) + "x" + std::to_string(S);
  Network W(S, Rng);
  long N = W.P.numDofs();
  SolveOptions<double> O;
  O.GradientTolerance = 1e-9;
  O.Quiet = true;
  O.AdaptiveProjection = true;
  O.Cg = CgOptions{1e-12, 20000};
  SolveReport Pcg = newton(W.P, W.X.data(), O);
  std::vector<double> XPcg = W.X.download();
  W.X.upload(W.Rest);
  O.Linear = LinearSolver::Cholesky;
  SolveReport Chol = newton(W.P, W.X.data(), O);
  std::vector<double> XChol = W.X.download();
  std::printf("%s: pcg %d iterations (%ld cg), cholesky %d iterations, %d "
              "factorizations, %d analyses\n",
              Tag.c_str(), Pcg.Iterations, Pcg.LinearIterations,
              Chol.Iterations, W.P.cholesky().factorizations(),
              W.P.cholesky().analyses());
  MESHAD_CHECK_CLOSE_TOL(Tag + " pcg converged", converged(Pcg.Reason), 1, 0);
  MESHAD_CHECK_CLOSE_TOL(Tag + " cholesky converged", converged(Chol.Reason), 1, 0);
  MESHAD_CHECK_CLOSE_TOL(Tag + " cholesky: at most 12 iterations",
                         Chol.Iterations <= 12, 1, 0);
  MESHAD_CHECK_CLOSE_TOL(Tag + " pattern analyzed once",
                         W.P.cholesky().analyses(), 1, 0);
  bool EachIteration = W.P.cholesky().factorizations() >= Chol.Iterations;
  MESHAD_CHECK_CLOSE_TOL(Tag + " a factorization per iteration at least",
                         EachIteration, 1, 0);
  MESHAD_CHECK_CLOSE_TOL(Tag + " same energy", Chol.Energy, Pcg.Energy, 1e-10);
  double Diff = 0;
  for (long I = 0; I < N; ++I)
    Diff = std::max(Diff, std::fabs(XChol[I] - XPcg[I]));
  MESHAD_CHECK_CLOSE_TOL(Tag + " same minimum (max |dx| <= 1e-7)", Diff <= 1e-7, 1, 0);
}

int main() {
  (void)meshad::gradient(spring2, "x");
  (void)meshad::gradient(pull, "x");
  mt::RandomInputs Rng;
  {
    Network Small(4, Rng);
    mt::checkProblemDerivatives("network", Small.P, hostX(Small, Rng, 0.05),
                                Rng);
  }
  checkOrdering(Rng);
  checkFactor(Rng);
  checkIndefinite();
  for (int S : {8, 16, 32})
    checkNewton(S, Rng);
  return mt::summary();
}
// NUM-NOT: FAIL
// NUM: rcm: bandwidth
// NUM: newton 8x8: pcg
// NUM: newton 16x16: pcg
// NUM: newton 32x32: pcg
// NUM-NOT: FAIL
// NUM: numeric checks: {{[0-9]+}} passed, 0 failed
