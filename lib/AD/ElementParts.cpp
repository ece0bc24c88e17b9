//===- AD/ElementParts.cpp - One local vertex's part of a pullback --------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "AD/ElementParts.h"
#include "Analysis/IntegerPaths.h"
#include "IR/Clone.h"
#include "IR/Traversal.h"
#include "Simplify/DeadLocals.h"
#include "Simplify/Simplifier.h"

#include "llvm/ADT/DenseMap.h"

#include <set>

using namespace meshad;
using namespace meshad::ir;
using llvm::dyn_cast;

namespace {

/// The variable \p E names as the base of an index, or null.
const Var *baseVar(const Expr *E) {
  const auto *I = dyn_cast<IndexExpr>(E);
  const auto *R = I ? dyn_cast<VarRefExpr>(I->getBase()) : nullptr;
  return R ? R->getVar() : nullptr;
}

/// An add or store into \p Out[i].
bool storesTo(const Stmt *S, const Var *Out) {
  const auto *A = dyn_cast<AssignStmt>(S);
  return A && baseVar(A->getLHS()) == Out;
}

/// The local indices each store into the local gradient writes, on every
/// path of the pullback.
class LocalStores : public IntegerPaths {
public:
  LocalStores(const Function &F, const Var *Out)
      : IntegerPaths(F), Out(Out) {}

  /// The indices a store wrote; stores with an unknown index are absent
  /// from Known and in Unknown.
  std::map<const Stmt *, std::set<long long>> Known;
  std::set<const Stmt *> Unknown;

private:
  bool watches(const Stmt *S) const override { return storesTo(S, Out); }
  bool visit(const Stmt *S, PathState &P) override {
    if (!storesTo(S, Out))
      return true;
    const auto *I = llvm::cast<IndexExpr>(llvm::cast<AssignStmt>(S)->getLHS());
    PathValue V = eval(I->getIndex(), P);
    if (V.isConstant())
      Known[S].insert(V.B);
    else
      Unknown.insert(S);
    return true;
  }

  const Var *Out;
};

/// True when every use of \p Out in \p F is the target of a store.
bool onlyStored(const Function &F, const Var *Out) {
  unsigned Uses = 0, Stores = 0;
  forEachStmt(F.getBody(), [&](const Stmt *S) {
    Stores += storesTo(S, Out);
    for (const Expr *E : ownExprs(S))
      forEachExpr(E, [&](const Expr *X) {
        const auto *R = dyn_cast<VarRefExpr>(X);
        Uses += R && R->getVar() == Out;
      });
  });
  return Uses == Stores;
}

/// Removes the stores into local arrays that nothing reads (a compound
/// assignment's read of its own element does not count) and their
/// declarations; returns how many statements went.
unsigned removeDeadArrays(Function &F, Module &M) {
  auto Pure = [](const Expr *E) {
    bool Calls = false;
    if (E)
      forEachExpr(E, [&](const Expr *X) {
        const auto *C = dyn_cast<CallExpr>(X);
        Calls |= C && C->getCalleeKind() != CallExpr::CalleeKind::Math;
      });
    return !Calls;
  };
  llvm::DenseMap<const Var *, unsigned> Reads;
  std::set<const Var *> Locals;
  forEachStmt(F.getBody(), [&](const Stmt *S) {
    if (const auto *D = dyn_cast<DeclStmt>(S))
      if (D->getVar()->getType()->isArray() && Pure(D->getInit()))
        Locals.insert(D->getVar());
    const auto *A = dyn_cast<AssignStmt>(S);
    // A store with effects keeps its array (and its declaration).
    if (A && !(Pure(A->getRHS()) && Pure(A->getLHS())))
      if (const Var *V = baseVar(A->getLHS()))
        ++Reads[V];
    for (const Expr *E : ownExprs(S))
      forEachExpr(E, [&](const Expr *X) {
        const auto *R = dyn_cast<VarRefExpr>(X);
        if (R && !(A && E == A->getLHS() && baseVar(E) == R->getVar()))
          ++Reads[R->getVar()];
      });
  });
  auto Dead = [&](const Var *V) { return Locals.count(V) && !Reads.lookup(V); };
  unsigned Removed = 0;
  IRCloner C(M);
  C.setStmtHook([&](const Stmt *S) -> std::optional<const Stmt *> {
    const auto *A = dyn_cast<AssignStmt>(S);
    const auto *D = dyn_cast<DeclStmt>(S);
    bool Drop = (A && Dead(baseVar(A->getLHS()))) || (D && Dead(D->getVar()));
    Removed += Drop;
    return Drop ? std::optional<const Stmt *>(nullptr) : std::nullopt;
  });
  BlockStmt *Body = C.cloneBlock(F.getBody());
  if (Removed)
    F.setBody(Body);
  return Removed;
}

/// A copy of the pullback \p G named \p Name without the stores that
/// \p Drop accepts, and then without the work nothing reads.
Function *partOf(Module &M, DerivedFunctionSet &Derived, Function &K,
                 const Function &G, const std::string &Name,
                 llvm::function_ref<bool(const Stmt *)> Drop) {
  Function *P = besideKernel(M, Derived, &K, Name, G.getReturnType(),
                             G.getTarget());
  IRCloner C(M);
  std::vector<Var *> Params;
  for (const Var *Param : G.getParams())
    Params.push_back(C.freshVar(Param));
  forEachStmt(G.getBody(), [&](const Stmt *S) {
    if (const auto *D = dyn_cast<DeclStmt>(S))
      C.freshVar(D->getVar());
  });
  C.setStmtHook([&](const Stmt *S) -> std::optional<const Stmt *> {
    return Drop(S) ? std::optional<const Stmt *>(nullptr) : std::nullopt;
  });
  P->setDerivativeOrder(G.getDerivativeOrder());
  P->setQualifiers(G.getQualifiers());
  P->setParams(Params);
  P->setBody(C.cloneBlock(G.getBody()));
  for (unsigned Round = 0; Round < 16; ++Round) {
    unsigned Removed = removeDeadLocals(*P);
    Removed += removeDeadArrays(*P, M);
    if (!Removed)
      break;
  }
  Simplifier(M).run(*P);
  return P;
}

/// The operations of \p F on its costliest path, or none when the walk
/// gives up.
std::optional<unsigned long long> operations(const Function &F,
                                             const Var *Out,
                                             LocalStores *Into = nullptr) {
  LocalStores Walk(F, Out);
  if (!Walk.run())
    return std::nullopt;
  if (Into) {
    Into->Known = Walk.Known;
    Into->Unknown = Walk.Unknown;
  }
  return Walk.maxOperations();
}

} // namespace

/// The average share of the whole pullback's work that the parts save, in
/// percent.
static unsigned savedPercent(const ElementParts &P) {
  unsigned long long Sum = 0;
  for (unsigned long long N : P.Parts)
    Sum += N;
  unsigned long long All = P.Whole * P.Parts.size();
  return All && Sum < All ? unsigned((All - Sum) * 100 / All) : 0;
}

/// Whether the parts are worth their branch. The gather's threads are
/// vertices, and the lanes of a warp have different local vertices at one
/// incident element, so a warp runs several parts one after another. On the
/// H100 (2026-11-25, benchmarks/results/2026-11-25-session7-h100.md) parts
/// saving 11% (springs) were 1.28x slower than the whole pullback, 13%
/// (triangles) 1.05x faster, 17% (tets) 1.02x slower.
static bool savesEnough(const ElementParts &P) {
  return savedPercent(P) >= MinSavedPercent;
}

std::string ElementParts::describe() const {
  if (!WhyNot.empty())
    return "whole pullback recomputed per vertex (" + WhyNot + ")";
  std::string Out = "own part only: ";
  for (size_t J = 0; J < Parts.size(); ++J)
    Out += (J ? ", " : "") + std::to_string(Parts[J]);
  return Out + " of " + std::to_string(Whole) +
         " operations per local vertex";
}

bool meshad::deriveElementParts(Module &M, DerivedFunctionSet &Derived,
                                Function &K, ElementFunctions &E,
                                ElementParts &Out, bool Always) {
  Out = ElementParts();
  E.Parts.clear();
  // Counted as emitted: the parts are simplified, so is the whole.
  Simplifier(M).run(*E.Gradient);
  const Function &G = *E.Gradient;
  const Var *Local = G.getParams().back();
  if (!onlyStored(G, Local)) {
    Out.WhyNot = "the local gradient is passed on or read";
    return false;
  }
  LocalStores Stores(G, Local);
  std::optional<unsigned long long> Whole = operations(G, Local, &Stores);
  if (!Whole) {
    Out.WhyNot = "the pullback's stores are not known on every path";
    return false;
  }
  Out.Whole = *Whole;
  long long S = E.Map.Stride;
  std::vector<Function *> Parts;
  size_t Before = Derived.entries().size();
  for (long long J = 0; J < E.map().Arity; ++J) {
    auto Others = [&](const Stmt *St) {
      auto It = Stores.Known.find(St);
      return It != Stores.Known.end() && !Stores.Unknown.count(St) &&
             llvm::none_of(It->second, [&](long long I) {
               return I >= S * J && I < S * J + S;
             });
    };
    std::string Name = G.getName() + "_" + std::to_string(J);
    Function *P = Derived.lookup(DerivedFunctionSet::keyFor(&K, Name));
    if (!P)
      P = partOf(M, Derived, K, G, Name, Others);
    std::optional<unsigned long long> Ops =
        operations(*P, P->getParams().back());
    Out.Parts.push_back(Ops ? *Ops : Out.Whole);
    Parts.push_back(P);
  }
  if (llvm::all_of(Out.Parts, [&](auto N) { return N >= Out.Whole; })) {
    Out.WhyNot = "each local vertex reads all of the pullback's work";
    Derived.truncate(Before); // the parts made here are not called
    return false;
  }
  if (!Always && !savesEnough(Out)) {
    Out.WhyNot = "the parts save " + std::to_string(savedPercent(Out)) +
                 "% of the work on average, under the " +
                 std::to_string(MinSavedPercent) +
                 "% that a warp's divergence on the local vertex costs";
    Derived.truncate(Before);
    return false;
  }
  E.Parts = std::move(Parts);
  return true;
}
