//===- Analysis/ElementMaps.cpp - Element -> DOF maps of kernels ----------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Every access to an array is evaluated with loads from the kernel's
/// read-only integer arrays as Gathered atoms (IndexForms.h), then taken
/// apart: s*{v} + k, and the position of v as c*t + j. The counters in j
/// and k are enumerated together, so that the slots (j, k) of
/// `x[3*faces[3*f + j] + j]` are only those with equal j and k.
///
//===----------------------------------------------------------------------===//

#include "Analysis/ElementMaps.h"
#include "AD/Analysis/Activity.h"
#include "Analysis/IRWalk.h"
#include "Analysis/IndexForms.h"
#include "GPU/OwnershipAccesses.h"
#include "IR/Intrinsics.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MathExtras.h"

#include <iterator>
#include <map>

using namespace meshad;
using namespace meshad::ir;
using namespace meshad::ownership;
using irwalk::spell;
using llvm::dyn_cast;

std::string ElementMapResult::describe() const {
  if (Maps.size() == 1)
    return "element map through " + Maps.front().IndexArray->getName() +
           " (arity " + std::to_string(Maps.front().Arity) + ", stride " +
           std::to_string(Stride) + ")";
  std::string Through;
  for (size_t I = 0; I < Maps.size(); ++I)
    Through += std::string(I == 0                 ? ""
                           : I + 1 == Maps.size() ? " and "
                                                  : ", ") +
               Maps[I].IndexArray->getName() + " (arity " +
               std::to_string(Maps[I].Arity) + ")";
  return "element maps through " + Through + ", stride " +
         std::to_string(Stride);
}

bool ElementMapResult::counted() const {
  return Count.Count ||
         (!Maps.empty() && llvm::all_of(Maps, [](const ElementMap &M) {
           return M.Count.Count != nullptr;
         }));
}

std::string ElementMapResult::describeCount() const {
  if (Count.Count || !counted())
    return Count.describe();
  std::string Out;
  for (const ElementMap &M : Maps)
    Out += std::string(Out.empty() ? "" : ", ") + M.IndexArray->getName() +
           ": " + M.Count.describe();
  return Out;
}

namespace {

/// The most (j, k) combinations enumerated per access.
constexpr long long MaxSlotCombinations = 4096;

/// An access x[Stride*v + Component], v the Gathered atom GatherId.
struct MapAccess {
  const Access *A = nullptr;
  unsigned GatherId = 0;
  long long Stride = 0;
  Affine Component;
};

/// The position of a load, c*t + j.
struct Position {
  Atom Element;
  long long Arity = 0;
  Affine Local;
};

/// Decides whether one array is read through element maps.
class MapClassifier {
public:
  MapClassifier(const Function &Kernel, const Var &Param,
                IndexEvaluator &Evaluator,
                const std::map<const Var *, std::string> &NotIndexArrays)
      : Kernel(Kernel), Param(Param), Evaluator(Evaluator),
        NotIndexArrays(NotIndexArrays) {}

  ElementMapResult classify(const std::vector<Access> &Accesses);

private:
  static ElementMapResult none(std::string Why) {
    ElementMapResult R;
    R.Reason = std::move(Why);
    return R;
  }
  /// Each function returns "" or why the access is not x[s*v + k].
  std::string add(const Access &A, ElementMapResult &R);
  std::string split(const Access &A, MapAccess &M) const;
  std::string whyNotEvaluated(const Access &A, const Eval &E) const;
  std::string splitPosition(const MapAccess &M, Position &P) const;
  std::string addSlots(const MapAccess &M, const Position &P,
                       std::set<std::pair<long long, long long>> &Out) const;
  std::string spellAccess(const Access &A) const;

  const Function &Kernel;
  const Var &Param;
  IndexEvaluator &Evaluator;
  const std::map<const Var *, std::string> &NotIndexArrays;
  /// The element id of the first access, and that access.
  std::optional<Atom> Element;
  const Access *First = nullptr;
};

/// True when \p A and \p B are the same element id: the thread id, or
/// grid-stride loop counters (all of them start at the thread id and step
/// by the thread count, so one element is one counter value).
bool sameElement(const Atom &A, const Atom &B) {
  return A.Kind == B.Kind && (A.Kind == AtomKind::GridStride || A == B);
}

} // namespace

std::string MapClassifier::spellAccess(const Access &A) const {
  if (A.Index || !llvm::isa<VarRefExpr>(A.Spelled))
    return spell(A.Spelled);
  return Param.getName() + "[0]";
}

ElementMapResult MapClassifier::classify(const std::vector<Access> &Accesses) {
  if (Accesses.empty())
    return none(Param.getName() + " is never indexed");
  ElementMapResult R;
  for (const Access &A : Accesses)
    if (std::string Why = add(A, R); !Why.empty())
      return none(Why);
  R.IsMap = true;
  R.GridStride = Element->Kind == AtomKind::GridStride;
  R.ElementId = Evaluator.spellAtom(*Element);
  R.LaunchDims = 1;
  R.Count = findElementCount(Kernel, Evaluator, *Element, Accesses);
  // Each map's own count: two element kinds in one launch may have two
  // guards (if (t < ne) {edges} if (t < nt) {triangles}).
  for (ElementMap &Map : R.Maps) {
    std::vector<Access> Own;
    for (size_t I = 0; I < Accesses.size(); ++I)
      if (R.Accesses[I].IndexArray == Map.IndexArray)
        Own.push_back(Accesses[I]);
    Map.Count = R.Maps.size() == 1
                    ? R.Count
                    : findElementCount(Kernel, Evaluator, *Element, Own);
  }
  return R;
}

std::string MapClassifier::add(const Access &A, ElementMapResult &R) {
  MapAccess M;
  M.A = &A;
  if (std::string Why = split(A, M); !Why.empty())
    return Why;
  if (R.Stride != 0 && R.Stride != M.Stride)
    return Param.getName() + " is read with the strides " +
           std::to_string(R.Stride) + " (" + spellAccess(*First) + ") and " +
           std::to_string(M.Stride) + " (" + spellAccess(A) + ")";
  R.Stride = M.Stride;
  Position P;
  if (std::string Why = splitPosition(M, P); !Why.empty())
    return Why;
  if (Element && !sameElement(*Element, P.Element))
    return spellAccess(*First) + " and " + spellAccess(A) +
           " read the elements of " + Evaluator.spellAtom(*Element) + " and " +
           Evaluator.spellAtom(P.Element) + ": not one element id";
  if (!Element) {
    Element = P.Element;
    First = &A;
  }
  const Var *Index = Evaluator.getGather(M.GatherId).Array;
  auto It = llvm::find_if(
      R.Maps, [&](const ElementMap &Map) { return Map.IndexArray == Index; });
  if (It == R.Maps.end()) {
    R.Maps.push_back(ElementMap{Index, P.Arity, {}});
    It = std::prev(R.Maps.end());
  } else if (It->Arity != P.Arity) {
    return Index->getName() + " is read with the arities " +
           std::to_string(It->Arity) + " and " + std::to_string(P.Arity) +
           " (" + spellAccess(A) + ")";
  }
  SlotAccess Slots{A.Spelled, nullptr, Index, {}};
  if (std::string Why = addSlots(M, P, Slots.Slots); !Why.empty())
    return Why;
  It->Slots.insert(Slots.Slots.begin(), Slots.Slots.end());
  R.Accesses.push_back(std::move(Slots));
  return "";
}

std::string MapClassifier::whyNotEvaluated(const Access &A,
                                           const Eval &E) const {
  std::string Why = spellAccess(A) + ": " + E.Why;
  const auto *Load = llvm::dyn_cast_or_null<IndexExpr>(E.Culprit);
  const Var *Root = Load ? ActivityAnalysis::getRootVar(Load) : nullptr;
  auto It = Root ? NotIndexArrays.find(Root) : NotIndexArrays.end();
  if (It != NotIndexArrays.end())
    Why += " (" + It->second + ")";
  return Why;
}

std::string MapClassifier::split(const Access &A, MapAccess &M) const {
  Eval E = A.Index ? Evaluator.eval(A.Index) : Eval::ok(Affine::literal(0));
  if (!E.Ok)
    return whyNotEvaluated(A, E);
  foldGid(E.Form);
  std::string Access = spellAccess(A);
  bool Loaded = llvm::any_of(E.Form.Terms, [](const auto &T) {
    std::optional<Atom> At = threadAtomOf(T.first);
    return At && At->Kind == AtomKind::Gathered;
  });
  if (!Loaded)
    return Access + " is not read through an index array";
  bool Found = false;
  for (const auto &[Mono, C] : E.Form.Terms) {
    std::optional<Atom> T = threadAtomOf(Mono);
    if (!T) {
      M.Component.Terms[Mono] = C;
      continue;
    }
    if (T->Kind != AtomKind::Gathered)
      return Access + ": the index depends on the thread itself (" +
             Evaluator.spellAtom(*T) + "), not only on a loaded vertex";
    std::string Vertex = Evaluator.spellAtom(*T);
    if (Found)
      return Access + " adds several loaded values";
    if (Mono.size() != 1) {
      Affine Rest;
      Rest.Terms[Mono] = C;
      return Access + ": the stride of " + Vertex + " in " +
             Evaluator.spell(Rest) + " is not a literal";
    }
    if (C < 1)
      return Access + ": the stride " + std::to_string(C) + " of " + Vertex +
             " is not positive";
    Found = true;
    M.GatherId = T->Id;
    M.Stride = C;
  }
  M.Component.Const = E.Form.Const;
  return "";
}

std::string MapClassifier::splitPosition(const MapAccess &M,
                                         Position &P) const {
  const GatherInfo &G = Evaluator.getGather(M.GatherId);
  std::string Load = G.Array->getName() + "[" + Evaluator.spell(G.Position) +
                     "]" + (G.NamedByLocal ? " (" + G.Name + ")" : "");
  bool Found = false;
  for (const auto &[Mono, C] : G.Position.Terms) {
    std::optional<Atom> T = threadAtomOf(Mono);
    if (!T) {
      P.Local.Terms[Mono] = C;
      continue;
    }
    bool ElementId = (T->Kind == AtomKind::Gid && T->Dim == 0) ||
                     T->Kind == AtomKind::GridStride;
    if (!ElementId || Mono.size() != 1)
      return spellAccess(*M.A) + ": in " + Load + ", " +
             Evaluator.spell(G.Position) +
             " is not arity*t + j with t the thread's element id (the 1D "
             "thread id or a grid-stride loop counter)";
    if (C < 1 || Found)
      return spellAccess(*M.A) + ": in " + Load + ", " +
             Evaluator.spell(G.Position) +
             " is not arity*t + j with a "
             "positive arity and one element id";
    Found = true;
    P.Element = *T;
    P.Arity = C;
  }
  if (!Found)
    return spellAccess(*M.A) + ": " + Load +
           " does not depend on the thread: no element of its own";
  P.Local.Const = G.Position.Const;
  return "";
}

namespace {

/// Values of the loop counters in the local vertex and the component.
class CounterValues {
public:
  /// "" or why \p F is not a literal plus multiples of counters with
  /// literal ranges.
  std::string collect(const Affine &F, const IndexEvaluator &Evaluator) {
    for (const auto &[Mono, C] : F.Terms) {
      const SymbolInfo *Info =
          Mono.size() == 1 && Mono.front().Kind == AtomKind::Symbol
              ? &Evaluator.getSymbol(Mono.front().Id)
              : nullptr;
      if (!Info || !Info->Range)
        return Evaluator.spellMonomial(Mono) +
               " is not a loop counter with literal bounds";
      if (!llvm::is_contained(Ids, Mono.front().Id)) {
        Ids.push_back(Mono.front().Id);
        Ranges.push_back(*Info->Range);
      }
    }
    return "";
  }
  /// The number of combinations, or none beyond \p Max.
  std::optional<long long> count(long long Max) const {
    long long N = 1;
    for (const auto &[Lo, Hi] : Ranges)
      if (llvm::MulOverflow(N, Hi - Lo + 1, N) || N > Max)
        return std::nullopt;
    return N;
  }
  /// \p F at combination \p Index, or none on overflow.
  std::optional<long long> valueAt(const Affine &F, long long Index) const {
    long long V = F.Const;
    for (const auto &[Mono, C] : F.Terms) {
      size_t K = llvm::find(Ids, Mono.front().Id) - Ids.begin();
      long long Digit = Index;
      for (size_t I = 0; I < K; ++I)
        Digit /= Ranges[I].second - Ranges[I].first + 1;
      Digit %= Ranges[K].second - Ranges[K].first + 1;
      long long Term;
      if (llvm::MulOverflow(C, Ranges[K].first + Digit, Term) ||
          llvm::AddOverflow(V, Term, V))
        return std::nullopt;
    }
    return V;
  }

private:
  std::vector<unsigned> Ids;
  std::vector<std::pair<long long, long long>> Ranges;
};

} // namespace

std::string
MapClassifier::addSlots(const MapAccess &M, const Position &P,
                        std::set<std::pair<long long, long long>> &Out) const {
  std::string Access = spellAccess(*M.A);
  CounterValues Values;
  if (std::string Why = Values.collect(P.Local, Evaluator); !Why.empty())
    return Access + ": the local vertex: " + Why;
  if (std::string Why = Values.collect(M.Component, Evaluator); !Why.empty())
    return Access + ": the component: " + Why;
  std::optional<long long> N = Values.count(MaxSlotCombinations);
  if (!N)
    return Access + ": more than " + std::to_string(MaxSlotCombinations) +
           " slots";
  for (long long I = 0; I < *N; ++I) {
    std::optional<long long> J = Values.valueAt(P.Local, I);
    std::optional<long long> K = Values.valueAt(M.Component, I);
    if (!J || !K)
      return Access + ": the index overflows";
    if (*J < 0 || *J >= P.Arity)
      return Access + ": the local vertex " + std::to_string(*J) +
             " is not in [0, " + std::to_string(P.Arity) + ")";
    if (*K < 0 || *K >= M.Stride)
      return Access + ": the component " + std::to_string(*K) +
             " is not in [0, " + std::to_string(M.Stride) + ")";
    Out.insert({*J, *K});
  }
  return "";
}

//===----------------------------------------------------------------------===//
// ElementMapAnalysis
//===----------------------------------------------------------------------===//

namespace {

/// The stores of a kernel to its pointer parameters.
struct Stores {
  /// One store to each parameter the kernel writes, spelled.
  std::map<const Var *, std::string> FirstWrite;
  /// The stored accesses (as AccessCollector records them: x[i], not
  /// &x[i].y): how many stores only add to them (+=, -=, Accumulate, an
  /// accumulating atomic whose value is unused), and those that some store
  /// does not only add to.
  std::map<const Expr *, unsigned> AddCount;
  std::set<const Expr *> NotAdded;
  /// The statement of every expression of the kernel; null for a node
  /// that several statements share.
  llvm::DenseMap<const Expr *, const Stmt *> StmtOf;

  explicit Stores(const Function &K);
  /// True when every occurrence of \p E in \p R's accesses is a store
  /// that adds, each in a statement of its own.
  bool onlyAdds(const Expr *E, const ElementMapResult &R) const;

private:
  void record(const Function &K, const Expr *Target, bool Add,
              std::string Spelled);
};

} // namespace

/// The access that a store to \p Target records: x[i] for &x[i].y.
static const Expr *storedAccess(const Expr *Target) {
  Target = irwalk::stripCasts(Target);
  if (const auto *U = dyn_cast<UnaryExpr>(Target))
    if (U->getOp() == UnaryOp::AddrOf)
      Target = U->getSub();
  while (const auto *M = dyn_cast<MemberExpr>(Target)) {
    if (M->isArrow())
      break;
    Target = M->getBase();
  }
  return Target;
}

void Stores::record(const Function &K, const Expr *Target, bool Add,
                    std::string Spelled) {
  Target = irwalk::stripCasts(Target);
  const Var *Root = ActivityAnalysis::getRootVar(Target);
  if (!Root || !Root->getType()->isPointer() || K.getParamIndex(Root) < 0)
    return;
  FirstWrite.try_emplace(Root, std::move(Spelled));
  if (Add)
    ++AddCount[storedAccess(Target)];
  else
    NotAdded.insert(storedAccess(Target));
}

bool Stores::onlyAdds(const Expr *E, const ElementMapResult &R) const {
  auto Count = AddCount.find(E);
  size_t Uses = llvm::count_if(
      R.Accesses, [&](const SlotAccess &A) { return A.Access == E; });
  return !NotAdded.count(E) && StmtOf.lookup(E) && Count != AddCount.end() &&
         Count->second == Uses;
}

Stores::Stores(const Function &K) {
  irwalk::forEachStmt(K.getBody(), [&](const Stmt *S) {
    // `p = q` moves the pointer (an escape), it writes no element.
    const auto *A = dyn_cast<AssignStmt>(S);
    if (A && !llvm::isa<VarRefExpr>(A->getLHS()))
      record(K, A->getLHS(),
             A->getOp() == AssignOp::AddAssign ||
                 A->getOp() == AssignOp::SubAssign ||
                 A->getOp() == AssignOp::Accumulate,
             spell(A->getLHS()) + " is assigned");
    for (const Expr *E : irwalk::ownExprs(S))
      irwalk::forEachExpr(E, [&](const Expr *Sub) {
        auto [It, New] = StmtOf.try_emplace(Sub, S);
        if (!New && It->second != S)
          It->second = nullptr;
        const auto *C = dyn_cast<CallExpr>(Sub);
        const IntrinsicInfo *Info = C ? lookupIntrinsic(C) : nullptr;
        const auto *Whole = dyn_cast<ExprStmt>(S);
        bool Discarded = Whole && Whole->getExpr() == C;
        for (unsigned I = 0; Info && I < C->getNumArgs(); ++I)
          if (Info->writesArg(I))
            record(K, C->getArg(I), I == 0 && Info->accumulates() && Discarded,
                   C->getName() + " writes " + spell(C->getArg(I)));
      });
  });
}

/// The integer array parameters of \p K that it never writes; why not for
/// the other pointer parameters, in \p Why.
static std::vector<const Var *>
indexArrays(const Function &K, const AccessCollector &Collector,
            const Stores &S, std::map<const Var *, std::string> &Why) {
  std::vector<const Var *> Arrays;
  for (const Var *P : K.getParams()) {
    if (!P->getType()->isPointer())
      continue;
    if (!P->getType()->getElement()->isIntegral())
      Why[P] = P->getName() + " is not an integer array";
    else if (auto E = Collector.Escapes.find(P); E != Collector.Escapes.end())
      Why[P] = E->second;
    else if (auto W = S.FirstWrite.find(P); W != S.FirstWrite.end())
      Why[P] = P->getName() + " is written by the kernel: " + W->second;
    else
      Arrays.push_back(P);
  }
  return Arrays;
}

/// \p R with why it is no map instead.
static ElementMapResult noMap(std::string Why) {
  ElementMapResult R;
  R.Reason = std::move(Why);
  return R;
}

ElementMapAnalysis::ElementMapAnalysis(const Function &Kernel)
    : NotAParam(noMap("not an array parameter of the kernel")),
      Work(estimateElementWork(Kernel)) {
  if (!Kernel.getBody())
    return;
  AccessCollector Collector(Kernel);
  Stores S(Kernel);
  std::map<const Var *, std::string> NotIndexArrays;
  IndexEvaluator Evaluator(Kernel);
  Evaluator.setGatherArrays(indexArrays(Kernel, Collector, S, NotIndexArrays));
  bool OneDim = threadDimsOf(Kernel) == 1;
  static const std::vector<Access> None;
  for (const Var *P : Kernel.getParams()) {
    if (!P->getType()->isPointer())
      continue;
    auto Escape = Collector.Escapes.find(P);
    auto It = Collector.Accesses.find(P);
    MapClassifier C(Kernel, *P, Evaluator, NotIndexArrays);
    ElementMapResult R =
        Escape != Collector.Escapes.end() ? noMap(Escape->second)
        : !OneDim
            ? noMap("the kernel's threads differ in more than one "
                    "dimension: element ids are only analysed in 1D "
                    "kernels")
            : C.classify(It == Collector.Accesses.end() ? None : It->second);
    for (SlotAccess &A : R.Accesses)
      A.Statement = S.StmtOf.lookup(A.Access);
    auto W = S.FirstWrite.find(P);
    if (W == S.FirstWrite.end()) {
      Results[P] = std::move(R);
      continue;
    }
    Results[P] =
        noMap(P->getName() + " is written by the kernel: " + W->second);
    auto NotAdd = llvm::find_if(R.Accesses, [&](const SlotAccess &A) {
      return !S.onlyAdds(A.Access, R);
    });
    StoreResults[P] = !R.IsMap || NotAdd == R.Accesses.end()
                          ? std::move(R)
                          : noMap(spell(NotAdd->Access) +
                                  " is read or assigned, not only added to");
  }
}

const ElementMapResult &ElementMapAnalysis::lookup(const Var *Param) const {
  auto It = Results.find(Param);
  return It != Results.end() ? It->second : NotAParam;
}

const ElementMapResult &
ElementMapAnalysis::lookupStores(const Var *Param) const {
  auto It = StoreResults.find(Param);
  return It != StoreResults.end() ? It->second : NotAParam;
}

std::string ElementMapAnalysis::remark(const Var *Param) const {
  const ElementMapResult &R = lookup(Param);
  std::string Name = Param ? Param->getName() : "?";
  if (!R.IsMap)
    return Name + ": no element map: " + R.Reason;
  if (!R.counted())
    return Name + ": " + R.describe() + ", " + R.Count.describe() +
           ": no atomic-free strategy";
  return Name + ": " + R.describe() + ", " + R.describeCount() +
         ", element work " + Work.describe() +
         ": atomic-free strategies possible";
}
