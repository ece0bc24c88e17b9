//===- demos/common/Newton.h - The demos' projected Newton ------*- C++ -*-===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A small projected Newton for the demos, until they are driven by the
/// runtime's solvers (include/meshad/runtime/solve/, issue 14): the energy
/// is a sum of terms over element lists; each term evaluates, for all its
/// elements at once (a kernel per term in the demos), the element energies,
/// local gradients and PSD-projected local Hessians that meshad generates.
/// This header assembles them on the host into a CSR matrix whose pattern
/// and per-element positions are built once, solves H d = -g by
/// Jacobi-preconditioned CG, and backtracks (Armijo) from the full step,
/// also rejecting steps to states the problem calls invalid (a flipped
/// triangle), so that a barrier's domain is never left.
///
/// \code
///   demo::Problem P;
///   P.NumDofs = 2 * NumVertices;
///   P.Dofs = 2;                                // per vertex
///   P.Terms.push_back({3, Tris, evalTriangles}); // arity, elements, eval
///   P.Valid = [&](const double *X) { return noFlip(X); };
///   demo::NewtonResult R = demo::newton(P, X, {});
/// \endcode
///
//===----------------------------------------------------------------------===//

#ifndef MESHAD_DEMOS_COMMON_NEWTON_H
#define MESHAD_DEMOS_COMMON_NEWTON_H

#include "DemoMesh.h"

#include <chrono>
#include <cstdio>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace demo {

/// A term: Elements holds Arity vertex indices per element. Eval(X, Derivs,
/// E, G, H) writes every element's energy E[e] and, when Derivs, its local
/// gradient G[e*K + i] and projected Hessian H[e*K*K + i*K + j] over the
/// K = Arity * Dofs local DOFs (vertex j's DOF k at j * Dofs + k).
struct Term {
  int Arity = 0;
  std::vector<int> Elements;
  std::function<void(const double *X, bool Derivs, double *E, double *G,
                     double *H)>
      Eval;
  int numElements() const { return int(Elements.size()) / Arity; }
};

struct Problem {
  int NumDofs = 0; ///< Dofs values per vertex, vertex-major
  int Dofs = 1;
  std::vector<Term> Terms;
  std::function<bool(const double *X)> Valid; ///< optional
};

struct NewtonOptions {
  int MaxIterations = 50;
  double GradientTol = 1e-8;  ///< stop when |g| <= tol * max(1, |g0|)
  double DecreaseTol = 1e-12; ///< stop when E decreases less, relatively
  double CgTol = 1e-3;        ///< relative residual of the linear solves
  bool Quiet = false;
};

struct NewtonResult {
  std::vector<double> Energies; ///< E before the first step and after each
  double GradientNorm = 0;
  int Iterations = 0;
  std::string StopReason;
};

/// The global sparse matrix of a problem: CSR over scalar DOFs, and for
/// each term the position of every local Hessian entry.
class Assembly {
public:
  explicit Assembly(const Problem &P) : P(P) {
    int NumVertices = P.NumDofs / P.Dofs;
    std::vector<std::vector<int>> Adj(NumVertices);
    for (const Term &T : P.Terms)
      for (int E = 0; E < T.numElements(); ++E)
        for (int A = 0; A < T.Arity; ++A)
          for (int B = 0; B < T.Arity; ++B)
            Adj[T.Elements[E * T.Arity + A]].push_back(T.Elements[E * T.Arity + B]);
    Offsets.assign(P.NumDofs + 1, 0);
    for (int V = 0; V < NumVertices; ++V) {
      std::sort(Adj[V].begin(), Adj[V].end());
      Adj[V].erase(std::unique(Adj[V].begin(), Adj[V].end()), Adj[V].end());
      for (int K = 0; K < P.Dofs; ++K) {
        int Row = V * P.Dofs + K;
        Offsets[Row + 1] = Offsets[Row] + int(Adj[V].size()) * P.Dofs;
        for (int W : Adj[V])
          for (int L = 0; L < P.Dofs; ++L)
            Columns.push_back(W * P.Dofs + L);
      }
    }
    Values.assign(Columns.size(), 0.0);
    for (const Term &T : P.Terms)
      Positions.push_back(positions(T));
  }

  /// Values = sum of the terms' local Hessians LocalH[t].
  void assemble(const std::vector<std::vector<double>> &LocalH) {
    std::fill(Values.begin(), Values.end(), 0.0);
    for (size_t T = 0; T < P.Terms.size(); ++T)
      for (size_t I = 0; I < Positions[T].size(); ++I)
        Values[Positions[T][I]] += LocalH[T][I];
  }

  void apply(const std::vector<double> &X, std::vector<double> &Y) const {
    for (int R = 0; R < P.NumDofs; ++R) {
      double S = 0;
      for (int I = Offsets[R]; I < Offsets[R + 1]; ++I)
        S += Values[I] * X[Columns[I]];
      Y[R] = S;
    }
  }

  std::vector<double> diagonal() const {
    std::vector<double> D(P.NumDofs, 0.0);
    for (int R = 0; R < P.NumDofs; ++R)
      for (int I = Offsets[R]; I < Offsets[R + 1]; ++I)
        if (Columns[I] == R)
          D[R] = Values[I];
    return D;
  }

private:
  std::vector<int> positions(const Term &T) const {
    int K = T.Arity * P.Dofs;
    std::vector<int> Pos(size_t(T.numElements()) * K * K);
    for (int E = 0; E < T.numElements(); ++E)
      for (int I = 0; I < K; ++I) {
        int Row = T.Elements[E * T.Arity + I / P.Dofs] * P.Dofs + I % P.Dofs;
        for (int J = 0; J < K; ++J) {
          int Col = T.Elements[E * T.Arity + J / P.Dofs] * P.Dofs + J % P.Dofs;
          const int *B = &Columns[Offsets[Row]], *End = &Columns[Offsets[Row + 1]];
          Pos[(size_t(E) * K + I) * K + J] = Offsets[Row] + int(std::lower_bound(B, End, Col) - B);
        }
      }
    return Pos;
  }

  const Problem &P;
  std::vector<int> Offsets, Columns;
  std::vector<double> Values;
  std::vector<std::vector<int>> Positions;
};

/// The total energy (summed in element order), +infinity where not finite
/// or not valid; with G non-null, also the gradient and the local Hessians.
inline double evaluate(const Problem &P, const std::vector<double> &X,
                       std::vector<double> *G,
                       std::vector<std::vector<double>> *LocalH) {
  if (P.Valid && !P.Valid(X.data()))
    return std::numeric_limits<double>::infinity();
  double Total = 0;
  if (G)
    G->assign(P.NumDofs, 0.0);
  for (size_t T = 0; T < P.Terms.size(); ++T) {
    const Term &Tm = P.Terms[T];
    int K = Tm.Arity * P.Dofs, NE = Tm.numElements();
    std::vector<double> E(NE), Gl(G ? size_t(NE) * K : 0);
    if (G)
      (*LocalH)[T].resize(size_t(NE) * K * K);
    Tm.Eval(X.data(), G != nullptr, E.data(), G ? Gl.data() : nullptr,
            G ? (*LocalH)[T].data() : nullptr);
    for (int El = 0; El < NE; ++El) {
      Total += E[El];
      if (G)
        for (int I = 0; I < K; ++I)
          (*G)[Tm.Elements[El * Tm.Arity + I / P.Dofs] * P.Dofs + I % P.Dofs] +=
              Gl[size_t(El) * K + I];
    }
  }
  return std::isfinite(Total) ? Total : std::numeric_limits<double>::infinity();
}

/// Projected Newton from X (updated in place).
inline NewtonResult newton(const Problem &P, std::vector<double> &X,
                           const NewtonOptions &Opt) {
  Assembly A(P);
  NewtonResult R;
  std::vector<double> G;
  std::vector<std::vector<double>> LocalH(P.Terms.size());
  double E = evaluate(P, X, &G, &LocalH), G0 = -1;
  R.Energies.push_back(E);
  auto Start = std::chrono::steady_clock::now();
  for (int It = 0;; ++It) {
    double Gn = 0;
    for (double V : G)
      Gn += V * V;
    R.GradientNorm = Gn = std::sqrt(Gn);
    if (G0 < 0)
      G0 = Gn;
    if (Gn <= Opt.GradientTol * std::max(1.0, G0)) {
      R.StopReason = "gradient norm below tolerance";
      break;
    }
    if (It == Opt.MaxIterations) {
      R.StopReason = "iteration limit";
      break;
    }
    A.assemble(LocalH);
    std::vector<double> D(P.NumDofs, 0.0), Rhs(P.NumDofs);
    for (int I = 0; I < P.NumDofs; ++I)
      Rhs[I] = -G[I];
    std::vector<double> Diag = A.diagonal();
    int CgIters = pcg([&](const std::vector<double> &In,
                          std::vector<double> &Out) { A.apply(In, Out); },
                      Diag, Rhs, D, Opt.CgTol, 1000);
    double Slope = 0;
    for (int I = 0; I < P.NumDofs; ++I)
      Slope += G[I] * D[I];
    if (Slope >= 0) { // not a descent direction: take the gradient
      for (int I = 0; I < P.NumDofs; ++I)
        D[I] = -G[I];
      Slope = -Gn * Gn;
    }
    double Step = 1, ENew = E;
    std::vector<double> XNew(P.NumDofs);
    int Tries = 0;
    for (; Tries < 60; ++Tries, Step *= 0.5) {
      for (int I = 0; I < P.NumDofs; ++I)
        XNew[I] = X[I] + Step * D[I];
      ENew = evaluate(P, XNew, nullptr, nullptr);
      if (ENew <= E + 1e-4 * Step * Slope)
        break;
    }
    if (Tries == 60) {
      R.StopReason = "line search failed";
      break;
    }
    X.swap(XNew);
    double Decrease = E - ENew;
    E = evaluate(P, X, &G, &LocalH);
    R.Energies.push_back(E);
    R.Iterations = It + 1;
    double Secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
    if (!Opt.Quiet)
      std::printf("  newton %3d  E %.10e  |g| %.3e  step %.3g  ls %d  cg %d  "
                  "%.2f s\n",
                  It + 1, E, Gn, Step, Tries, CgIters, Secs);
    if (Decrease <= Opt.DecreaseTol * std::max(1.0, std::fabs(E))) {
      R.StopReason = "energy decrease below tolerance";
      break;
    }
  }
  if (!Opt.Quiet)
    std::printf("  stop: %s after %d iterations\n", R.StopReason.c_str(),
                R.Iterations);
  return R;
}

} // namespace demo

#endif // MESHAD_DEMOS_COMMON_NEWTON_H
