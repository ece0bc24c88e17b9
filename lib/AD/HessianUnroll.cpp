//===- AD/HessianUnroll.cpp - Small constant loops, unrolled --------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// unrollSmallLoops: a copy of a primal whose `for` loops with a constant
/// trip count (at most MaxTrips iterations; an int counter set from a
/// literal, compared with a literal, stepped by a literal, not written in
/// the body, no break, continue or return inside) are unrolled, each copy
/// of the body in its own block with the counter replaced by its value and
/// integer arithmetic on literals folded (`x[i + 3]` becomes `x[4]`). The
/// Hessian mode derives from it, so that the elements a loop over a small
/// fixed-size array selects are constants: their lanes fold like
/// straight-line code. The user's function itself is left as it is (other
/// requests derive from it).
///
//===----------------------------------------------------------------------===//

#include "AD/Hessian.h"
#include "IR/Builder.h"
#include "IR/Clone.h"
#include "IR/Traversal.h"
#include "AD/Analysis/Activity.h"

using namespace meshad;
using namespace meshad::ir;
using llvm::dyn_cast;
using llvm::dyn_cast_or_null;
using llvm::isa;

namespace {

constexpr int MaxTrips = 16;

/// The counter and the values it takes in a loop this pass unrolls.
struct Trips {
  Var *Counter = nullptr;
  std::vector<long long> Values;
  /// The value after the loop (for a counter declared outside it).
  long long Final = 0;
};

std::optional<long long> intLiteral(const Expr *E) {
  if (const auto *L = dyn_cast<IntLitExpr>(E))
    return L->getValue();
  return std::nullopt;
}

/// The counter's step, from `++i`, `--i`, `i += c`, `i -= c`.
std::optional<long long> stepOf(const Stmt *Inc, const Var *I) {
  const auto *A = dyn_cast_or_null<AssignStmt>(Inc);
  const auto *L = A ? dyn_cast<VarRefExpr>(A->getLHS()) : nullptr;
  if (!L || L->getVar() != I)
    return std::nullopt;
  switch (A->getOp()) {
  case AssignOp::Inc:
    return 1;
  case AssignOp::Dec:
    return -1;
  case AssignOp::AddAssign:
    return intLiteral(A->getRHS());
  case AssignOp::SubAssign:
    if (std::optional<long long> C = intLiteral(A->getRHS()))
      return -*C;
    return std::nullopt;
  default:
    return std::nullopt;
  }
}

bool holds(BinaryOp Op, long long A, long long B) {
  switch (Op) {
  case BinaryOp::Lt:
    return A < B;
  case BinaryOp::Le:
    return A <= B;
  case BinaryOp::Gt:
    return A > B;
  case BinaryOp::Ge:
    return A >= B;
  default:
    return A != B;
  }
}

/// The trips of \p F when this pass unrolls it.
std::optional<Trips> tripsOf(const ForStmt *F) {
  Trips T;
  std::optional<long long> Start;
  if (const auto *D = dyn_cast_or_null<DeclStmt>(F->getInit())) {
    T.Counter = D->getVar();
    Start = D->getInit() ? intLiteral(D->getInit()) : std::nullopt;
  } else if (const auto *A = dyn_cast_or_null<AssignStmt>(F->getInit())) {
    const auto *L = dyn_cast<VarRefExpr>(A->getLHS());
    if (L && A->getOp() == AssignOp::Assign) {
      T.Counter = L->getVar();
      Start = intLiteral(A->getRHS());
    }
  }
  const auto *C = dyn_cast_or_null<BinaryExpr>(F->getCond());
  const auto *L = C ? dyn_cast<VarRefExpr>(C->getLHS()) : nullptr;
  std::optional<long long> Bound = C ? intLiteral(C->getRHS()) : std::nullopt;
  std::optional<long long> Step = stepOf(F->getInc(), T.Counter);
  if (!Start || !L || L->getVar() != T.Counter || !Bound || !Step ||
      *Step == 0 || !T.Counter->getType()->isIntegral() ||
      !isComparisonOrLogical(C->getOp()) || C->getOp() == BinaryOp::Eq ||
      C->getOp() == BinaryOp::LAnd || C->getOp() == BinaryOp::LOr)
    return std::nullopt;
  long long V = *Start;
  while (holds(C->getOp(), V, *Bound)) {
    if (T.Values.size() == MaxTrips)
      return std::nullopt;
    T.Values.push_back(V);
    V += *Step;
  }
  T.Final = V;
  // The body must run each trip to its end and leave the counter alone.
  bool Ok = true;
  forEachStmt(F->getBody(), [&](const Stmt *S) {
    Ok &= !isa<BreakStmt, ContinueStmt, ReturnStmt>(S);
    if (const auto *A = dyn_cast<AssignStmt>(S))
      Ok &= ActivityAnalysis::getRootVar(A->getLHS()) != T.Counter;
    for (const Expr *E : ownExprs(S))
      forEachExpr(E, [&](const Expr *X) {
        const auto *U = dyn_cast<UnaryExpr>(X);
        if (U && U->getOp() == UnaryOp::AddrOf)
          Ok &= ActivityAnalysis::getRootVar(U->getSub()) != T.Counter;
      });
  });
  return Ok ? std::optional<Trips>(T) : std::nullopt;
}

class Unroller {
public:
  explicit Unroller(Module &M) : M(M), B(M) {}
  BlockStmt *block(const BlockStmt *S);
  bool changed() const { return Changed; }

private:
  const Stmt *stmt(const Stmt *S);
  const Stmt *unroll(const ForStmt *F, const Trips &T);

  Module &M;
  IRBuilder B;
  bool Changed = false;
};

} // namespace

BlockStmt *Unroller::block(const BlockStmt *S) {
  if (!S)
    return nullptr;
  BlockStmt *Out = B.block();
  for (const Stmt *X : S->getBody())
    Out->append(stmt(X));
  return Out;
}

const Stmt *Unroller::stmt(const Stmt *S) {
  if (const auto *F = dyn_cast<ForStmt>(S)) {
    if (std::optional<Trips> T = tripsOf(F))
      return unroll(F, *T);
    return M.create<ForStmt>(F->getInit(), F->getCond(), F->getInc(),
                             block(F->getBody()));
  }
  if (const auto *I = dyn_cast<IfStmt>(S))
    return M.create<IfStmt>(I->getCond(), block(I->getThen()),
                            block(I->getElse()));
  if (const auto *W = dyn_cast<WhileStmt>(S))
    return M.create<WhileStmt>(W->getCond(), block(W->getBody()));
  if (const auto *D = dyn_cast<DoStmt>(S))
    return M.create<DoStmt>(block(D->getBody()), D->getCond());
  if (const auto *Blk = dyn_cast<BlockStmt>(S))
    return block(Blk);
  return S;
}

const Stmt *Unroller::unroll(const ForStmt *F, const Trips &T) {
  Changed = true;
  BlockStmt *Out = B.block();
  for (long long V : T.Values) {
    IRCloner C(M);
    forEachStmt(F->getBody(), [&](const Stmt *S) {
      if (const auto *D = dyn_cast<DeclStmt>(S))
        C.freshVar(D->getVar());
    });
    C.setExprHook([&](const Expr *E) -> const Expr * {
      if (const auto *R = dyn_cast<VarRefExpr>(E))
        return R->getVar() == T.Counter ? B.intLit(V, E->getType()) : nullptr;
      const auto *Bin = dyn_cast<BinaryExpr>(E);
      if (!Bin || !E->getType()->isIntegral() || !isArithmetic(Bin->getOp()))
        return nullptr;
      const Expr *L = C.clone(Bin->getLHS()), *R = C.clone(Bin->getRHS());
      std::optional<long long> A = intLiteral(L), Bv = intLiteral(R);
      if (!A || !Bv || ((Bin->getOp() == BinaryOp::Div ||
                         Bin->getOp() == BinaryOp::Rem) && *Bv == 0))
        return M.create<BinaryExpr>(E->getType(), Bin->getOp(), L, R);
      switch (Bin->getOp()) {
      case BinaryOp::Add:
        return B.intLit(*A + *Bv, E->getType());
      case BinaryOp::Sub:
        return B.intLit(*A - *Bv, E->getType());
      case BinaryOp::Mul:
        return B.intLit(*A * *Bv, E->getType());
      case BinaryOp::Div:
        return B.intLit(*A / *Bv, E->getType());
      default:
        return B.intLit(*A % *Bv, E->getType());
      }
    });
    Out->append(C.cloneBlock(F->getBody()));
  }
  // A counter declared before the loop holds its final value after it.
  if (isa<AssignStmt>(F->getInit()))
    Out->append(B.assign(B.ref(T.Counter), AssignOp::Assign,
                         B.intLit(T.Final, T.Counter->getType())));
  return Out;
}

ir::Function *meshad::unrollSmallLoops(Module &M, Function &Primal) {
  Unroller U(M);
  BlockStmt *Body = U.block(Primal.getBody());
  // Loops nested in unrolled ones may have become constant: again.
  for (int Round = 0; U.changed() && Round < 3; ++Round) {
    Unroller Again(M);
    BlockStmt *Next = Again.block(Body);
    if (!Again.changed())
      break;
    Body = Next;
  }
  if (!U.changed())
    return &Primal;
  Function *Copy = M.createFunction(Primal.getName(), Primal.getReturnType(),
                                    Primal.getTarget());
  Copy->setTemplateArgs(Primal.getTemplateArgs());
  Copy->setNamespace(Primal.getNamespace());
  Copy->setQualifiers(Primal.getQualifiers());
  Copy->setSourceDecl(Primal.getSourceDecl());
  Copy->setLoc(Primal.getLoc());
  Copy->setParams(Primal.getParams());
  Copy->setBody(Body);
  return Copy;
}
