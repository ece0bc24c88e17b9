//===- Analysis/ElementWork.cpp - The work of one mesh element ------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "Analysis/ElementWork.h"
#include "Analysis/IRWalk.h"
#include "Analysis/IndexForms.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/MathExtras.h"

#include <optional>

using namespace meshad;
using namespace meshad::ir;
using namespace meshad::ownership;
using llvm::cast;
using llvm::dyn_cast;

std::string ElementWork::describe() const {
  auto Plural = [](unsigned long long N, const char *Word) {
    return std::to_string(N) + " " + Word + (N == 1 ? "" : "s");
  };
  return std::string(isSmall() ? "small" : "large") + " (" +
         Plural(Operations, "operation") + ", " +
         Plural(MathCalls, "math call") +
         (Bounded ? "" : ", a loop without a literal trip count") + ")";
}

namespace {

/// Counts the work of a function's body, callees included.
class WorkCounter {
public:
  explicit WorkCounter(const Function &Kernel) : Evaluator(Kernel) {}

  /// Adds the work of \p F's body, \p Times times.
  void countFunction(const Function &F, unsigned long long Times);

  ElementWork Work;

private:
  void countBlock(const BlockStmt *B, unsigned long long Times);
  void countStmt(const Stmt *S, unsigned long long Times);
  void countFor(const ForStmt *F, unsigned long long Times);
  void countExpr(const Expr *E, unsigned long long Times);
  /// How many times the body of \p F runs per element: 1 for a grid-stride
  /// loop, the trip count for literal bounds, none when unknown.
  std::optional<unsigned long long> tripCount(const ForStmt *F);
  void add(unsigned long long &Counter, unsigned long long Times) {
    bool Overflowed = false;
    Counter = llvm::SaturatingAdd(Counter, Times, &Overflowed);
    Work.Bounded &= !Overflowed;
  }
  unsigned long long times(unsigned long long A, unsigned long long B) {
    bool Overflowed = false;
    unsigned long long R = llvm::SaturatingMultiply(A, B, &Overflowed);
    Work.Bounded &= !Overflowed;
    return R;
  }

  /// The evaluator of the kernel only: callees' counters are unknown to it.
  IndexEvaluator Evaluator;
  const Function *Current = nullptr;
  const Function *KernelFn = nullptr;
  llvm::SmallPtrSet<const Function *, 4> Active;
};

} // namespace

void WorkCounter::countFunction(const Function &F, unsigned long long Times) {
  if (!F.getBody())
    return;
  if (!Active.insert(&F).second) { // Recursion: no bound.
    Work.Bounded = false;
    return;
  }
  if (!KernelFn)
    KernelFn = &F;
  const Function *Outer = Current;
  Current = &F;
  countBlock(F.getBody(), Times);
  Current = Outer;
  Active.erase(&F);
}

void WorkCounter::countBlock(const BlockStmt *B, unsigned long long Times) {
  if (B)
    for (const Stmt *S : B->getBody())
      countStmt(S, Times);
}

/// True for an arithmetic compound assignment (+=, -=, *=, /=).
static bool isArithmeticUpdate(AssignOp Op) {
  return Op == AssignOp::AddAssign || Op == AssignOp::SubAssign ||
         Op == AssignOp::MulAssign || Op == AssignOp::DivAssign;
}

void WorkCounter::countStmt(const Stmt *S, unsigned long long Times) {
  if (!S)
    return;
  if (const auto *A = dyn_cast<AssignStmt>(S))
    if (isArithmeticUpdate(A->getOp()) &&
        A->getLHS()->getType()->isDifferentiableValue())
      add(Work.Operations, Times);
  for (const Expr *E : irwalk::ownExprs(S))
    countExpr(E, Times);
  switch (S->getKind()) {
  case Stmt::Kind::Block:
    return countBlock(cast<BlockStmt>(S), Times);
  case Stmt::Kind::If:
    countBlock(cast<IfStmt>(S)->getThen(), Times);
    return countBlock(cast<IfStmt>(S)->getElse(), Times);
  case Stmt::Kind::For:
    return countFor(cast<ForStmt>(S), Times);
  case Stmt::Kind::While:
    Work.Bounded = false;
    return countBlock(cast<WhileStmt>(S)->getBody(), Times);
  case Stmt::Kind::Do:
    Work.Bounded = false;
    return countBlock(cast<DoStmt>(S)->getBody(), Times);
  default:
    return;
  }
}

void WorkCounter::countFor(const ForStmt *F, unsigned long long Times) {
  countStmt(F->getInit(), Times);
  std::optional<unsigned long long> Trips = tripCount(F);
  if (!Trips) {
    Work.Bounded = false;
    Trips = 1;
  }
  unsigned long long Inner = times(Times, *Trips);
  countStmt(F->getInc(), Inner);
  countBlock(F->getBody(), Inner);
}

std::optional<unsigned long long> WorkCounter::tripCount(const ForStmt *F) {
  std::optional<CanonicalLoop> L = ReverseNeeds::matchCanonical(*F);
  if (!L || Current != KernelFn || !F->getCond())
    return std::nullopt;
  Eval Init = Evaluator.eval(L->Init);
  Eval Step = L->Step ? Evaluator.eval(L->Step) : Eval::ok(Affine::literal(1));
  if (!Init.Ok || !Step.Ok)
    return std::nullopt;
  if (!L->Decrement && Init.Form.isAtom(AtomKind::Gid) &&
      Step.Form.isAtom(AtomKind::TotalThreads))
    return 1; // A grid-stride loop: one element per iteration.
  const VarRefExpr *Counter = nullptr;
  irwalk::forEachExpr(F->getCond(), [&](const Expr *E) {
    const auto *Ref = dyn_cast<VarRefExpr>(E);
    if (!Counter && Ref && Ref->getVar() == L->Counter)
      Counter = Ref;
  });
  if (!Counter || !Step.Form.isLiteral() || Step.Form.Const <= 0)
    return std::nullopt;
  Eval C = Evaluator.eval(Counter);
  if (!C.Ok || !C.Form.isAtom(AtomKind::Symbol))
    return std::nullopt;
  const SymbolInfo &Info =
      Evaluator.getSymbol(C.Form.Terms.begin()->first.front().Id);
  if (!Info.Range)
    return std::nullopt;
  auto [Lo, Hi] = *Info.Range; // Both within 2^30 (literalRange).
  return static_cast<unsigned long long>(Hi - Lo) / Step.Form.Const + 1;
}

/// True for the operators that count as one floating-point operation.
static bool isOperation(BinaryOp Op) {
  return Op == BinaryOp::Add || Op == BinaryOp::Sub || Op == BinaryOp::Mul ||
         Op == BinaryOp::Div;
}

void WorkCounter::countExpr(const Expr *E, unsigned long long Times) {
  irwalk::forEachExpr(E, [&](const Expr *Sub) {
    if (const auto *B = dyn_cast<BinaryExpr>(Sub)) {
      if (isOperation(B->getOp()) && B->getType()->isDifferentiableValue())
        add(Work.Operations, Times);
    } else if (const auto *U = dyn_cast<UnaryExpr>(Sub)) {
      if (U->getOp() == UnaryOp::Neg && U->getType()->isDifferentiableValue())
        add(Work.Operations, Times);
    } else if (const auto *C = dyn_cast<CallExpr>(Sub)) {
      if (C->getCalleeKind() == CallExpr::CalleeKind::Math)
        add(Work.MathCalls, Times);
      else if (const Function *Callee = C->getUserCallee())
        countFunction(*Callee, Times);
    }
  });
}

ElementWork meshad::estimateElementWork(const Function &Kernel) {
  WorkCounter Counter(Kernel);
  Counter.countFunction(Kernel, 1);
  return Counter.Work;
}
