//===- meshad/runtime/solve/Minimize.h - Newton, L-BFGS, GD -----*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Minimizers of a Problem<T> (meshad/runtime/solve/Problem.h) on the GPU,
/// with a backtracking (Armijo) line search:
/// - newton: per-element PSD-projected sparse Hessian (SolveOptions::Project)
///   solved by Jacobi-preconditioned CG, matrix-free CG through the HVP, or
///   a sparse Cholesky (SolveOptions::Linear; its ordering and symbolic
///   analysis once per pattern, Problem::cholesky()); with
///   AdaptiveProjection, the exact Hessian after full steps while it is
///   positive definite (quadratic convergence near a minimum);
/// - gradientDescent; lbfgs (two-loop recursion, SolveOptions::History).
/// Pinned DOFs never move. SolveOptions::MaxStep bounds the line search's
/// first step (an injectivity-preserving line search: InjectiveStep2D in
/// meshad/runtime/solve/Injectivity.h). Each iteration prints a progress
/// line (iteration, energy, gradient norm, step, line-search steps, linear
/// iterations, time) unless Quiet; the result says why it stopped. The
/// energy's round-off in T (RoundOff * epsilon(T) * |E|) is allowed by the
/// line search, and a solve whose energy and gradient stop improving
/// within round-off ends as StopReason::RoundOff (converged(): a float
/// solve ends so where its gradient cannot reach GradientTolerance).
///
/// \code
///   using namespace meshad::runtime::solve;
///   SolveOptions<double> O;
///   O.GradientTolerance = 1e-8;
///   O.Linear = LinearSolver::Pcg;     // MatrixFreeCg, Cholesky
///   SolveReport R = newton(P, dX, O); // dX: initial guess, then solution
///   // newton   it   0  E  2.5e+01  |g| 3.1e+01  step 1.0e+00  ls  0 ...
///   // newton: gradient tolerance after 6 iterations, E = ...
///   if (!converged(R.Reason)) ...      // e.g. StopReason::LineSearchFailed
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_RUNTIME_SOLVE_MINIMIZE_H
#define MESHAD_RUNTIME_SOLVE_MINIMIZE_H

#include "meshad/runtime/solve/Problem.h"

#include <chrono>
#include <cstdio>
#include <functional>
#include <limits>
#include <vector>

namespace meshad {
namespace runtime {
namespace solve {

enum class StopReason {
  GradientTolerance, ///< |g| <= GradientTolerance
  EnergyDecrease,    ///< round-off < E_k-1 - E_k <= EnergyTolerance max(1, |E_k|)
  MaxIterations,
  LineSearchFailed, ///< no step of the line search decreased the energy enough
  /// T's precision reached: the energy's decrease is within its round-off
  /// and |g| has stopped falling (SolveOptions::StallSteps), or no step
  /// along the direction can change the energy beyond its round-off.
  RoundOff
};

inline const char *toString(StopReason R) {
  switch (R) {
  case StopReason::GradientTolerance:
    return "gradient tolerance";
  case StopReason::EnergyDecrease:
    return "relative energy decrease";
  case StopReason::MaxIterations:
    return "max iterations";
  case StopReason::LineSearchFailed:
    return "line search failure";
  case StopReason::RoundOff:
    return "round-off floor";
  }
  return "?";
}

/// True when the solve ended at a minimum: the gradient tolerance, or as
/// close as T's round-off lets it get (StopReason::RoundOff).
inline bool converged(StopReason R) {
  return R == StopReason::GradientTolerance || R == StopReason::RoundOff;
}

enum class LinearSolver { Pcg, MatrixFreeCg, Cholesky };

template <class T = double> struct SolveOptions {
  int MaxIterations = 100;
  double GradientTolerance = 1e-8; ///< on |g|_2 (pinned DOFs excluded)
  double EnergyTolerance = 1e-15;  ///< relative decrease of one iteration
  double Armijo = 1e-4;            ///< sufficient decrease constant c
  double Backtrack = 0.5;          ///< step *= Backtrack per rejected step
  int MaxLineSearchSteps = 60;
  bool Quiet = false;          ///< no progress lines, no stop line
  std::FILE *Log = stdout;     ///< where the lines go
  LinearSolver Linear = LinearSolver::Pcg; ///< Newton's linear solve
  CgOptions Cg{1e-10, 2000};
  /// Newton-CG: the CG tolerance of iteration k is max(Cg's, min(0.5,
  /// sqrt(|g_k| / |g_0|))) (inexact Newton: superlinear, fewer CG steps).
  bool InexactNewton = false;
  /// With InexactNewton: Eisenstat and Walker's forcing term (1996, choice
  /// 2) instead: eta_k = 0.9 (|g_k| / |g_k-1|)^2, kept above 0.9
  /// eta_k-1^2 while that exceeds 0.1, at most 0.5, at least Cg's
  /// tolerance and 0.5 GradientTolerance / |g_k| (a CG solve no tighter
  /// than the stop test needs). Loose while Newton converges slowly, tight
  /// where it converges fast: no CG iterations spent on a model that the
  /// next iterate leaves anyway.
  bool EisenstatWalker = false;
  bool Project = true; ///< Newton: per-element PSD-projected Hessians
  /// Newton with Project: after a full step, try the exact Hessian first
  /// (quadratic convergence near a minimum, where the projected one makes
  /// Newton linear); back to the projected one for this iteration and the
  /// next few when CG meets negative curvature, does not converge or gives
  /// no descent direction (or Cholesky finds the matrix indefinite).
  bool AdaptiveProjection = false;
  /// The energy's round-off, RoundOff * eps(T) * |E|: Armijo's test allows
  /// it, and a decrease within it does not count as progress.
  double RoundOff = 8;
  /// StopReason::RoundOff after this many steps in a row whose decrease is
  /// within the energy's round-off and whose |g| is not below the smallest
  /// so far (the gradient at its round-off floor); steps that MaxStep cut
  /// short do not count.
  int StallSteps = 3;
  int History = 8;     ///< L-BFGS: pairs kept
  /// The largest step t along D from X that keeps the iterate valid (e.g.
  /// no triangle flips), or empty; the line search starts below
  /// MaxStepFraction * t.
  std::function<double(const T *X, const T *D)> MaxStep;
  double MaxStepFraction = 0.8;
};

struct SolveReport {
  StopReason Reason = StopReason::MaxIterations;
  int Iterations = 0;
  double Energy = 0, GradientNorm = 0, Seconds = 0;
  long LinearIterations = 0;     ///< CG iterations in all
  int ExactHessianSteps = 0; ///< Newton: steps on the exact Hessian (AdaptiveProjection)
  std::vector<double> Energies;      ///< at the start and after each step
  std::vector<double> GradientNorms; ///< the same points
};

namespace detail {

/// What one method adds to the shared loop: the search direction and, after
/// an accepted step, what it learns from it.
template <class T> struct DescentMethod {
  virtual ~DescentMethod() = default;
  /// D = the direction at X (gradient G); returns the first step to try.
  virtual double direction(const T *X, const T *G, T *D, long &LinearIts) = 0;
  /// The step S = X_new - X_old was accepted; Y = G_new - G_old.
  virtual void accepted(const T *S, const T *Y, double Step) {}
};

inline double seconds(std::chrono::steady_clock::time_point Start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
      .count();
}

/// The round-off of an energy E computed in T: what Armijo's test allows
/// and what a decrease must exceed to count as progress.
template <class T> double energyRoundOff(const SolveOptions<T> &O, double E) {
  return O.RoundOff * std::numeric_limits<T>::epsilon() * std::fabs(E);
}

/// Backtracking from Step0 until E(X + a D) <= E + c a g.D (the energy's
/// round-off allowed); Xn, En: the accepted point. Returns the steps
/// rejected, or -1 when none was accepted.
template <class T>
int armijo(Problem<T> &P, const SolveOptions<T> &O, const T *X, const T *D,
           double E, double Slope, double &Step, T *Xn, double &En) {
  long N = P.numDofs();
  double Slack = energyRoundOff(O, E);
  for (int K = 0; K <= O.MaxLineSearchSteps; ++K, Step *= O.Backtrack) {
    addScaled(N, X, T(Step), D, Xn);
    En = P.energy(Xn);
    if (std::isfinite(En) && En <= E + O.Armijo * Step * Slope + Slack)
      return K;
  }
  return -1;
}

/// The loop every method shares: the state of one solve and its steps.
template <class T> class Minimizer {
public:
  Minimizer(Problem<T> &P, T *X, const SolveOptions<T> &O, const char *Name)
      : P(P), X(X), O(O), Name(Name), N(P.numDofs()), G(N), D(N), Xn(N),
        Gn(N), Start(std::chrono::steady_clock::now()) {}

  SolveReport run(DescentMethod<T> &M) {
    E = P.energy(X);
    P.gradient(X, G.data());
    GNorm = norm(N, G.data());
    BestGNorm = GNorm;
    record(0, 0, 0);
    for (;;) {
      if (GNorm <= O.GradientTolerance) {
        R.Reason = StopReason::GradientTolerance;
        break;
      }
      if (R.Iterations >= O.MaxIterations) {
        R.Reason = StopReason::MaxIterations;
        break;
      }
      if (!iterate(M))
        break;
    }
    R.Energy = E;
    R.GradientNorm = GNorm;
    R.Seconds = seconds(Start);
    if (!O.Quiet)
      std::fprintf(O.Log,
                   "%s: stop: %s after %d iterations, E = %.12e, |g| = "
                   "%.3e, %.3f s\n",
                   Name, toString(R.Reason), R.Iterations, E, GNorm, R.Seconds);
    return R;
  }

private:
  Problem<T> &P;
  T *X;
  const SolveOptions<T> &O;
  const char *Name;
  long N;
  DeviceBuffer<T> G, D, Xn, Gn;
  std::chrono::steady_clock::time_point Start;
  SolveReport R;
  double E = 0, GNorm = 0;
  double BestGNorm = 0; ///< the smallest |g| so far
  int Stalled = 0;      ///< steps in a row at the round-off floor

  /// One step: direction, line search, the new point. False when the solve
  /// stops (R.Reason set).
  bool iterate(DescentMethod<T> &M) {
    long Lin = 0;
    double Step = M.direction(X, G.data(), D.data(), Lin);
    R.LinearIterations += Lin;
    double Slope = dot(N, G.data(), D.data());
    if (!(Slope < 0)) { // not a descent direction: the gradient's
      addScaled(N, G.data(), T(-2), G.data(), D.data());
      Slope = -GNorm * GNorm;
      Step = 1 / GNorm;
    }
    // Limited: the MaxStep hook cut the first step (not a round-off stall).
    double FullStep = Step;
    if (O.MaxStep)
      Step = std::min(Step, O.MaxStepFraction * O.MaxStep(X, D.data()));
    bool Limited = Step < FullStep;
    double En = E;
    int Ls = armijo(P, O, X, D.data(), E, Slope, Step, Xn.data(), En);
    if (Ls < 0) {
      // Not even the full step's predicted decrease exceeds the energy's
      // round-off: the energy cannot judge this direction any more.
      bool Unresolved = !Limited && -Slope * FullStep <= energyRoundOff(O, E);
      R.Reason = Unresolved ? StopReason::RoundOff : StopReason::LineSearchFailed;
      return false;
    }
    P.gradient(Xn.data(), Gn.data());
    // D = the step taken, Xn - X; G = Gn - G: what L-BFGS learns.
    addScaled(N, Xn.data(), T(-1), X, D.data());
    addScaled(N, Gn.data(), T(-1), G.data(), G.data());
    M.accepted(D.data(), G.data(), Step);
    copy(N, Xn.data(), X);
    copy(N, Gn.data(), G.data());
    double Decrease = E - En, Noise = energyRoundOff(O, E);
    E = En;
    GNorm = norm(N, G.data());
    ++R.Iterations;
    record(Step, Ls, Lin);
    return keepGoing(Decrease, Noise, Limited);
  }

  /// After an accepted step: false (R.Reason set) when its decrease says
  /// to stop. A decrease within the energy's round-off is no evidence
  /// either way: then the gradient decides (still falling: go on).
  bool keepGoing(double Decrease, double Noise, bool Limited) {
    if (GNorm <= O.GradientTolerance)
      return true; // run() stops
    bool NewBest = GNorm < BestGNorm;
    BestGNorm = std::min(BestGNorm, GNorm);
    if (Decrease <= Noise && Limited)
      return true; // a step the hook cut short: no evidence of a floor
    if (Decrease <= Noise) {
      Stalled = NewBest ? 0 : Stalled + 1;
      if (Stalled < O.StallSteps)
        return true;
      R.Reason = StopReason::RoundOff;
      return false;
    }
    Stalled = 0;
    if (Decrease > O.EnergyTolerance * std::max(1.0, std::fabs(E)))
      return true;
    R.Reason = StopReason::EnergyDecrease;
    return false;
  }

  /// Keeps the iterate's energy and gradient norm; the progress line.
  void record(double Step, int Ls, long Lin) {
    R.Energies.push_back(E);
    R.GradientNorms.push_back(GNorm);
    if (!O.Quiet)
      std::fprintf(O.Log,
                   "%-7s it %4d  E %.12e  |g| %.3e  step %.3e  ls %2d  "
                   "lin %4ld  t %.3f s\n",
                   Name, R.Iterations, E, GNorm, Step, Ls, Lin,
                   seconds(Start));
  }
};

template <class T> struct NewtonMethod : DescentMethod<T> {
  Problem<T> &P;
  const SolveOptions<T> &O;
  DeviceBuffer<T> B;
  double FirstNorm = 0;
  double LastNorm = 0, LastEta = 0; ///< EisenstatWalker: the last |g|, eta
  bool LastStepFull = false; ///< the last accepted step was 1
  int Wait = 0, Backoff = 1; ///< AdaptiveProjection's pause after a failure
  int ExactSteps = 0;        ///< directions from the exact Hessian
  NewtonMethod(Problem<T> &P, const SolveOptions<T> &O)
      : P(P), O(O), B(P.numDofs()) {}

  CgOptions cgOptions(const T *G) {
    CgOptions C = O.Cg;
    if (!O.InexactNewton)
      return C;
    double GNorm = norm(P.numDofs(), G);
    if (FirstNorm == 0)
      FirstNorm = GNorm;
    double Eta = O.EisenstatWalker ? eisenstatWalker(GNorm)
                                   : std::min(0.5, std::sqrt(GNorm / FirstNorm));
    C.RelativeTolerance = std::max(C.RelativeTolerance, Eta);
    return C;
  }

  /// Eisenstat and Walker's choice 2 (gamma 0.9, alpha 2) with their
  /// safeguard, at most EtaMax, and no tighter than the stop test needs.
  double eisenstatWalker(double GNorm) {
    const double Gamma = 0.9, EtaMax = 0.5;
    double Eta = EtaMax;
    if (LastNorm > 0) {
      double Ratio = GNorm / LastNorm, Safe = Gamma * LastEta * LastEta;
      Eta = Gamma * Ratio * Ratio;
      if (Safe > 0.1)
        Eta = std::max(Eta, Safe);
    }
    Eta = std::min(EtaMax, std::max(Eta, 0.5 * O.GradientTolerance / GNorm));
    LastNorm = GNorm;
    LastEta = Eta;
    return Eta;
  }

  /// D = H^-1 B, H projected or exact; false when the exact H showed
  /// itself indefinite (CG: negative curvature or no convergence;
  /// Cholesky: not positive definite).
  bool solve(const T *X, bool Project, const CgOptions &C, T *D, long &Lin) {
    long N = P.numDofs();
    const T *Rhs = B.data();
    fill(N, T(0), D);
    CgResult Res;
    if (O.Linear == LinearSolver::MatrixFreeCg) {
      auto Apply = [&](const T *V, T *HV) { P.hvp(X, V, HV, Project); };
      Res = cg(N, Apply, static_cast<const T *>(nullptr), Rhs, D, C);
    } else if (O.Linear == LinearSolver::Cholesky) {
      SparseCholesky<T> &F = P.cholesky(); // analyzed once per pattern
      bool Spd = F.factor(P.hessian(X, Project)) && F.solve(Rhs, D);
      if (!Spd && Project)
        throw MeshError("newton: the projected Hessian is not positive "
                        "definite (cholesky)");
      return Spd;
    } else {
      Res = pcg(P.hessian(X, Project), Rhs, D, C, &P.pcgWorkspace());
    }
    Lin += Res.Iterations;
    return Project || (Res.Converged && !Res.NegativeCurvature);
  }

  /// AdaptiveProjection: whether this iteration tries the exact Hessian.
  bool tryExact() {
    if (!O.Project || !O.AdaptiveProjection || !LastStepFull)
      return false;
    if (Wait == 0)
      return true;
    --Wait;
    return false;
  }

  double direction(const T *X, const T *G, T *D, long &Lin) override {
    long N = P.numDofs();
    CgOptions C = cgOptions(G);
    fill(N, T(0), B.data());
    axpy(N, T(-1), G, B.data()); // B = -g
    Lin = 0;
    if (tryExact()) {
      if (solve(X, false, C, D, Lin) && dot(N, G, static_cast<const T *>(D)) < 0) {
        ++ExactSteps;
        Backoff = 1;
        return 1;
      }
      Wait = Backoff; // indefinite here: projected for a while
      Backoff = std::min(2 * Backoff, 16);
    }
    solve(X, O.Project, C, D, Lin);
    return 1;
  }
  void accepted(const T *, const T *, double Step) override {
    LastStepFull = Step == 1;
  }
};

template <class T> struct GradientMethod : DescentMethod<T> {
  long N;
  double LastStep = 0;
  explicit GradientMethod(long N) : N(N) {}
  double direction(const T *, const T *G, T *D, long &) override {
    addScaled(N, G, T(-2), G, D); // D = -G
    return LastStep > 0 ? 2 * LastStep : 1 / norm(N, G);
  }
  void accepted(const T *, const T *, double Step) override { LastStep = Step; }
};

template <class T> struct LbfgsMethod : DescentMethod<T> {
  long N;
  int History;
  std::vector<DeviceBuffer<T>> S, Y; ///< ring buffers of the pairs
  std::vector<double> Rho;
  int Count = 0, Next = 0;
  LbfgsMethod(long N, int History) : N(N), History(History), Rho(History) {
    for (int K = 0; K < History; ++K) {
      S.emplace_back(N);
      Y.emplace_back(N);
    }
  }
  double direction(const T *, const T *G, T *D, long &) override {
    addScaled(N, G, T(-2), G, D); // D = -G, then the two loops
    if (Count == 0)
      return 1 / norm(N, D);
    std::vector<double> Alpha(History);
    for (int K = 0; K < Count; ++K) {
      int J = (Next - 1 - K + History) % History;
      Alpha[J] = Rho[J] * dot(N, S[J].data(), D);
      axpy(N, T(-Alpha[J]), Y[J].data(), D);
    }
    int L = (Next - 1 + History) % History;
    double Gamma = dot(N, S[L].data(), Y[L].data()) /
                   dot(N, Y[L].data(), Y[L].data());
    axpby(N, T(0), D, T(Gamma), D);
    for (int K = Count - 1; K >= 0; --K) {
      int J = (Next - 1 - K + History) % History;
      double Beta = Rho[J] * dot(N, Y[J].data(), D);
      axpy(N, T(Alpha[J] - Beta), S[J].data(), D);
    }
    return 1;
  }
  void accepted(const T *Step, const T *Diff, double) override {
    double SY = dot(N, Step, Diff);
    if (!(SY > 1e-300))
      return; // curvature condition fails: keep the old pairs
    copy(N, Step, S[Next].data());
    copy(N, Diff, Y[Next].data());
    Rho[Next] = 1 / SY;
    Next = (Next + 1) % History;
    Count = std::min(Count + 1, History);
  }
};

} // namespace detail

/// Newton's method with per-element PSD projection (O.Project) and the
/// linear solver O.Linear; X (device, P.numDofs()) is the initial guess and
/// gets the result.
template <class T>
SolveReport newton(Problem<T> &P, T *X, const SolveOptions<T> &O = {}) {
  detail::NewtonMethod<T> M(P, O);
  SolveReport R = detail::Minimizer<T>(P, X, O, "newton").run(M);
  R.ExactHessianSteps = M.ExactSteps;
  return R;
}

/// Gradient descent (first step 1/|g|, then twice the last accepted one).
template <class T>
SolveReport gradientDescent(Problem<T> &P, T *X,
                            const SolveOptions<T> &O = {}) {
  detail::GradientMethod<T> M(P.numDofs());
  return detail::Minimizer<T>(P, X, O, "gd").run(M);
}

/// L-BFGS with O.History pairs.
template <class T>
SolveReport lbfgs(Problem<T> &P, T *X, const SolveOptions<T> &O = {}) {
  detail::LbfgsMethod<T> M(P.numDofs(), O.History);
  return detail::Minimizer<T>(P, X, O, "lbfgs").run(M);
}

} // namespace solve
} // namespace runtime
} // namespace meshad

#endif // MESHAD_RUNTIME_SOLVE_MINIMIZE_H
