//===- AD/HessianSparseLoopShape.cpp - Loops of a sparse Hessian ----------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "AD/HessianSparseLoopShape.h"
#include "AD/Analysis/Activity.h"
#include "AD/Analysis/ReverseNeeds.h"
#include "IR/Builder.h"
#include "IR/Traversal.h"
#include "Simplify/SimplifyUtils.h"

using namespace meshad;
using namespace meshad::ir;
using meshad::ownership::Affine;
using meshad::ownership::Atom;
using meshad::ownership::AtomKind;
using llvm::dyn_cast;

namespace {

/// A problem with the request, at the construct it names.
struct Problem {
  clang::SourceLocation Loc;
  std::string Why;
  bool set(clang::SourceLocation L, std::string W) {
    if (Why.empty()) {
      Loc = L;
      Why = std::move(W);
    }
    return false;
  }
};

const Expr *bare(const Expr *E) {
  while (const auto *C = dyn_cast<CastExpr>(E))
    E = C->getSub();
  return E;
}

bool refersTo(const Expr *E, const Var *V) {
  bool Found = false;
  if (E)
    forEachExpr(E, [&](const Expr *Sub) {
      const auto *R = dyn_cast<VarRefExpr>(Sub);
      Found |= R && R->getVar() == V;
    });
  return Found;
}

/// Calls \p F on every top expression of \p S's statements (nested ones
/// included).
void forEachTopExpr(const Stmt *S,
                    llvm::function_ref<void(const Stmt *, const Expr *)> F) {
  forEachStmt(S, [&](const Stmt *Sub) {
    for (const Expr *E : ownExprs(Sub))
      F(Sub, E);
  });
}

/// The number of references to \p V in \p S's expressions.
unsigned countRefs(const Stmt *S, const Var *V) {
  unsigned N = 0;
  forEachTopExpr(S, [&](const Stmt *, const Expr *E) {
    forEachExpr(E, [&](const Expr *Sub) {
      const auto *R = dyn_cast<VarRefExpr>(Sub);
      N += R && R->getVar() == V;
    });
  });
  return N;
}

bool refersToAny(const Expr *E, const std::vector<const Var *> &Vs) {
  return llvm::any_of(Vs, [&](const Var *V) { return refersTo(E, V); });
}

/// "'x'", or "'x', 'v'": the selected arrays' names.
std::string names(const std::vector<const Var *> &Xs) {
  std::string Out;
  for (const Var *X : Xs)
    Out += (Out.empty() ? "'" : ", '") + X->getName() + "'";
  return Out;
}

/// True when a statement of \p S assigns \p V (or an element of it).
bool assigns(const Stmt *S, const Var *V) {
  bool Found = false;
  forEachStmt(S, [&](const Stmt *Sub) {
    const auto *A = dyn_cast<AssignStmt>(Sub);
    Found |= A && ActivityAnalysis::getRootVar(A->getLHS()) == V;
  });
  return Found;
}

/// The location of \p S, else \p Fallback.
clang::SourceLocation locOr(const Stmt *S, clang::SourceLocation Fallback) {
  return S && S->getLoc().isValid() ? S->getLoc() : Fallback;
}

/// The accumulators of `return a;`, `return e + v;`, `return e - v;`, with
/// their signs; false for anything else.
bool returnSigns(const Expr *E, int Sign, std::map<const Var *, int> &Signs) {
  E = bare(E);
  if (const auto *R = dyn_cast<VarRefExpr>(E))
    return Signs.emplace(R->getVar(), Sign).second;
  if (const auto *U = dyn_cast<UnaryExpr>(E))
    return U->getOp() == UnaryOp::Neg && returnSigns(U->getSub(), -Sign, Signs);
  const auto *B = dyn_cast<BinaryExpr>(E);
  if (!B || (B->getOp() != BinaryOp::Add && B->getOp() != BinaryOp::Sub))
    return false;
  return returnSigns(B->getLHS(), Sign, Signs) &&
         returnSigns(B->getRHS(), B->getOp() == BinaryOp::Sub ? -Sign : Sign,
                     Signs);
}

/// The loop `for (int i = Lo; i < Hi; ++i)` (or `i <= Hi - 1`) \p Loop,
/// or false with \p P set.
bool matchCounted(Module &M, const std::vector<const Var *> &Xs,
                  const ForStmt *Loop, Var *&Counter, const Expr *&Lo,
                  const Expr *&Hi, Problem &P) {
  std::optional<CanonicalLoop> C = ReverseNeeds::matchCanonical(*Loop);
  const auto *Step =
      C && C->Step ? dyn_cast<IntLitExpr>(bare(C->Step)) : nullptr;
  const auto *Cond = C ? dyn_cast<BinaryExpr>(Loop->getCond()) : nullptr;
  const auto *Lhs =
      Cond ? dyn_cast<VarRefExpr>(bare(Cond->getLHS())) : nullptr;
  bool Ok = C && !C->Decrement && (!C->Step || (Step && Step->getValue() == 1));
  Ok = Ok && Lhs && Lhs->getVar() == C->Counter &&
       (Cond->getOp() == BinaryOp::Lt || Cond->getOp() == BinaryOp::Le) &&
       !refersTo(Cond->getRHS(), C->Counter) &&
       !refersToAny(Cond->getRHS(), Xs) && !refersToAny(C->Init, Xs);
  if (!Ok)
    return P.set(Loop->getLoc(),
                 "expected the loop `for (int i = lo; i < hi; ++i)` (an "
                 "integer counter counting up by 1, bounds that do not read " +
                     names(Xs) + ")");
  IRBuilder B(M);
  Counter = C->Counter;
  Lo = C->Init;
  Hi = Cond->getOp() == BinaryOp::Le ? B.add(Cond->getRHS(), B.intLit(1))
                                     : Cond->getRHS();
  return true;
}

/// The loop of \p L, and its inner loop when its body is one loop that is
/// not unrolled (a run-time trip count), or false with \p P set.
bool matchLoop(Module &M, const std::vector<const Var *> &Xs, SparseLoop &L,
               Problem &P) {
  if (!matchCounted(M, Xs, L.Loop, L.Counter, L.Lo, L.Hi, P))
    return false;
  const std::vector<const Stmt *> &Body = L.Loop->getBody()->getBody();
  L.Inner = Body.size() == 1 ? dyn_cast<ForStmt>(Body[0]) : nullptr;
  return !L.Inner || matchCounted(M, Xs, L.Inner, L.InnerCounter, L.InnerLo,
                                  L.InnerHi, P);
}

/// Checks that a declaration outside the loops reads neither x nor an
/// accumulator.
bool checkDecl(const Function &F, const SparseLoopShape &S, const DeclStmt *D,
               Problem &P) {
  for (const Var *X : S.Arrays)
    if (refersTo(D->getInit(), X))
      return P.set(locOr(D, F.getLoc()),
                   "'" + X->getName() + "' is read outside the loops");
  for (const auto &[Acc, Sign] : S.Signs)
    if (Acc != D->getVar() && refersTo(D->getInit(), Acc))
      return P.set(locOr(D, F.getLoc()),
                   "'" + D->getVar()->getName() + "' reads the accumulator '" +
                       Acc->getName() + "' between the loops");
  return true;
}

/// \p F as declarations and loops, then `return` of the accumulators, or
/// false with \p P.
bool matchShape(Module &M, const Function &F, SparseLoopShape &S, Problem &P) {
  const std::vector<const Stmt *> &Body = F.getBody()->getBody();
  const auto *Ret = Body.empty() ? nullptr : dyn_cast<ReturnStmt>(Body.back());
  bool Ok = Ret && Ret->getValue() && returnSigns(Ret->getValue(), 1, S.Signs);
  for (size_t I = 0; Ok && I + 1 < Body.size(); ++I) {
    if (const auto *D = dyn_cast<DeclStmt>(Body[I]))
      S.Decls.push_back(D);
    else if (const auto *L = dyn_cast<ForStmt>(Body[I]))
      S.Loops.push_back(SparseLoop{L});
    else
      Ok = false;
  }
  if (!Ok || S.Loops.empty())
    return P.set(F.getLoc(), "expected declarations and `for` loops that add "
                             "terms into locals, then `return` of those "
                             "locals (or of their sum)");
  for (const auto &[Acc, Sign] : S.Signs) {
    bool Declared = llvm::any_of(
        S.Decls, [&](const DeclStmt *D) { return D->getVar() == Acc; });
    if (!Declared || !Acc->getType()->isFloatingScalar())
      return P.set(locOr(Ret, F.getLoc()),
                   "the function must return the floating-point local that "
                   "the loop adds its terms into (or a sum of such locals)");
  }
  for (const DeclStmt *D : S.Decls)
    if (!checkDecl(F, S, D, P))
      return false;
  for (SparseLoop &L : S.Loops)
    if (!matchLoop(M, S.Arrays, L, P))
      return false;
  return true;
}

/// True when \p S leaves the loop around it (a break or continue outside
/// nested loops).
bool leavesLoop(const Stmt *S) {
  if (llvm::isa<BreakStmt>(S) || llvm::isa<ContinueStmt>(S))
    return true;
  if (const auto *B = dyn_cast<BlockStmt>(S))
    return llvm::any_of(B->getBody(), leavesLoop);
  if (const auto *I = dyn_cast<IfStmt>(S))
    return leavesLoop(I->getThen()) ||
           (I->getElse() && leavesLoop(I->getElse()));
  return false;
}

/// The accumulators' updates in \p L: only `acc += term` / `acc -= term`,
/// nothing else carried across iterations (parameters, x), no return.
void checkUpdates(const Function &F, const SparseLoopShape &S, SparseLoop &L,
                  Problem &P) {
  clang::SourceLocation LoopLoc = locOr(L.Loop, F.getLoc());
  forEachStmt(L.Loop->getBody(), [&](const Stmt *Sub) {
    if (llvm::isa<ReturnStmt>(Sub))
      P.set(locOr(Sub, LoopLoc), "a return inside the loop");
    const auto *A = dyn_cast<AssignStmt>(Sub);
    const Var *Root = A ? ActivityAnalysis::getRootVar(A->getLHS()) : nullptr;
    if (!Root)
      return;
    bool Add = A->getOp() == AssignOp::AddAssign ||
               A->getOp() == AssignOp::SubAssign;
    bool ReadsAcc = llvm::any_of(S.Signs, [&](const auto &Acc) {
      return refersTo(A->getRHS(), Acc.first);
    });
    if (S.Signs.count(Root) && Add && llvm::isa<VarRefExpr>(A->getLHS()) &&
        !ReadsAcc) {
      if (!llvm::is_contained(L.Accs, Root))
        L.Accs.push_back(Root);
    } else if (S.Signs.count(Root)) {
      P.set(locOr(Sub, LoopLoc),
            "'" + Root->getName() + "' is updated other than by `" +
                Root->getName() +
                " += term`: a loop-carried nonlinear dependence (each "
                "iteration must add a term of its own entries)");
    } else if (Root->isParam()) {
      P.set(locOr(Sub, LoopLoc),
            "the loop writes '" + Root->getName() +
                "', which later iterations may read (a loop-carried "
                "dependence)");
    }
  });
}

/// Checks that one iteration of \p L is a term of its own, and finds the
/// locals it reads that the loops never change.
bool checkIterations(const Function &F, const SparseLoopShape &S, SparseLoop &L,
                     Problem &P) {
  const BlockStmt *Body = L.Loop->getBody();
  clang::SourceLocation LoopLoc = locOr(L.Loop, F.getLoc());
  checkUpdates(F, S, L, P);
  if (leavesLoop(Body) || leavesLoop(L.body()))
    P.set(LoopLoc, "a break or continue of the loop: every iteration must "
                   "add its term");
  for (const auto &[Acc, Sign] : S.Signs) {
    unsigned Adds = 0;
    forEachStmt(Body, [&](const Stmt *Sub) {
      const auto *A = dyn_cast<AssignStmt>(Sub);
      const auto *R = A ? dyn_cast<VarRefExpr>(A->getLHS()) : nullptr;
      Adds += R && R->getVar() == Acc;
    });
    if (P.Why.empty() && countRefs(Body, Acc) != Adds)
      P.set(LoopLoc, "'" + Acc->getName() +
                         "' is read inside the loop: its value carries from "
                         "one iteration to the next (a loop-carried "
                         "dependence)");
  }
  for (const DeclStmt *D : S.Decls) {
    Var *V = D->getVar();
    if (S.Signs.count(V) || !P.Why.empty() || !countRefs(Body, V))
      continue;
    const Type *Ty = V->getType()->getUnqualified();
    if (assigns(F.getBody(), V) || !(Ty->isFloatingScalar() || Ty->isIntegral()))
      P.set(LoopLoc, "'" + V->getName() +
                         "', declared before the loop, is used in it: "
                         "declare it inside the loop or pass it as a "
                         "parameter");
    else
      L.Invariants.push_back(V);
  }
  for (const Var *Param : F.getParams())
    if (Param->getType()->isPointer() && P.Why.empty() &&
        writesMemoryOf(Body, Param))
      P.set(LoopLoc, "the loop writes the memory of '" + Param->getName() +
                         "', which later iterations may read (a "
                         "loop-carried dependence)");
  return P.Why.empty();
}

/// The integer parameter or invariant local named \p Name.
Var *symbolVar(const Function &F, const SparseLoop &L, const std::string &Name) {
  for (Var *V : F.getParams())
    if (V->getName() == Name && V->getType()->getUnqualified()->isIntegral())
      return V;
  for (Var *V : L.Invariants)
    if (V->getName() == Name && V->getType()->getUnqualified()->isIntegral())
      return V;
  return nullptr;
}

/// True when every monomial of \p Form is an index array's value at a
/// position that is such a form, or a product of at most one of the
/// \p Counters and parameters or invariant locals (the atoms' variables
/// into \p AtomVars).
bool isEntryForm(const ownership::IndexEvaluator &Ev, const Affine &Form,
                 const Function &F, const SparseLoop &L,
                 const std::vector<Atom> &Counters,
                 std::map<Atom, Var *> &AtomVars, bool InGather = false) {
  for (const auto &[Mono, Coeff] : Form.Terms) {
    if (Mono.size() == 1 && Mono[0].Kind == AtomKind::Gathered) {
      if (InGather || !isEntryForm(Ev, Ev.getGather(Mono[0].Id).Position, F,
                                   L, Counters, AtomVars, true))
        return false;
      continue;
    }
    unsigned NumCounters = 0;
    for (const Atom &A : Mono) {
      if (llvm::is_contained(Counters, A)) {
        ++NumCounters;
        continue;
      }
      if (A.Kind != AtomKind::Symbol || !Ev.getSymbol(A.Id).Invariant)
        return false;
      Var *V = AtomVars.count(A) ? AtomVars[A]
                                 : symbolVar(F, L, Ev.getSymbol(A.Id).Name);
      if (!V)
        return false;
      AtomVars[A] = V;
    }
    if (NumCounters > 1)
      return false;
  }
  return true;
}

bool entryLess(const SparseEntry &A, const SparseEntry &B) {
  if (A.Array != B.Array)
    return A.Array < B.Array;
  return A.Form.Terms != B.Form.Terms ? A.Form.Terms < B.Form.Terms
                                      : A.Form.Const < B.Form.Const;
}

bool sameEntry(const SparseEntry &A, const SparseEntry &B) {
  return !entryLess(A, B) && !entryLess(B, A);
}

/// A load of a selected array, with the conditions of the `if`s around it
/// (an else branch's negated) that read only the counter, parameters other
/// than the selected arrays, and invariant locals.
struct GuardedLoad {
  const Stmt *At = nullptr;
  const IndexExpr *Load = nullptr;
  SparseEntry Entry;
  std::vector<const Expr *> Conds;
};

/// Finds the loads of the selected arrays in \p S under the conditions
/// \p Conds.
class LoadCollector {
public:
  LoadCollector(Module &M, const SparseLoopShape &Shape, const SparseLoop &L)
      : B(M), Shape(Shape), L(L) {}
  std::vector<GuardedLoad> Loads;

  void stmt(const Stmt *S) {
    if (const auto *Block = dyn_cast<BlockStmt>(S)) {
      for (const Stmt *Sub : Block->getBody())
        stmt(Sub);
      return;
    }
    const auto *If = dyn_cast<IfStmt>(S);
    if (!If) {
      forEachTopExpr(S, [&](const Stmt *At, const Expr *E) { expr(At, E); });
      return;
    }
    expr(If, If->getCond());
    bool Hoisted = hoistable(If->getCond());
    branch(If->getThen(), Hoisted ? If->getCond() : nullptr);
    if (If->getElse())
      branch(If->getElse(), Hoisted ? B.unary(UnaryOp::Not, If->getCond(),
                                              If->getCond()->getType())
                                    : nullptr);
  }

private:
  void branch(const Stmt *S, const Expr *Cond) {
    size_t Size = Conds.size();
    if (Cond)
      push(Cond);
    stmt(S);
    Conds.resize(Size);
  }
  /// Pushes the conjuncts of \p Cond (`a && b` as a and b).
  void push(const Expr *Cond) {
    const auto *And = dyn_cast<BinaryExpr>(Cond);
    if (And && And->getOp() == BinaryOp::LAnd) {
      push(And->getLHS());
      push(And->getRHS());
      return;
    }
    Conds.push_back(Cond);
  }
  void expr(const Stmt *At, const Expr *Top) {
    forEachExpr(Top, [&](const Expr *Sub) {
      const auto *I = dyn_cast<IndexExpr>(Sub);
      const auto *Base = I ? dyn_cast<VarRefExpr>(I->getBase()) : nullptr;
      auto It = Base ? llvm::find(Shape.Arrays, Base->getVar())
                     : Shape.Arrays.end();
      if (It == Shape.Arrays.end())
        return;
      GuardedLoad G;
      G.At = At;
      G.Load = I;
      G.Conds = Conds;
      G.Entry.Array = static_cast<unsigned>(It - Shape.Arrays.begin());
      Loads.push_back(G);
    });
  }
  /// True when \p Cond reads only the counter, parameters that are not
  /// selected arrays, and invariant locals.
  bool hoistable(const Expr *Cond) const {
    bool Ok = true;
    forEachExpr(Cond, [&](const Expr *Sub) {
      const auto *R = dyn_cast<VarRefExpr>(Sub);
      const Var *V = R ? R->getVar() : nullptr;
      Ok &= !V || V == L.Counter || V == L.InnerCounter ||
            llvm::is_contained(L.Invariants, V) ||
            (V->isParam() && !llvm::is_contained(Shape.Arrays, V));
    });
    return Ok;
  }

  IRBuilder B;
  const SparseLoopShape &Shape;
  const SparseLoop &L;
  std::vector<const Expr *> Conds;
};

/// The guard of each entry: null when some load of it has no condition,
/// else the `||` of its loads' conjunctions.
void setGuards(Module &M, SparseLoop &L, const std::vector<GuardedLoad> &Loads) {
  IRBuilder B(M);
  std::vector<std::vector<std::vector<const Expr *>>> Paths(L.Entries.size());
  std::vector<bool> Always(L.Entries.size(), false);
  for (const GuardedLoad &G : Loads) {
    unsigned E = L.Local.at(G.Load);
    Always[E] = Always[E] || G.Conds.empty();
    if (!llvm::is_contained(Paths[E], G.Conds))
      Paths[E].push_back(G.Conds);
  }
  for (unsigned E = 0; E < L.Entries.size(); ++E) {
    if (Always[E])
      continue;
    const Expr *Any = nullptr;
    for (const std::vector<const Expr *> &Path : Paths[E]) {
      // A path whose conditions include another's adds nothing to the `||`.
      bool Implied = llvm::any_of(Paths[E], [&](const auto &Other) {
        return &Other != &Path && Other.size() < Path.size() &&
               llvm::all_of(Other, [&](const Expr *C) {
                 return llvm::any_of(Path, [&](const Expr *D) {
                   return simplify::sameExpr(C, D);
                 });
               });
      });
      if (Implied)
        continue;
      const Expr *All = nullptr;
      for (const Expr *C : Path)
        All = All ? B.binary(BinaryOp::LAnd, All, C) : C;
      Any = Any ? B.binary(BinaryOp::LOr, Any, All) : All;
    }
    L.Entries[E].Guard = Any;
  }
}

/// The atoms of \p L's counters (the outer one first; their variables into
/// \p S.AtomVars); false when one has no atom of its own.
bool counterAtoms(Module &M, SparseLoopShape &S, const SparseLoop &L,
                  std::vector<Atom> &Counters) {
  IRBuilder B(M);
  for (Var *C : {L.Counter, L.InnerCounter}) {
    if (!C)
      continue;
    ownership::Eval Counter = S.Evaluator->eval(B.ref(C));
    if (!Counter.Ok || Counter.Form.Terms.size() != 1 ||
        Counter.Form.Terms.begin()->first.size() != 1 ||
        Counter.Form.Terms.begin()->second != 1)
      return false;
    Counters.push_back(Counter.Form.Terms.begin()->first[0]);
    S.AtomVars[Counters.back()] = C;
  }
  return true;
}

/// The form of every load of the selected arrays in \p L; false with \p P
/// set at a load that has none.
bool findEntries(Module &M, const Function &F, SparseLoopShape &S,
                 SparseLoop &L, Problem &P) {
  ownership::IndexEvaluator &Ev = *S.Evaluator;
  std::vector<Atom> Counters;
  bool CounterOk = counterAtoms(M, S, L, Counters);
  S.CounterAtoms.push_back(CounterOk ? Counters[0] : Atom{});
  LoadCollector Collect(M, S, L);
  Collect.stmt(L.body());
  std::vector<GuardedLoad> &Loads = Collect.Loads;
  unsigned Refs = 0;
  for (const Var *X : S.Arrays)
    Refs += countRefs(L.Loop->getBody(), X);
  for (GuardedLoad &G : Loads) {
    ownership::Eval V = Ev.eval(G.Load->getIndex());
    if (CounterOk && V.Ok &&
        isEntryForm(Ev, V.Form, F, L, Counters, S.AtomVars)) {
      G.Entry.Form = V.Form;
      continue;
    }
    const std::string &X = S.Arrays[G.Entry.Array]->getName();
    return P.set(locOr(G.At, F.getLoc()),
                 "a load of '" + X + "' whose index is not S * " +
                     L.Counter->getName() + " + c or an index array's value (" +
                     "3 * e[2 * " + L.Counter->getName() +
                     "] + c; S, c literals or integer parameters, `i * m + "
                     "j` in a nest of two loops; index arrays that '" +
                     F.getName() + "' never writes)" +
                     (V.Ok ? "" : ": " + V.Why));
  }
  if (Loads.size() != Refs)
    return P.set(locOr(L.Loop, F.getLoc()),
                 "the loop uses " + names(S.Arrays) +
                     " other than in loads x[S * i + c] (a call or an address)");
  if (Loads.empty())
    return P.set(locOr(L.Loop, F.getLoc()),
                 "the loop reads no element of " + names(S.Arrays));
  for (const GuardedLoad &G : Loads)
    L.Entries.push_back(G.Entry);
  std::sort(L.Entries.begin(), L.Entries.end(), entryLess);
  L.Entries.erase(std::unique(L.Entries.begin(), L.Entries.end(), sameEntry),
                  L.Entries.end());
  if (L.Entries.size() > MaxSparseLoopEntries)
    return P.set(locOr(L.Loop, F.getLoc()),
                 "an iteration reads " + std::to_string(L.Entries.size()) +
                     " elements of " + names(S.Arrays) + "; at most " +
                     std::to_string(MaxSparseLoopEntries) + " are supported");
  for (const GuardedLoad &G : Loads)
    L.Local[G.Load] = static_cast<unsigned>(
        std::lower_bound(L.Entries.begin(), L.Entries.end(), G.Entry,
                         entryLess) -
        L.Entries.begin());
  setGuards(M, L, Loads);
  return true;
}

/// The integer array parameters of \p F that it never writes.
std::vector<const Var *> indexArrays(const Function &F) {
  std::vector<const Var *> Out;
  for (const Var *Param : F.getParams())
    if (Param->getType()->isPointer() &&
        Param->getType()->getElement()->isIntegral() &&
        !writesMemoryOf(F.getBody(), Param))
      Out.push_back(Param);
  return Out;
}

} // namespace

unsigned SparseLoop::firstOf(unsigned A) const {
  unsigned N = 0;
  while (N < Entries.size() && Entries[N].Array < A)
    ++N;
  return N;
}

unsigned SparseLoop::countOf(unsigned A) const {
  return static_cast<unsigned>(
      llvm::count_if(Entries, [&](const SparseEntry &E) { return E.Array == A; }));
}

const BlockStmt *SparseLoop::body() const {
  return Inner ? Inner->getBody() : Loop->getBody();
}

bool SparseLoop::guarded() const {
  return llvm::any_of(Entries, [](const SparseEntry &E) { return E.Guard; });
}

bool meshad::analyzeSparseLoops(Module &M, const Function &F,
                                const std::vector<const Var *> &Xs,
                                SparseLoopShape &S, clang::SourceLocation &At,
                                std::string &Why) {
  Problem P;
  S.Arrays = Xs;
  S.Evaluator = std::make_unique<ownership::IndexEvaluator>(F);
  S.Evaluator->setGatherArrays(indexArrays(F));
  if (matchShape(M, F, S, P))
    for (SparseLoop &L : S.Loops)
      if (!checkIterations(F, S, L, P) || !findEntries(M, F, S, L, P))
        break;
  At = P.Loc;
  Why = P.Why;
  return P.Why.empty();
}
