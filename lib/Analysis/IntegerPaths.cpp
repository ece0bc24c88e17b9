//===- Analysis/IntegerPaths.cpp - One thread's integer paths -------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//

#include "Analysis/IntegerPaths.h"
#include "Analysis/IRWalk.h"

using namespace meshad;
using namespace meshad::ir;
using llvm::cast;
using llvm::dyn_cast;
using llvm::isa;

namespace {

/// Limits of the walk: live paths at once, statements executed, iterations
/// of one loop.
constexpr size_t MaxPaths = 256;
constexpr unsigned long long MaxSteps = 2000000;
constexpr unsigned MaxIterations = 4096;
/// The weight of a math call (Analysis/ElementWork.h).
constexpr unsigned long long MathCallWeight = 8;

bool isFloating(const Expr *E) {
  return E->getType() && E->getType()->getUnqualified()->isFloatingScalar();
}

bool isCall(const Expr *E, llvm::StringRef Name) {
  const auto *C = E ? dyn_cast<CallExpr>(E) : nullptr;
  return C && C->getCalleeKind() != CallExpr::CalleeKind::User &&
         llvm::StringRef(C->getName()).starts_with(Name);
}

PathValue affine(long long A, long long B) { return {PathValue::Affine, A, B}; }

/// L op R on affine values; Unknown where the result is not affine.
PathValue combine(BinaryOp Op, PathValue L, PathValue R) {
  if (L.K != PathValue::Affine || R.K != PathValue::Affine)
    return {};
  bool Const = L.isConstant() && R.isConstant();
  switch (Op) {
  case BinaryOp::Add:
    return affine(L.A + R.A, L.B + R.B);
  case BinaryOp::Sub:
    return affine(L.A - R.A, L.B - R.B);
  case BinaryOp::Mul:
    if (L.isConstant())
      return affine(L.B * R.A, L.B * R.B);
    if (R.isConstant())
      return affine(R.B * L.A, R.B * L.B);
    return {};
  case BinaryOp::Div:
    return Const && R.B ? PathValue::constant(L.B / R.B) : PathValue();
  case BinaryOp::Rem:
    return Const && R.B ? PathValue::constant(L.B % R.B) : PathValue();
  case BinaryOp::Eq:
  case BinaryOp::Ne:
    if (L.A != R.A)
      return {};
    return PathValue::constant((L.B == R.B) == (Op == BinaryOp::Eq));
  default:
    break;
  }
  if (!Const)
    return {};
  switch (Op) {
  case BinaryOp::Lt:
    return PathValue::constant(L.B < R.B);
  case BinaryOp::Gt:
    return PathValue::constant(L.B > R.B);
  case BinaryOp::Le:
    return PathValue::constant(L.B <= R.B);
  case BinaryOp::Ge:
    return PathValue::constant(L.B >= R.B);
  case BinaryOp::LAnd:
    return PathValue::constant(L.B && R.B);
  case BinaryOp::LOr:
    return PathValue::constant(L.B || R.B);
  default:
    return {};
  }
}

bool contains(const Stmt *S, llvm::function_ref<bool(const Stmt *)> Pred) {
  bool Found = false;
  forEachStmt(S, [&](const Stmt *X) { Found |= Pred(X); });
  return Found;
}

} // namespace

IntegerPaths::IntegerPaths(const Function &F) : F(F) {
  forEachStmt(F.getBody(), [&](const Stmt *S) {
    for (const Expr *E : ownExprs(S))
      forEachExpr(E, [&](const Expr *X) {
        const auto *U = dyn_cast<UnaryExpr>(X);
        const auto *R = U && U->getOp() == UnaryOp::AddrOf
                            ? dyn_cast<VarRefExpr>(U->getSub())
                            : nullptr;
        if (R)
          AddressTaken.insert(R->getVar());
      });
  });
}

bool IntegerPaths::fail(const std::string &Reason, clang::SourceLocation Loc) {
  if (!Failed) {
    Failed = true;
    Why = Reason;
    Where = Loc;
  }
  return false;
}

PathValue IntegerPaths::evalBinary(const BinaryExpr *B, PathState &P) {
  PathValue L = eval(B->getLHS(), P), R = eval(B->getRHS(), P);
  if (isFloating(B))
    ++P.Operations;
  // t < n, t >= n (and n > t, n <= t) with n the element count.
  auto IsCount = [&](const Expr *E) {
    return Count && irwalk::spell(E) == irwalk::spell(Count);
  };
  bool TL = L.K == PathValue::Affine && L.A == 1 && L.B == 0;
  bool TR = R.K == PathValue::Affine && R.A == 1 && R.B == 0;
  BinaryOp Op = B->getOp();
  if (TL && IsCount(B->getRHS()) && (Op == BinaryOp::Lt || Op == BinaryOp::Ge))
    return PathValue::inRange(Op == BinaryOp::Lt);
  if (TR && IsCount(B->getLHS()) && (Op == BinaryOp::Gt || Op == BinaryOp::Le))
    return PathValue::inRange(Op == BinaryOp::Gt);
  return combine(Op, L, R);
}

PathValue IntegerPaths::evalUnary(const UnaryExpr *U, PathState &P) {
  PathValue V = eval(U->getSub(), P);
  if (U->getOp() == UnaryOp::Neg) {
    if (isFloating(U))
      ++P.Operations;
    return combine(BinaryOp::Sub, PathValue::constant(0), V);
  }
  if (U->getOp() == UnaryOp::Plus)
    return V;
  if (U->getOp() == UnaryOp::Not && V.K == PathValue::InRange)
    return PathValue::inRange(!V.B);
  if (U->getOp() == UnaryOp::Not && V.isConstant())
    return PathValue::constant(!V.B);
  return {};
}

PathValue IntegerPaths::evalCall(const CallExpr *C, PathState &P) {
  if (isCall(C, "meshad::pop") && C->getNumArgs() == 1) {
    const auto *R = dyn_cast<VarRefExpr>(C->getArg(0));
    auto It = R ? P.Tapes.find(R->getVar()) : P.Tapes.end();
    if (It == P.Tapes.end() || It->second.empty())
      return {};
    PathValue V = It->second.back();
    It->second.pop_back();
    return V;
  }
  if (C->getCalleeKind() == CallExpr::CalleeKind::Math)
    P.Operations += MathCallWeight;
  for (const Expr *A : C->getArgs())
    eval(A, P);
  return {};
}

PathValue IntegerPaths::eval(const Expr *E, PathState &P) {
  switch (E->getKind()) {
  case Expr::Kind::IntLit:
    return PathValue::constant(cast<IntLitExpr>(E)->getValue());
  case Expr::Kind::BoolLit:
    return PathValue::constant(cast<BoolLitExpr>(E)->getValue());
  case Expr::Kind::VarRef: {
    const Var *V = cast<VarRefExpr>(E)->getVar();
    if (V == Element)
      return affine(1, 0);
    auto It = P.Vars.find(V);
    return It == P.Vars.end() || AddressTaken.count(V) ? PathValue()
                                                       : It->second;
  }
  case Expr::Kind::Cast: {
    PathValue V = eval(cast<CastExpr>(E)->getSub(), P);
    const Type *To = E->getType()->getUnqualified();
    if (!To->isIntegral())
      return {};
    if (To->getKind() == Type::Kind::Bool && V.isConstant())
      return PathValue::constant(V.B != 0);
    return V;
  }
  case Expr::Kind::Unary:
    return evalUnary(cast<UnaryExpr>(E), P);
  case Expr::Kind::Binary:
    return evalBinary(cast<BinaryExpr>(E), P);
  case Expr::Kind::Call:
    return evalCall(cast<CallExpr>(E), P);
  default:
    for (const Expr *Sub : operands(E))
      eval(Sub, P);
    return {};
  }
}

void IntegerPaths::assign(const AssignStmt *A, PathState &P) {
  PathValue R = A->getRHS() ? eval(A->getRHS(), P) : PathValue();
  AssignOp Op = A->getOp();
  if (isFloating(A->getLHS()) && Op != AssignOp::Assign)
    ++P.Operations;
  const auto *Ref = dyn_cast<VarRefExpr>(A->getLHS());
  if (!Ref) {
    eval(A->getLHS(), P);
    return;
  }
  PathValue Old = eval(Ref, P), New;
  switch (Op) {
  case AssignOp::Assign:
    New = R;
    break;
  case AssignOp::AddAssign:
    New = combine(BinaryOp::Add, Old, R);
    break;
  case AssignOp::SubAssign:
    New = combine(BinaryOp::Sub, Old, R);
    break;
  case AssignOp::MulAssign:
    New = combine(BinaryOp::Mul, Old, R);
    break;
  case AssignOp::DivAssign:
    New = combine(BinaryOp::Div, Old, R);
    break;
  case AssignOp::Inc:
    New = combine(BinaryOp::Add, Old, PathValue::constant(1));
    break;
  case AssignOp::Dec:
    New = combine(BinaryOp::Sub, Old, PathValue::constant(1));
    break;
  default:
    break;
  }
  P.Vars[Ref->getVar()] = New;
}

void IntegerPaths::execSimple(const Stmt *S, PathState &P) {
  if (!visit(S, P))
    return;
  if (const auto *D = dyn_cast<DeclStmt>(S)) {
    if (D->getVar()->getType()->isTape()) {
      P.Tapes[D->getVar()].clear();
      return;
    }
    P.Vars[D->getVar()] = D->getInit() ? eval(D->getInit(), P) : PathValue();
    return;
  }
  if (const auto *A = dyn_cast<AssignStmt>(S))
    return assign(A, P);
  const Expr *E = cast<ExprStmt>(S)->getExpr();
  const auto *C = dyn_cast<CallExpr>(E);
  if (isCall(C, "meshad::push") && C->getNumArgs() == 2) {
    const auto *R = dyn_cast<VarRefExpr>(C->getArg(0));
    PathValue V = eval(C->getArg(1), P);
    auto It = R ? P.Tapes.find(R->getVar()) : P.Tapes.end();
    if (It != P.Tapes.end())
      It->second.push_back(V);
    return;
  }
  eval(E, P);
}

bool IntegerPaths::assume(const Expr *Cond, PathValue C, bool Holds,
                          PathState &P) {
  if (C.isConstant())
    return (C.B != 0) == Holds;
  if (C.K == PathValue::InRange) {
    bool InRange = (C.B != 0) == Holds;
    if (P.InRange >= 0 && P.InRange != InRange)
      return false;
    P.InRange = InRange;
  }
  // A bool local tested (or its negation) holds that value on this side.
  Cond = irwalk::stripCasts(Cond);
  bool Negated = false;
  if (const auto *U = dyn_cast<UnaryExpr>(Cond))
    if (U->getOp() == UnaryOp::Not) {
      Cond = irwalk::stripCasts(U->getSub());
      Negated = true;
    }
  if (const auto *R = dyn_cast<VarRefExpr>(Cond))
    if (R->getVar() != Element && !AddressTaken.count(R->getVar()) &&
        C.K != PathValue::InRange)
      P.Vars[R->getVar()] = PathValue::constant(Holds != Negated);
  return true;
}

void IntegerPaths::execIf(const IfStmt *S, PathState P, Paths &Out) {
  PathValue C = eval(S->getCond(), P);
  bool Fork = !C.isConstant() && C.K != PathValue::InRange;
  for (bool Holds : {true, false}) {
    PathState Q = P;
    if (!assume(S->getCond(), C, Holds, Q))
      continue;
    if (Fork)
      Q.LastBranch = S;
    const BlockStmt *Side = Holds ? S->getThen() : S->getElse();
    if (Side)
      execBlock(Side, std::move(Q), Out);
    else
      Out.push_back(std::move(Q));
  }
}

bool IntegerPaths::skipLoop(const Stmt *Loop, PathState &P) {
  if (contains(Loop, [&](const Stmt *S) { return watches(S); }))
    return fail("a loop whose trip count is not known here", Loop->getLoc());
  if (contains(Loop, [](const Stmt *S) { return isa<ReturnStmt>(S); }))
    return fail("a return inside a loop whose trip count is not known",
                Loop->getLoc());
  forget(Loop, P);
  return true;
}

void IntegerPaths::forget(const Stmt *Loop, PathState &P) {
  forgetVars(Loop, P);
  for (const Var *T : tapesOf(Loop))
    P.Tapes.erase(T);
}

void IntegerPaths::forgetVars(const Stmt *Loop, PathState &P) {
  forEachStmt(Loop, [&](const Stmt *S) {
    if (const auto *D = dyn_cast<DeclStmt>(S))
      P.Vars[D->getVar()] = {};
    if (const auto *A = dyn_cast<AssignStmt>(S))
      if (const auto *R = dyn_cast<VarRefExpr>(A->getLHS()))
        P.Vars[R->getVar()] = {};
  });
}

std::vector<const Var *> IntegerPaths::tapesOf(const Stmt *Loop) {
  std::vector<const Var *> Out;
  forEachStmt(Loop, [&](const Stmt *S) {
    for (const Expr *E : ownExprs(S))
      forEachExpr(E, [&](const Expr *X) {
        const auto *C = dyn_cast<CallExpr>(X);
        if (isCall(C, "meshad::p") && C->getNumArgs() >= 1)
          if (const auto *R = dyn_cast<VarRefExpr>(C->getArg(0)))
            Out.push_back(R->getVar());
      });
  });
  return Out;
}

bool IntegerPaths::isElementLoop(const Stmt *Loop, const BlockStmt *Body) {
  if (!ElementLoops || !Element)
    return false;
  auto Defines = [&](const Stmt *S) {
    const auto *A = dyn_cast<AssignStmt>(S);
    const auto *R = A ? dyn_cast<VarRefExpr>(A->getLHS()) : nullptr;
    const auto *D = dyn_cast<DeclStmt>(S);
    return (R && R->getVar() == Element) || (D && D->getVar() == Element);
  };
  // The forward sweep's loop: t its counter, nothing watched in it.
  if (!contains(Loop, [&](const Stmt *S) { return watches(S); }))
    return contains(Loop, Defines);
  // The reverse sweep's: t assigned once, at the body's top level, before
  // anything watched.
  unsigned Defs = 0;
  forEachStmt(Body, [&](const Stmt *S) { Defs += Defines(S); });
  const Stmt *First = nullptr;
  for (const Stmt *S : Body->getBody())
    if (!First && (Defines(S) || contains(S, [&](const Stmt *X) {
                     return watches(X);
                   })))
      First = S;
  if (Defs != 1 || !First || !Defines(First))
    return fail("the element id '" + Element->getName() +
                    "' is not assigned once at the start of each iteration "
                    "of this loop over the thread's elements",
                Loop->getLoc());
  return true;
}

void IntegerPaths::execElementLoop(const Stmt *Loop, const BlockStmt *Body,
                                   PathState P, Paths &Out) {
  if (contains(Loop, [](const Stmt *S) {
        return isa<ReturnStmt>(S) || isa<BreakStmt>(S);
      })) {
    fail("a break or return in the loop over the thread's elements",
         Loop->getLoc());
    return;
  }
  bool Reverse = contains(Loop, [&](const Stmt *S) { return watches(S); });
  // One iteration, from what is known before any: the forward sweep's
  // pushes it on tapes of their own (one element's), which the reverse
  // sweep's iteration pops.
  PathState Iteration = P;
  forgetVars(Loop, Iteration);
  if (!Reverse)
    for (const Var *T : tapesOf(Loop))
      Iteration.Tapes[T].clear();
  Iteration.Counts.clear();
  Iteration.FirstAt.clear();
  Iteration.LastBranch = nullptr;
  Iteration.InRange = -1;
  Paths After;
  execBlock(Body, std::move(Iteration), After);
  for (PathState &R : After) {
    if (Failed)
      return;
    MaxOperations = std::max(MaxOperations, R.Operations);
    if (!Reverse) {
      // After the loop: one iteration's tapes, its locals unknown.
      R.F = PathState::Flow::Normal;
      forgetVars(Loop, R);
      R.Counts = P.Counts;
      R.FirstAt = P.FirstAt;
      R.InRange = P.InRange;
      Out.push_back(std::move(R));
    } else if (!finishElement(R)) {
      return;
    }
  }
  if (Reverse) {
    forget(Loop, P);
    Out.push_back(std::move(P));
  }
}

void IntegerPaths::execLoop(const Stmt *Loop, const Expr *Cond,
                            const Stmt *Inc, const BlockStmt *Body,
                            bool CondFirst, PathState P, Paths &Out) {
  Paths Work{std::move(P)};
  for (unsigned Iteration = 0; !Work.empty() && !Failed; ++Iteration) {
    if (Iteration > MaxIterations) {
      fail("a loop of more than " + std::to_string(MaxIterations) +
               " iterations",
           Loop->getLoc());
      return;
    }
    Paths Next;
    for (PathState &Q : Work) {
      if (Cond && (CondFirst || Iteration > 0)) {
        PathValue C = eval(Cond, Q);
        if (!C.isConstant()) {
          if (Iteration == 0 && isElementLoop(Loop, Body))
            execElementLoop(Loop, Body, std::move(Q), Out);
          else if (!Failed && skipLoop(Loop, Q))
            Out.push_back(std::move(Q));
          continue;
        }
        if (!C.B) {
          Out.push_back(std::move(Q));
          continue;
        }
      }
      Paths After;
      execBlock(Body, std::move(Q), After);
      for (PathState &R : After) {
        if (R.F == PathState::Flow::Break || R.F == PathState::Flow::Return) {
          if (R.F == PathState::Flow::Break)
            R.F = PathState::Flow::Normal;
          Out.push_back(std::move(R));
          continue;
        }
        R.F = PathState::Flow::Normal;
        if (Inc)
          execSimple(Inc, R);
        Next.push_back(std::move(R));
      }
    }
    if (Next.size() > MaxPaths) {
      fail("more than " + std::to_string(MaxPaths) + " paths", Loop->getLoc());
      return;
    }
    Work = std::move(Next);
  }
}

void IntegerPaths::execBlock(const BlockStmt *B, PathState P, Paths &Out) {
  Paths Cur{std::move(P)};
  for (const Stmt *S : B->getBody()) {
    Paths Next;
    for (PathState &Q : Cur) {
      if (Q.F != PathState::Flow::Normal)
        Next.push_back(std::move(Q));
      else
        exec(S, std::move(Q), Next);
      if (Failed)
        return;
    }
    if (Next.size() > MaxPaths) {
      fail("more than " + std::to_string(MaxPaths) + " paths", S->getLoc());
      return;
    }
    Cur = std::move(Next);
  }
  for (PathState &Q : Cur)
    Out.push_back(std::move(Q));
}

void IntegerPaths::exec(const Stmt *S, PathState P, Paths &Out) {
  if (++Steps > MaxSteps) {
    fail("more than " + std::to_string(MaxSteps) + " statements on its paths",
         S->getLoc());
    return;
  }
  switch (S->getKind()) {
  case Stmt::Kind::Block:
    return execBlock(cast<BlockStmt>(S), std::move(P), Out);
  case Stmt::Kind::If:
    return execIf(cast<IfStmt>(S), std::move(P), Out);
  case Stmt::Kind::For: {
    const auto *For = cast<ForStmt>(S);
    if (For->getInit())
      execSimple(For->getInit(), P);
    return execLoop(S, For->getCond(), For->getInc(), For->getBody(), true,
                    std::move(P), Out);
  }
  case Stmt::Kind::While: {
    const auto *W = cast<WhileStmt>(S);
    return execLoop(S, W->getCond(), nullptr, W->getBody(), true,
                    std::move(P), Out);
  }
  case Stmt::Kind::Do: {
    const auto *D = cast<DoStmt>(S);
    return execLoop(S, D->getCond(), nullptr, D->getBody(), false,
                    std::move(P), Out);
  }
  case Stmt::Kind::Break:
    P.F = PathState::Flow::Break;
    break;
  case Stmt::Kind::Continue:
    P.F = PathState::Flow::Continue;
    break;
  case Stmt::Kind::Return:
    if (const Expr *V = cast<ReturnStmt>(S)->getValue())
      eval(V, P);
    P.F = PathState::Flow::Return;
    break;
  case Stmt::Kind::Decl:
  case Stmt::Kind::Assign:
  case Stmt::Kind::ExprStmt:
    execSimple(S, P);
    break;
  case Stmt::Kind::Launch:
    fail("a kernel launch", S->getLoc());
    return;
  default:
    break;
  }
  Out.push_back(std::move(P));
}

bool IntegerPaths::run() {
  if (!F.getBody())
    return fail("no body", F.getLoc());
  Paths Done;
  execBlock(F.getBody(), PathState(), Done);
  for (const PathState &P : Done) {
    if (Failed)
      break;
    MaxOperations = std::max(MaxOperations, P.Operations);
    finish(P);
  }
  return !Failed;
}
