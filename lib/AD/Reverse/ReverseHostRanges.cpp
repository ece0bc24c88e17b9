//===- AD/Reverse/ReverseHostRanges.cpp - What a launch accesses ----------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "AD/Reverse/ReverseHostRanges.h"
#include "Analysis/IndexFacts.h"
#include "Analysis/IndexForms.h"
#include "GPU/OwnershipAccesses.h"

#include <algorithm>

using namespace meshad;
using namespace meshad::ir;
using namespace meshad::ownership;

static const Atom GidX{AtomKind::Gid, 0};
/// The largest D tried in guards `i < n - D`.
static constexpr long long MaxMargin = 8;

/// The offset c of an index whose form is gid.x + c.
static std::optional<long long> gidOffset(const Affine &F) {
  if (F.Terms.size() != 1)
    return std::nullopt;
  const auto &[Mono, Coeff] = *F.Terms.begin();
  if (Coeff != 1 || Mono.size() != 1 || !(Mono.front() == GidX))
    return std::nullopt;
  return F.Const;
}

/// The E with gid.x + \p C < \p Bound + E under \p Facts: C + 1 - D for
/// the largest D <= MaxMargin with gid.x <= Bound - D (`i < n` gives D = 1,
/// `i < n - 1` D = 2).
static std::optional<long long> excessOver(const FactSet &Facts,
                                           const Affine &Bound, long long C) {
  for (long long D = MaxMargin; D >= 1; --D) {
    Affine Top = Bound; // gid.x <= Bound - D
    Top.Const -= D;
    if (Facts.provesUpper(GidX, Top))
      return C + 1 - D;
  }
  return std::nullopt;
}

/// The least E such that every access of \p Accesses, p[gid.x + c], has
/// 0 <= gid.x + c < \p Bound + E where it executes.
static std::optional<long long>
largestExcess(IndexEvaluator &Evaluator, const std::vector<Access> &Accesses,
              const Affine &Bound) {
  std::optional<long long> Largest;
  for (const Access &A : Accesses) {
    if (!A.Index)
      return std::nullopt;
    Eval E = Evaluator.eval(A.Index);
    std::optional<long long> C = E.Ok ? gidOffset(E.Form) : std::nullopt;
    if (!C)
      return std::nullopt;
    FactSet Facts(Evaluator, A.Guards);
    std::optional<long long> Low = Facts.lowerBound(GidX);
    std::optional<long long> Excess = excessOver(Facts, Bound, *C);
    if (!Low || *Low + *C < 0 || !Excess)
      return std::nullopt;
    Largest = std::max(Largest.value_or(*Excess), *Excess);
  }
  return Largest;
}

std::optional<LaunchRange> meshad::launchAccessRange(Module &M,
                                                     const LaunchStmt &L,
                                                     unsigned I) {
  const Function &K = *L.getKernel();
  if (I >= K.getNumParams() || !K.getBody() || threadDimsOf(K) != 1)
    return std::nullopt;
  const Var *P = K.getParam(I);
  AccessCollector Collector(K);
  auto It = Collector.Accesses.find(P);
  if (Collector.Escapes.count(P) || It == Collector.Accesses.end())
    return std::nullopt;
  IndexEvaluator Evaluator(K);
  // The first integer parameter whose value bounds every access.
  for (unsigned J = 0; J < K.getNumParams() && J < L.getArgs().size(); ++J) {
    Var *N = K.getParam(J);
    if (!N->getType()->isIntegral())
      continue;
    Eval Bound = Evaluator.eval(M.create<VarRefExpr>(N));
    if (!Bound.Ok || !Evaluator.isInvariant(Bound.Form))
      continue;
    if (std::optional<long long> Extra =
            largestExcess(Evaluator, It->second, Bound.Form))
      return LaunchRange{J, *Extra};
  }
  return std::nullopt;
}
