//===- Analysis/ElementCount.cpp - The element count of a map -------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "Analysis/ElementCount.h"
#include "Analysis/IRWalk.h"
#include "Analysis/IndexFacts.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace meshad;
using namespace meshad::ir;
using namespace meshad::ownership;
using irwalk::spell;
using llvm::cast;
using llvm::dyn_cast;
using llvm::dyn_cast_or_null;

std::string ElementCount::describe() const {
  if (!Count)
    return "no element count: " + Reason;
  return spell(Count) + " elements (" + Form + ")";
}

namespace {

/// A candidate bound: t < Bound where Cond has the value it has.
struct Candidate {
  const Expr *Bound;
  std::string Form;
};

/// Finds the candidates of the element count and proves one.
class CountFinder {
public:
  CountFinder(const Function &K, IndexEvaluator &Ev, const Atom &Element)
      : K(K), Ev(Ev), Element(Element) {}

  /// The bounds n of t that \p Cond gives when it has the value \p Holds.
  void collect(const Expr *Cond, bool Holds, const std::string &Form,
               std::vector<Candidate> &Out);
  /// "" when \p N is computable on the host from the kernel's arguments.
  std::string whyNotHostComputable(const Expr *N);
  /// The grid-stride loop whose counter is the element id, if any.
  const ForStmt *gridStrideLoop() const;
  /// "" when every access in \p Accesses is inside \p Loop's body and the
  /// counter is not assigned there.
  std::string whyNotInside(const ForStmt *Loop,
                           const std::vector<Access> &Accesses) const;

private:
  bool isElement(const Expr *E) {
    Eval V = Ev.eval(E);
    if (!V.Ok)
      return false;
    foldGid(V.Form);
    return V.Form.isAtom(Element.Kind, Element.Dim);
  }

  const Function &K;
  IndexEvaluator &Ev;
  const Atom &Element;
};

} // namespace

void CountFinder::collect(const Expr *Cond, bool Holds, const std::string &Form,
                          std::vector<Candidate> &Out) {
  Cond = irwalk::stripCasts(Cond);
  if (const auto *U = dyn_cast<UnaryExpr>(Cond)) {
    if (U->getOp() == UnaryOp::Not)
      collect(U->getSub(), !Holds, Form, Out);
    return;
  }
  const auto *B = dyn_cast<BinaryExpr>(Cond);
  if (!B)
    return;
  BinaryOp Op = B->getOp();
  if ((Op == BinaryOp::LAnd && Holds) || (Op == BinaryOp::LOr && !Holds)) {
    collect(B->getLHS(), Holds, Form, Out);
    collect(B->getRHS(), Holds, Form, Out);
    return;
  }
  // t < n holding, t >= n failing; n > t holding, n <= t failing.
  if (((Op == BinaryOp::Lt && Holds) || (Op == BinaryOp::Ge && !Holds)) &&
      isElement(B->getLHS()))
    Out.push_back({B->getRHS(), Form});
  else if (((Op == BinaryOp::Gt && Holds) || (Op == BinaryOp::Le && !Holds)) &&
           isElement(B->getRHS()))
    Out.push_back({B->getLHS(), Form});
}

std::string CountFinder::whyNotHostComputable(const Expr *N) {
  std::string Why;
  irwalk::forEachExpr(N, [&](const Expr *E) {
    if (!Why.empty())
      return;
    const auto *Ref = dyn_cast<VarRefExpr>(E);
    bool Ok = llvm::isa<IntLitExpr>(E) || llvm::isa<CastExpr>(E) ||
              (llvm::isa<UnaryExpr>(E) &&
               cast<UnaryExpr>(E)->getOp() == UnaryOp::Neg) ||
              (llvm::isa<BinaryExpr>(E) &&
               isArithmetic(cast<BinaryExpr>(E)->getOp())) ||
              (Ref && K.getParamIndex(Ref->getVar()) >= 0 &&
               !Ref->getVar()->getType()->isPointer());
    if (!Ok)
      Why = spell(E) + " is not a scalar parameter or arithmetic on them";
  });
  if (!Why.empty())
    return Why;
  Eval V = Ev.eval(N);
  if (!V.Ok || !N->getType()->isIntegral())
    return spell(N) + " is not an integer expression of the parameters";
  if (!Ev.isInvariant(V.Form))
    return spell(N) + " is assigned by the kernel";
  return "";
}

const ForStmt *CountFinder::gridStrideLoop() const {
  const ForStmt *Found = nullptr;
  irwalk::forEachStmt(K.getBody(), [&](const Stmt *S) {
    const auto *For = dyn_cast<ForStmt>(S);
    if (!Found && For && For->getCond()) {
      const auto *B = dyn_cast<BinaryExpr>(For->getCond());
      Eval V = B ? Ev.eval(B->getLHS()) : Eval::fail("");
      if (V.Ok && V.Form.isAtom(AtomKind::GridStride))
        Found = For;
    }
  });
  return Found;
}

/// The counter that the initialisation of \p Loop declares or sets.
static const Var *counterOf(const ForStmt *Loop) {
  if (const auto *D = dyn_cast_or_null<DeclStmt>(Loop->getInit()))
    return D->getVar();
  if (const auto *A = dyn_cast_or_null<AssignStmt>(Loop->getInit()))
    if (const auto *R = dyn_cast<VarRefExpr>(A->getLHS()))
      return R->getVar();
  return nullptr;
}

std::string
CountFinder::whyNotInside(const ForStmt *Loop,
                          const std::vector<Access> &Accesses) const {
  const Var *Counter = counterOf(Loop);
  if (!Counter)
    return "the grid-stride loop has no counter of its own";
  llvm::SmallPtrSet<const Expr *, 32> Inside;
  std::string Why;
  irwalk::forEachStmt(Loop->getBody(), [&](const Stmt *S) {
    const auto *A = dyn_cast<AssignStmt>(S);
    const auto *R = A ? dyn_cast<VarRefExpr>(A->getLHS()) : nullptr;
    if (R && R->getVar() == Counter)
      Why = Counter->getName() + " is assigned in its loop's body";
    for (const Expr *E : irwalk::ownExprs(S))
      irwalk::forEachExpr(E, [&](const Expr *Sub) { Inside.insert(Sub); });
  });
  if (!Why.empty())
    return Why;
  for (const Access &A : Accesses)
    if (!Inside.count(A.Spelled))
      return spell(A.Spelled) + " is outside the grid-stride loop";
  return "";
}

ElementCount meshad::findElementCount(const Function &Kernel,
                                      IndexEvaluator &Ev, const Atom &Element,
                                      const std::vector<Access> &Accesses) {
  ElementCount R;
  CountFinder Finder(Kernel, Ev, Element);
  std::vector<Candidate> Candidates;
  const ForStmt *Loop = nullptr;
  if (Element.Kind == AtomKind::GridStride)
    if ((Loop = Finder.gridStrideLoop()))
      Finder.collect(Loop->getCond(), true, "grid-stride loop", Candidates);
  for (const Guard *G = Accesses.empty() ? nullptr : Accesses.front().Guards;
       G; G = G->Parent)
    Finder.collect(G->Cond, G->Holds, G->Holds ? "guard" : "early return",
                   Candidates);
  R.Reason = "no guard t < n bounds the element id";
  for (const Candidate &C : Candidates) {
    if (std::string Why = Finder.whyNotHostComputable(C.Bound); !Why.empty()) {
      R.Reason = "the bound " + spell(C.Bound) + ": " + Why;
      continue;
    }
    std::string Why = C.Form == "grid-stride loop"
                          ? Finder.whyNotInside(Loop, Accesses)
                          : "";
    Affine Last = Ev.eval(C.Bound).Form;
    Last.Const -= 1;
    for (const Access &A : Accesses)
      if (Why.empty() && C.Form != "grid-stride loop" &&
          !FactSet(Ev, A.Guards).provesUpper(Element, Last))
        Why = spell(A.Spelled) + " may run for an element id >= " +
              spell(C.Bound);
    if (Why.empty()) {
      R.Count = C.Bound;
      R.Form = C.Form;
      R.Reason.clear();
      return R;
    }
    R.Reason = Why;
  }
  return R;
}
