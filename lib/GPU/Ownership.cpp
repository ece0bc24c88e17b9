//===- GPU/Ownership.cpp - Who owns an adjoint element --------------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Index expressions are evaluated to affine forms (IndexForms.h). An array
/// is thread-exclusive when every access is C*X + d with the same thread
/// index X and offsets d that are distinct modulo |C|, where X is a grid-
/// stride loop counter, the 1D global thread id, or a 2D/3D index such as
/// gy*W + gx whose digits the guards keep in range (0 <= gx < W). Offsets are
/// literals or loop counters with literal bounds. Accesses that overlap only
/// a little between neighbouring 1D threads are tile-exclusive; accesses
/// that no thread tells apart are uniform; everything else is shared, with
/// the reason.
///
//===----------------------------------------------------------------------===//

#include "GPU/Ownership.h"
#include "AD/Analysis/Activity.h"
#include "Analysis/ElementMaps.h"
#include "Analysis/IRWalk.h"
#include "Analysis/IndexFacts.h"
#include "Analysis/IndexForms.h"
#include "Analysis/SweepDefs.h"
#include "GPU/OwnershipAccesses.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

using namespace meshad;
using namespace meshad::ir;
using namespace meshad::ownership;
using irwalk::spell;
using llvm::isa;

const char *meshad::getOwnershipName(OwnershipClass C) {
  switch (C) {
  case OwnershipClass::ThreadExclusive:
    return "thread-exclusive";
  case OwnershipClass::TileExclusive:
    return "tile-exclusive";
  case OwnershipClass::Uniform:
    return "uniform";
  case OwnershipClass::Shared:
    return "shared";
  }
  return "shared";
}

namespace {

/// The widest tile halo (TileHi - TileLo) the analysis reports.
constexpr long long MaxTileSpan = 32;
/// The most offset values enumerated per array (beyond: intervals only).
constexpr size_t MaxOffsetPoints = 4096;

/// An access with its evaluated index.
struct FormedAccess {
  const Access *A;
  Affine Form;
};

/// A thread-dependent access split into Thread + Offset, the offset being
/// a literal plus literal multiples of loop counters with literal ranges.
struct SplitAccess {
  const Access *A;
  Affine Thread;
  Affine Offset;
  /// The offset's smallest and largest values.
  long long Lo = 0, Hi = 0;
  /// Every value of the offset when there are few, else empty.
  std::vector<long long> Points;
};

/// The thread atoms of a proven index, innermost first: the index is
/// Stride*(A0 + E0*(A1 + E1*A2)) + offset.
struct Chain {
  std::vector<Atom> Atoms;
  long long Stride = 0;
  /// Extents[J]: the coefficient of Atoms[J + 1] over that of Atoms[J].
  std::vector<Affine> Extents;
  /// Lows[J]: a lower bound of Atoms[J] at every access.
  std::vector<long long> Lows;

  bool isGridStride() const {
    return Atoms.front().Kind == AtomKind::GridStride;
  }
};

/// Decides the class of one array from its accesses.
class Classifier {
public:
  /// \p KernelDims: the launch dimensions the kernel's threads differ in
  /// (threadDimsOf).
  Classifier(const Var &Param, IndexEvaluator &Evaluator, unsigned KernelDims)
      : Param(Param), Evaluator(Evaluator), KernelDims(KernelDims) {}

  OwnershipResult classify(const std::vector<Access> &Accesses);

private:
  static OwnershipResult shared(std::string Why) {
    return OwnershipResult{OwnershipClass::Shared, std::move(Why)};
  }
  OwnershipResult classifyUniform(const std::vector<FormedAccess> &All);
  OwnershipResult classifyThreads(const std::vector<FormedAccess> &All);
  OwnershipResult classifyOffsets(const std::vector<SplitAccess> &Split,
                                  const Chain &Ch);
  OwnershipResult tileOrShared(const std::vector<SplitAccess> &Split,
                               const Chain &Ch, const SplitAccess &P,
                               const SplitAccess &Q);
  /// Splits \p F; "" or why its terms are not analysed.
  std::string split(const FormedAccess &F, SplitAccess &S) const;
  std::string checkThreadTerm(const SplitAccess &S, const Monomial &M) const;
  std::string addOffsets(SplitAccess &S) const;
  std::string whyMixed(const SplitAccess &A, const SplitAccess &B) const;
  std::string buildChain(const SplitAccess &S, Chain &Ch) const;
  std::string linkChain(const SplitAccess &S, Chain &Ch,
                        llvm::ArrayRef<std::pair<Atom, Affine>> Links) const;
  /// "" when the chain involves every dimension the kernel's threads differ
  /// in; else why threads that differ only in another one collide.
  std::string coversKernelDims(const SplitAccess &S, const Chain &Ch) const;
  /// Proves 0 <= Atoms[J] - Lows[J] < Extents[J] at every access.
  std::string fitWindows(const std::vector<SplitAccess> &Split,
                         Chain &Ch) const;
  /// Two accesses whose elements overlap between threads, or nulls.
  std::pair<const SplitAccess *, const SplitAccess *>
  findOverlap(const std::vector<SplitAccess> &Split, long long Stride) const;
  /// "every access is 3*(gy*W + gx) + {0, 1, 2} with 0 <= gx < W".
  std::string describe(const std::vector<SplitAccess> &Split,
                       const Chain &Ch) const;
  std::string spellChain(const Chain &Ch) const;
  std::string spellOffsets(const std::vector<SplitAccess> &Split) const;
  std::string spellCounters(const std::vector<SplitAccess> &Split) const;
  std::string dimsName(const SplitAccess &S) const;
  std::string spellAccess(const Access &A) const;

  const Var &Param;
  IndexEvaluator &Evaluator;
  unsigned KernelDims;
};

/// "2*gid", "-i", "gid".
std::string spellTerm(long long C, const std::string &Atom) {
  if (C == 1)
    return Atom;
  if (C == -1)
    return "-" + Atom;
  return std::to_string(C) + "*" + Atom;
}

/// |C| without overflow.
unsigned long long magnitude(long long C) {
  return C < 0 ? 0ULL - static_cast<unsigned long long>(C)
               : static_cast<unsigned long long>(C);
}

/// Hi - Lo (>= 0) without overflow.
unsigned long long spanOf(long long Lo, long long Hi) {
  return static_cast<unsigned long long>(Hi) -
         static_cast<unsigned long long>(Lo);
}

/// The accesses with the smallest and the largest offset.
std::pair<const SplitAccess *, const SplitAccess *>
extremes(const std::vector<SplitAccess> &Split) {
  const SplitAccess *Lo = &Split.front(), *Hi = Lo;
  for (const SplitAccess &S : Split) {
    Lo = S.Lo < Lo->Lo ? &S : Lo;
    Hi = S.Hi > Hi->Hi ? &S : Hi;
  }
  return {Lo, Hi};
}

/// A coefficient (a literal times uniform atoms) as its atoms and literal.
std::pair<Monomial, long long> factorsOf(const Affine &K) {
  if (K.isLiteral())
    return {Monomial(), K.Const};
  return *K.Terms.begin();
}

/// True when \p A and \p B are the same thread index. Grid-stride loop
/// counters all start at the thread id and step by the thread count: the
/// elements C*t + d of distinct counters t are the same as for one.
bool sameThreads(const Affine &A, const Affine &B) {
  auto Canonical = [](const Affine &T) {
    if (T.Terms.size() != 1)
      return T;
    Monomial M = T.Terms.begin()->first;
    for (Atom &At : M)
      if (At.Kind == AtomKind::GridStride)
        At.Id = 0;
    Affine R;
    R.Terms[M] = T.Terms.begin()->second;
    return R;
  };
  return Canonical(A) == Canonical(B);
}

} // namespace

std::string Classifier::spellAccess(const Access &A) const {
  if (A.Index || !isa<VarRefExpr>(A.Spelled))
    return spell(A.Spelled);
  return Param.getName() + "[0]";
}

//===----------------------------------------------------------------------===//
// Uniform accesses
//===----------------------------------------------------------------------===//

OwnershipResult Classifier::classify(const std::vector<Access> &Accesses) {
  if (Accesses.empty())
    return shared(Param.getName() + " is never indexed");
  std::vector<FormedAccess> All;
  for (const Access &A : Accesses) {
    Eval R = A.Index ? Evaluator.eval(A.Index) : Eval::ok(Affine::literal(0));
    if (!R.Ok) {
      if (R.Culprit && R.Culprit == A.Index &&
          llvm::StringRef(R.Why).ends_with(" is not affine"))
        return shared("index " + R.Why);
      OwnershipResult S = shared(spellAccess(A) + ": " + R.Why);
      S.ThroughIndexArray = llvm::isa_and_nonnull<IndexExpr>(R.Culprit);
      return S;
    }
    foldGid(R.Form);
    All.push_back(FormedAccess{&A, R.Form});
  }
  auto ThreadDependent = [](const FormedAccess &F) {
    return F.Form.isThreadDependent();
  };
  if (llvm::none_of(All, ThreadDependent))
    return classifyUniform(All);
  auto Uniform = llvm::find_if_not(All, ThreadDependent);
  if (Uniform != All.end()) {
    const FormedAccess &T = *llvm::find_if(All, ThreadDependent);
    return shared(spellAccess(*Uniform->A) + " (every thread) and " +
                  spellAccess(*T.A) + " (thread-dependent) overlap");
  }
  return classifyThreads(All);
}

OwnershipResult
Classifier::classifyUniform(const std::vector<FormedAccess> &All) {
  for (const FormedAccess &F : All)
    for (const auto &Term : F.Form.Terms)
      for (const Atom &At : Term.first)
        if (At.Kind == AtomKind::Symbol && !Evaluator.getSymbol(At.Id).Stable)
          return shared("every thread accesses " + spellAccess(*F.A) +
                        ", but " + Evaluator.getSymbol(At.Id).Name +
                        " is assigned more than once: not proven uniform");
  bool OneLiteral = llvm::all_of(All, [&](const FormedAccess &F) {
    return F.Form.isLiteral() && F.Form.Const == All.front().Form.Const;
  });
  if (OneLiteral) {
    OwnershipResult R{OwnershipClass::Uniform,
                      "every thread accesses " + Param.getName() + "[" +
                          std::to_string(All.front().Form.Const) + "]"};
    R.HasLiteralIndex = true;
    R.UniformIndex = All.front().Form.Const;
    return R;
  }
  std::vector<std::string> Names;
  for (const FormedAccess &F : All)
    if (std::string Name = spellAccess(*F.A); !llvm::is_contained(Names, Name))
      Names.push_back(Name);
  std::string List;
  for (size_t I = 0; I < Names.size() && I < 4; ++I)
    List += (I ? ", " : "") + Names[I];
  if (Names.size() > 4)
    List += ", ...";
  return OwnershipResult{OwnershipClass::Uniform,
                         "every access (" + List +
                             ") is the same in all threads at a given point, "
                             "but not one literal element"};
}

//===----------------------------------------------------------------------===//
// Thread-dependent accesses: splitting
//===----------------------------------------------------------------------===//

OwnershipResult
Classifier::classifyThreads(const std::vector<FormedAccess> &All) {
  std::vector<SplitAccess> Split;
  for (const FormedAccess &F : All) {
    SplitAccess S{F.A};
    if (std::string Why = split(F, S); !Why.empty())
      return shared(Why);
    Split.push_back(std::move(S));
  }
  for (const SplitAccess &S : Split)
    if (!(sameThreads(S.Thread, Split.front().Thread)))
      return shared(whyMixed(Split.front(), S));
  Chain Ch;
  if (std::string Why = buildChain(Split.front(), Ch); !Why.empty())
    return shared(Why);
  if (std::string Why = coversKernelDims(Split.front(), Ch); !Why.empty())
    return shared(Why);
  if (std::string Why = fitWindows(Split, Ch); !Why.empty())
    return shared(Why);
  return classifyOffsets(Split, Ch);
}

std::string Classifier::split(const FormedAccess &F, SplitAccess &S) const {
  for (const auto &[M, C] : F.Form.Terms) {
    if (!threadAtomOf(M)) {
      S.Offset.Terms[M] = C;
      continue;
    }
    if (std::string Why = checkThreadTerm(S, M); !Why.empty())
      return Why;
    S.Thread.Terms[M] = C;
  }
  S.Offset.Const = F.Form.Const;
  return addOffsets(S);
}

std::string Classifier::checkThreadTerm(const SplitAccess &S,
                                        const Monomial &M) const {
  Atom T = *threadAtomOf(M);
  std::string Access = spellAccess(*S.A);
  std::string D = Evaluator.spellAtom({AtomKind::ThreadIdx, T.Dim});
  D = D.substr(D.size() - 1); // x, y or z.
  switch (T.Kind) {
  case AtomKind::ThreadIdx:
    return "threadIdx." + D + " alone repeats in every block (" + Access + ")";
  case AtomKind::BlockIdx:
  case AtomKind::BlockBase:
    return "blockIdx." + D + " without threadIdx." + D +
           " is the same for all threads of a block (" + Access + ")";
  default:
    break;
  }
  if (M.size() == 1)
    return "";
  Affine Rest;
  Monomial Factors = M;
  Factors.erase(llvm::find(Factors, T));
  Rest.Terms[Factors] = 1;
  if (T.Kind == AtomKind::GridStride)
    return Access + ": the stride " + Evaluator.spell(Rest) +
           " of the grid-stride counter " + Evaluator.spellAtom(T) +
           " is not a literal: not proven";
  if (!Evaluator.isInvariant(Rest))
    return Access + ": the coefficient " + Evaluator.spell(Rest) + " of " +
           Evaluator.spellAtom(T) + " changes while the kernel runs: not "
           "proven";
  return "";
}

std::string Classifier::addOffsets(SplitAccess &S) const {
  std::string Access = spellAccess(*S.A);
  S.Lo = S.Hi = S.Offset.Const;
  S.Points = {S.Offset.Const};
  for (const auto &[M, C] : S.Offset.Terms) {
    const SymbolInfo *Info =
        M.size() == 1 && M.front().Kind == AtomKind::Symbol
            ? &Evaluator.getSymbol(M.front().Id)
            : nullptr;
    if (!Info || !Info->Range)
      return Access + ": " + Evaluator.spellMonomial(M) +
             " is not a literal offset: not proven";
    auto [From, To] = *Info->Range;
    long long A, B;
    if (llvm::MulOverflow(C, From, A) || llvm::MulOverflow(C, To, B) ||
        llvm::AddOverflow(S.Lo, std::min(A, B), S.Lo) ||
        llvm::AddOverflow(S.Hi, std::max(A, B), S.Hi))
      return Access + ": the offset overflows";
    if (S.Points.empty() ||
        spanOf(From, To) + 1 > MaxOffsetPoints / S.Points.size()) {
      S.Points.clear();
      continue;
    }
    std::set<long long> Next;
    for (long long P : S.Points)
      for (long long V = From; V <= To; ++V)
        Next.insert(P + C * V); // Within [Lo, Hi]: no overflow.
    S.Points.assign(Next.begin(), Next.end());
  }
  return "";
}

std::string Classifier::whyMixed(const SplitAccess &A,
                                 const SplitAccess &B) const {
  std::string Pair = spellAccess(*A.A) + " and " + spellAccess(*B.A);
  auto Single = [](const Affine &F) -> std::optional<Atom> {
    if (F.Terms.size() != 1 || F.Terms.begin()->first.size() != 1)
      return std::nullopt;
    return F.Terms.begin()->first.front();
  };
  std::optional<Atom> SA = Single(A.Thread), SB = Single(B.Thread);
  if (SA && SB && SA->Kind != SB->Kind)
    return Pair + " mix the thread id and a grid-stride loop counter: not "
                  "proven";
  if (SA && SB && *SA == *SB)
    return Pair + " overlap between threads (strides " +
           std::to_string(A.Thread.Terms.begin()->second) + " and " +
           std::to_string(B.Thread.Terms.begin()->second) + ")";
  return Pair + " mix the thread index forms " + Evaluator.spell(A.Thread) +
         " and " + Evaluator.spell(B.Thread) + ": not proven";
}

//===----------------------------------------------------------------------===//
// Thread-dependent accesses: the chain of thread indices
//===----------------------------------------------------------------------===//

std::string Classifier::dimsName(const SplitAccess &S) const {
  return std::to_string(S.Thread.Terms.size()) + "D index " +
         Evaluator.spell(S.Thread);
}

std::string Classifier::buildChain(const SplitAccess &S, Chain &Ch) const {
  std::string Access = spellAccess(*S.A);
  // Each thread atom with its coefficient (a literal times uniform atoms).
  std::vector<std::pair<Atom, Affine>> Links;
  for (const auto &[M, C] : S.Thread.Terms) {
    Atom T = *threadAtomOf(M);
    if (llvm::any_of(Links, [&](const auto &L) { return L.first == T; }))
      return Access + ": the coefficient of " + Evaluator.spellAtom(T) +
             " is a sum: not proven";
    Monomial Factors = M;
    Factors.erase(llvm::find(Factors, T));
    Affine K = Affine::literal(C);
    if (!Factors.empty())
      K = Affine(), K.Terms[Factors] = C;
    Links.push_back({T, K});
  }
  bool GridStride = llvm::any_of(Links, [](const auto &L) {
    return L.first.Kind == AtomKind::GridStride;
  });
  if (GridStride && Links.size() > 1)
    return Access + ": several thread-dependent terms: not proven";
  // Innermost first: literal coefficients, then by the number of factors.
  auto Rank = [](const Affine &K) {
    auto [M, C] = factorsOf(K);
    return std::make_pair(M.size(), magnitude(C));
  };
  std::stable_sort(Links.begin(), Links.end(), [&](auto &L, auto &R) {
    return Rank(L.second) < Rank(R.second);
  });
  return linkChain(S, Ch, Links);
}

/// K / Base when it is a positive literal times uniform atoms.
static std::optional<Affine> divide(const Affine &K, const Affine &Base) {
  auto [KM, KC] = factorsOf(K);
  auto [BM, BC] = factorsOf(Base);
  if (BC == 0 || KC % BC != 0 || KC / BC <= 0)
    return std::nullopt;
  for (const Atom &A : BM) {
    auto It = llvm::find(KM, A);
    if (It == KM.end())
      return std::nullopt;
    KM.erase(It);
  }
  Affine E = Affine::literal(KC / BC);
  if (!KM.empty())
    E = Affine(), E.Terms[KM] = KC / BC;
  return E;
}

std::string
Classifier::linkChain(const SplitAccess &S, Chain &Ch,
                      llvm::ArrayRef<std::pair<Atom, Affine>> Links) const {
  std::string Access = spellAccess(*S.A);
  const auto &[First, K0] = Links.front();
  if (!K0.isLiteral())
    return Access + ": the stride " + Evaluator.spell(K0) + " of " +
           Evaluator.spellAtom(First) + " is not a literal: not proven";
  // Threads differ only in the first LaunchDims dimensions of the launch.
  std::set<unsigned> Dims;
  for (const auto &L : Links)
    Dims.insert(L.first.Dim);
  for (unsigned D = 0; D < Links.size(); ++D)
    if (!Dims.count(D)) {
      std::string Name = Evaluator.spellAtom({AtomKind::ThreadIdx, D});
      return Access + ": the index " + Evaluator.spell(S.Thread) +
             " does not depend on " + Name +
             ": threads that differ only there collide";
    }
  Ch.Stride = K0.Const;
  Ch.Atoms.push_back(First);
  for (size_t J = 1; J < Links.size(); ++J) {
    std::optional<Affine> E = divide(Links[J].second, Links[J - 1].second);
    if (!E)
      return Access + ": " + dimsName(S) + ": the coefficient " +
             Evaluator.spell(Links[J].second) + " of " +
             Evaluator.spellAtom(Links[J].first) + " is not a multiple of " +
             Evaluator.spell(Links[J - 1].second) + ": not proven";
    Ch.Extents.push_back(*E);
    Ch.Atoms.push_back(Links[J].first);
  }
  return "";
}

std::string Classifier::coversKernelDims(const SplitAccess &S,
                                         const Chain &Ch) const {
  for (unsigned D = 1; D < 3; ++D) {
    if (!(KernelDims & (1u << D)) ||
        llvm::any_of(Ch.Atoms, [&](const Atom &A) { return A.Dim == D; }))
      continue;
    std::string Tid = Evaluator.spellAtom({AtomKind::ThreadIdx, D});
    std::string Bid = Evaluator.spellAtom({AtomKind::BlockIdx, D});
    return spellAccess(*S.A) + ": the index " + Evaluator.spell(S.Thread) +
           " does not involve " + Tid + " or " + Bid +
           ", which the kernel uses: threads that differ only there access "
           "the same elements";
  }
  return "";
}

std::string Classifier::fitWindows(const std::vector<SplitAccess> &Split,
                                   Chain &Ch) const {
  if (Ch.Extents.empty())
    return "";
  std::vector<FactSet> Facts;
  for (const SplitAccess &S : Split)
    Facts.emplace_back(Evaluator, S.A->Guards);
  for (size_t J = 0; J < Ch.Extents.size(); ++J) {
    // One window for all accesses: the weakest lower bound.
    long long Low = 0;
    for (size_t I = 0; I < Split.size(); ++I)
      Low = I ? std::min(Low, *Facts[I].lowerBound(Ch.Atoms[J]))
              : *Facts[I].lowerBound(Ch.Atoms[J]);
    Ch.Lows.push_back(Low);
    Affine End = Ch.Extents[J]; // Atoms[J] < Low + Extent.
    Affine Last = End;
    if (llvm::AddOverflow(End.Const, Low, End.Const) ||
        llvm::AddOverflow(End.Const, -1LL, Last.Const))
      return spellAccess(*Split.front().A) + ": the index overflows";
    for (size_t I = 0; I < Split.size(); ++I)
      if (!Facts[I].provesUpper(Ch.Atoms[J], Last))
        return spellAccess(*Split[I].A) + ": " + dimsName(Split[I]) + ": " +
               Evaluator.spellAtom(Ch.Atoms[J]) + " < " + Evaluator.spell(End) +
               " not proven";
  }
  return "";
}

//===----------------------------------------------------------------------===//
// Thread-dependent accesses: offsets
//===----------------------------------------------------------------------===//

std::pair<const SplitAccess *, const SplitAccess *>
Classifier::findOverlap(const std::vector<SplitAccess> &Split,
                        long long Stride) const {
  unsigned long long C = magnitude(Stride);
  auto [Lo, Hi] = extremes(Split);
  bool Enumerated = llvm::all_of(
      Split, [](const SplitAccess &S) { return !S.Points.empty(); });
  if (!Enumerated) // Intervals only: they must fit in one stride.
    return spanOf(Lo->Lo, Hi->Hi) >= C ? std::make_pair(Lo, Hi)
                                       : std::make_pair(nullptr, nullptr);
  // Distinct values congruent modulo |C| meet between threads.
  std::vector<std::pair<long long, const SplitAccess *>> Points;
  for (const SplitAccess &S : Split)
    for (long long P : S.Points)
      Points.push_back({P, &S});
  std::stable_sort(Points.begin(), Points.end(),
                   [](auto &L, auto &R) { return L.first < R.first; });
  std::map<unsigned long long, std::pair<long long, const SplitAccess *>>
      ByResidue;
  for (const auto &[P, S] : Points) {
    unsigned long long R = spanOf(Lo->Lo, P) % C;
    auto [It, New] = ByResidue.try_emplace(R, P, S);
    if (!New && It->second.first != P)
      return {It->second.second, S};
  }
  return {nullptr, nullptr};
}

OwnershipResult
Classifier::classifyOffsets(const std::vector<SplitAccess> &Split,
                            const Chain &Ch) {
  auto [P, Q] = findOverlap(Split, Ch.Stride);
  if (P)
    return tileOrShared(Split, Ch, *P, *Q);
  OwnershipResult R{OwnershipClass::ThreadExclusive, describe(Split, Ch)};
  R.LaunchDims = Ch.isGridStride() ? 1 : Ch.Atoms.size();
  return R;
}

OwnershipResult Classifier::tileOrShared(const std::vector<SplitAccess> &Split,
                                         const Chain &Ch, const SplitAccess &P,
                                         const SplitAccess &Q) {
  auto Overlap = [&](const SplitAccess &A, const SplitAccess &B) {
    if (&A == &B)
      return spellAccess(*A.A) + " overlaps itself between neighbouring "
                                 "threads";
    return spellAccess(*A.A) + " and " + spellAccess(*B.A) +
           " overlap between neighbouring threads";
  };
  auto [Lo, Hi] = extremes(Split);
  unsigned long long Span = spanOf(Lo->Lo, Hi->Hi);
  bool Plain1D = Ch.Atoms.size() == 1 && Ch.Atoms.front().Kind == AtomKind::Gid;
  if (!Plain1D || Ch.Stride <= 0)
    return shared(Overlap(P, Q) + (Plain1D ? "; a negative stride has no tiles"
                                           : ""));
  if (Span > static_cast<unsigned long long>(MaxTileSpan))
    return shared(Overlap(P, Q) + "; the offsets span " +
                  std::to_string(Span) + " elements, more than a tile halo "
                                         "allows (" +
                  std::to_string(MaxTileSpan) + ")");
  long long Halo = static_cast<long long>(Span) - Ch.Stride + 1;
  OwnershipResult R{OwnershipClass::TileExclusive,
                    Overlap(*Lo, *Hi) + "; " + describe(Split, Ch) +
                        ": each block owns its tile but a halo of " +
                        std::to_string(Halo) +
                        (Halo == 1 ? " element" : " elements")};
  R.LaunchDims = 1;
  R.TileStride = Ch.Stride;
  R.TileLo = Lo->Lo;
  R.TileHi = Hi->Hi;
  return R;
}

//===----------------------------------------------------------------------===//
// Reasons
//===----------------------------------------------------------------------===//

std::string Classifier::spellChain(const Chain &Ch) const {
  if (Ch.Atoms.size() == 1)
    return spellTerm(Ch.Stride, Ch.isGridStride()
                                    ? Evaluator.spellAtom(Ch.Atoms.front())
                                    : "gid");
  std::string Inner = Evaluator.spellAtom(Ch.Atoms.back());
  for (size_t J = Ch.Extents.size(); J-- > 0;) {
    std::string E = Evaluator.spell(Ch.Extents[J]);
    if (E.find_first_of("* ") != std::string::npos)
      E = "(" + E + ")";
    if (Inner.find(' ') != std::string::npos)
      Inner = "(" + Inner + ")";
    Inner += "*" + E + " + " + Evaluator.spellAtom(Ch.Atoms[J]);
  }
  return Ch.Stride == 1 ? Inner : spellTerm(Ch.Stride, "(" + Inner + ")");
}

std::string
Classifier::spellOffsets(const std::vector<SplitAccess> &Split) const {
  std::set<std::pair<long long, std::string>> Offsets;
  for (const SplitAccess &S : Split)
    Offsets.insert({S.Lo, Evaluator.spell(S.Offset)});
  std::string List;
  for (const auto &O : Offsets)
    List += (List.empty() ? "" : ", ") + O.second;
  return "{" + List + "}";
}

std::string
Classifier::spellCounters(const std::vector<SplitAccess> &Split) const {
  std::set<std::pair<unsigned, std::string>> Counters;
  for (const SplitAccess &S : Split)
    for (const auto &Term : S.Offset.Terms) {
      unsigned Id = Term.first.front().Id;
      const SymbolInfo &Info = Evaluator.getSymbol(Id);
      Counters.insert({Id, Info.Name + " in [" +
                               std::to_string(Info.Range->first) + ", " +
                               std::to_string(Info.Range->second) + "]"});
    }
  std::string List;
  for (const auto &C : Counters)
    List += (List.empty() ? "" : ", ") + C.second;
  return List;
}

std::string Classifier::describe(const std::vector<SplitAccess> &Split,
                                 const Chain &Ch) const {
  std::vector<std::string> With;
  if (Ch.isGridStride()) {
    std::vector<std::string> Names;
    for (const SplitAccess &S : Split) {
      std::string Name =
          Evaluator.spellAtom(S.Thread.Terms.begin()->first.front());
      if (!llvm::is_contained(Names, Name))
        Names.push_back(Name);
    }
    With.push_back(llvm::join(Names, ", ") +
                   (Names.size() == 1 ? " a grid-stride loop counter"
                                      : " grid-stride loop counters"));
  }
  for (size_t J = 0; J < Ch.Extents.size(); ++J) {
    Affine End = Ch.Extents[J];
    End.Const += Ch.Lows[J]; // Checked in fitWindows.
    With.push_back(std::to_string(Ch.Lows[J]) + " <= " +
                   Evaluator.spellAtom(Ch.Atoms[J]) + " < " +
                   Evaluator.spell(End));
  }
  if (std::string Counters = spellCounters(Split); !Counters.empty())
    With.push_back(Counters);
  std::string Why =
      "every access is " + spellChain(Ch) + " + " + spellOffsets(Split);
  for (size_t I = 0; I < With.size(); ++I)
    Why += (I ? ", " : " with ") + With[I];
  return Why;
}

//===----------------------------------------------------------------------===//
// OwnershipAnalysis
//===----------------------------------------------------------------------===//

/// The one variable whose accesses \p Accesses add to the adjoints of (the
/// roots of their recorded primal accesses), or null.
static const Var *recordedRoot(const std::vector<Access> &Accesses) {
  const Var *Root = nullptr;
  for (const Access &A : Accesses) {
    const Var *R = A.Primal ? ActivityAnalysis::getRootVar(A.Primal) : nullptr;
    if (!R || (Root && R != Root))
      return nullptr;
    Root = R;
  }
  return Root;
}

OwnershipAnalysis::OwnershipAnalysis(const Function &Kernel) : Kernel(Kernel) {
  if (!Kernel.getBody())
    return;
  AccessCollector Collector(Kernel);
  Accumulated.insert(Collector.Accumulated.begin(), Collector.Accumulated.end());
  IndexEvaluator Evaluator(Kernel);
  unsigned Dims = threadDimsBesidesFills(Kernel);
  static const std::vector<Access> None;
  for (const Var *P : Kernel.getParams()) {
    if (!P->getType()->isPointer())
      continue;
    auto Escaped = Collector.Escapes.find(P);
    if (Escaped != Collector.Escapes.end()) {
      Results[P] = {OwnershipClass::Shared, Escaped->second};
      continue;
    }
    auto It = Collector.Accesses.find(P);
    Classifier C(*P, Evaluator, Dims);
    Results[P] = C.classify(It == Collector.Accesses.end() ? None : It->second);
    if (It != Collector.Accesses.end())
      if (const Var *X = recordedRoot(It->second))
        RecordedPrimal[P] = X;
  }
  // Gathers: say whether an element map is behind them (issue 11).
  std::optional<ElementMapAnalysis> Maps;
  for (const Var *P : Kernel.getParams())
    if (auto It = Results.find(P); It != Results.end() &&
                                   It->second.ThroughIndexArray) {
      if (!Maps)
        Maps.emplace(Kernel);
      It->second.Reason += "; " + Maps->remark(P);
      const ElementMapResult &Map = Maps->lookup(P);
      It->second.HasElementMap = Map.IsMap;
      It->second.HasElementCount = Map.IsMap && Map.counted();
    }
}

OwnershipResult OwnershipAnalysis::classify(const Var *Param) const {
  auto It = Results.find(Param);
  if (It != Results.end())
    return It->second;
  if (!Param || Kernel.getParamIndex(Param) < 0)
    return {OwnershipClass::Shared, "not a parameter of the kernel"};
  return {OwnershipClass::Shared,
          Param->getName() + " is not an array parameter of a kernel"};
}
