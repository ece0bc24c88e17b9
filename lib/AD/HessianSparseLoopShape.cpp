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

/// The loop `for (int i = Lo; i < Hi; ++i)` (or `i <= Hi - 1`) of \p L, or
/// false with \p P set.
bool matchLoop(Module &M, const Var *X, SparseLoop &L, Problem &P) {
  std::optional<CanonicalLoop> C = ReverseNeeds::matchCanonical(*L.Loop);
  const auto *Step =
      C && C->Step ? dyn_cast<IntLitExpr>(bare(C->Step)) : nullptr;
  const auto *Cond = C ? dyn_cast<BinaryExpr>(L.Loop->getCond()) : nullptr;
  const auto *Lhs =
      Cond ? dyn_cast<VarRefExpr>(bare(Cond->getLHS())) : nullptr;
  bool Ok = C && !C->Decrement && (!C->Step || (Step && Step->getValue() == 1));
  Ok = Ok && Lhs && Lhs->getVar() == C->Counter &&
       (Cond->getOp() == BinaryOp::Lt || Cond->getOp() == BinaryOp::Le) &&
       !refersTo(Cond->getRHS(), C->Counter) && !refersTo(Cond->getRHS(), X) &&
       !refersTo(C->Init, X);
  if (!Ok)
    return P.set(L.Loop->getLoc(),
                 "expected the loop `for (int i = lo; i < hi; ++i)` (an "
                 "integer counter counting up by 1, bounds that do not read '" +
                     X->getName() + "')");
  IRBuilder B(M);
  L.Counter = C->Counter;
  L.Lo = C->Init;
  L.Hi = Cond->getOp() == BinaryOp::Le ? B.add(Cond->getRHS(), B.intLit(1))
                                       : Cond->getRHS();
  return true;
}

/// Checks that a declaration outside the loops reads neither x nor an
/// accumulator.
bool checkDecl(const Function &F, const Var *X, const SparseLoopShape &S,
               const DeclStmt *D, Problem &P) {
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
bool matchShape(Module &M, const Function &F, const Var *X, SparseLoopShape &S,
                Problem &P) {
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
    if (!checkDecl(F, X, S, D, P))
      return false;
  for (SparseLoop &L : S.Loops)
    if (!matchLoop(M, X, L, P))
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
void checkUpdates(const Function &F, const Var *X, const SparseLoopShape &S,
                  SparseLoop &L, Problem &P) {
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
    } else if (Root->isParam() || Root == X) {
      P.set(locOr(Sub, LoopLoc),
            "the loop writes '" + Root->getName() +
                "', which later iterations may read (a loop-carried "
                "dependence)");
    }
  });
}

/// Checks that one iteration of \p L is a term of its own, and finds the
/// locals it reads that the loops never change.
bool checkIterations(const Function &F, const Var *X, const SparseLoopShape &S,
                     SparseLoop &L, Problem &P) {
  const BlockStmt *Body = L.Loop->getBody();
  clang::SourceLocation LoopLoc = locOr(L.Loop, F.getLoc());
  checkUpdates(F, X, S, L, P);
  if (leavesLoop(Body))
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

/// True when \p Form is a sum of multiples of \p Counter and of index
/// array values at positions that are such sums, plus a literal.
bool isEntryForm(const ownership::IndexEvaluator &Ev, const Affine &Form,
                 const Atom &Counter, bool InGather = false) {
  for (const auto &[Mono, Coeff] : Form.Terms) {
    if (Mono.size() != 1)
      return false;
    if (Mono[0] == Counter)
      continue;
    if (InGather || Mono[0].Kind != AtomKind::Gathered ||
        !isEntryForm(Ev, Ev.getGather(Mono[0].Id).Position, Counter, true))
      return false;
  }
  return true;
}

bool formLess(const Affine &A, const Affine &B) {
  return A.Terms != B.Terms ? A.Terms < B.Terms : A.Const < B.Const;
}

/// The form of every load of \p X in \p L; false with \p P set at a load
/// that has none.
bool findEntries(Module &M, const Function &F, const Var *X, SparseLoopShape &S,
                 SparseLoop &L, Problem &P) {
  ownership::IndexEvaluator &Ev = *S.Evaluator;
  IRBuilder B(M);
  ownership::Eval Counter = Ev.eval(B.ref(L.Counter));
  bool CounterOk = Counter.Ok && Counter.Form.Terms.size() == 1 &&
                   Counter.Form.Terms.begin()->first.size() == 1 &&
                   Counter.Form.Terms.begin()->second == 1;
  Atom CounterAtom = CounterOk ? Counter.Form.Terms.begin()->first[0] : Atom{};
  S.CounterAtoms.push_back(CounterAtom);
  std::vector<std::pair<const IndexExpr *, Affine>> Loads;
  unsigned Refs = countRefs(L.Loop->getBody(), X);
  forEachTopExpr(L.Loop->getBody(), [&](const Stmt *At, const Expr *Top) {
    forEachExpr(Top, [&](const Expr *Sub) {
      const auto *I = dyn_cast<IndexExpr>(Sub);
      const auto *Base = I ? dyn_cast<VarRefExpr>(I->getBase()) : nullptr;
      if (!Base || Base->getVar() != X)
        return;
      ownership::Eval V = Ev.eval(I->getIndex());
      if (!CounterOk || !V.Ok || !isEntryForm(Ev, V.Form, CounterAtom)) {
        P.set(locOr(At, F.getLoc()),
              "a load of '" + X->getName() + "' whose index is not S * " +
                  L.Counter->getName() + " + c or an index array's value (" +
                  "3 * e[2 * " + L.Counter->getName() +
                  "] + c; S, c literals; index arrays that '" + F.getName() +
                  "' never writes)" + (V.Ok ? "" : ": " + V.Why));
        return;
      }
      Loads.push_back({I, V.Form});
    });
  });
  if (P.Why.empty() && Loads.size() != Refs)
    P.set(locOr(L.Loop, F.getLoc()),
          "the loop uses '" + X->getName() +
              "' other than in loads x[S * i + c] (a call or an address)");
  if (P.Why.empty() && Loads.empty())
    P.set(locOr(L.Loop, F.getLoc()),
          "the loop reads no element of '" + X->getName() + "'");
  for (auto &[Load, Form] : Loads)
    L.Entries.push_back(Form);
  std::sort(L.Entries.begin(), L.Entries.end(), formLess);
  L.Entries.erase(std::unique(L.Entries.begin(), L.Entries.end()),
                  L.Entries.end());
  if (P.Why.empty() && L.Entries.size() > MaxSparseLoopEntries)
    P.set(locOr(L.Loop, F.getLoc()),
          "an iteration reads " + std::to_string(L.Entries.size()) +
              " elements of '" + X->getName() + "'; at most " +
              std::to_string(MaxSparseLoopEntries) + " are supported");
  for (auto &[Load, Form] : Loads)
    L.Local[Load] = static_cast<unsigned>(
        std::lower_bound(L.Entries.begin(), L.Entries.end(), Form, formLess) -
        L.Entries.begin());
  return P.Why.empty();
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

bool meshad::analyzeSparseLoops(Module &M, const Function &F, const Var *X,
                                SparseLoopShape &S, clang::SourceLocation &At,
                                std::string &Why) {
  Problem P;
  S.Evaluator = std::make_unique<ownership::IndexEvaluator>(F);
  S.Evaluator->setGatherArrays(indexArrays(F));
  if (matchShape(M, F, X, S, P))
    for (SparseLoop &L : S.Loops)
      if (!checkIterations(F, X, S, L, P) || !findEntries(M, F, X, S, L, P))
        break;
  At = P.Loc;
  Why = P.Why;
  return P.Why.empty();
}
