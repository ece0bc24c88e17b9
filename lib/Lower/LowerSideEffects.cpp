//===- Lower/LowerSideEffects.cpp - Side effects inside expressions -------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The IR's expressions have no side effects, so side effects nested in an
/// expression become statements before the one that contains it:
///
/// \code
///   s += a[i++];           // int _t0 = i; ++i; s += a[_t0];
///   if ((x *= 0.5) > 0.1)  // x *= 0.5; if (x > 0.1)
///   r = (t = h(x), t * t); // t = h(x); r = t * t;
///   while (n--) body       // while (true) { int _t1 = n; --n;
///                          //   if (!_t1) break; body }
/// \endcode
///
/// A loop condition with side effects (or calls) is tested in the body, where
/// `continue` comes back to it. That is only faithful where C++ evaluates
/// the rest of the expression after the side effect, so an expression that
/// modifies a variable and also names it elsewhere (`a[i] = i++`) is an
/// error. Also here: `if`/`switch` initializers and condition variables,
/// and statements that only assert or print.
///
//===----------------------------------------------------------------------===//

#include "Lower/LoweringImpl.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/StringSet.h"

using namespace meshad;
using namespace clang;

namespace {

/// The variable whose storage the lvalue \p E designates (x for x, x[i],
/// x.y, *x, *(x + 1)); null when it is not one variable's.
const ValueDecl *getModifiedDecl(const Expr *E) {
  while (true) {
    E = E->IgnoreParenImpCasts();
    if (const auto *Ref = dyn_cast<DeclRefExpr>(E))
      return Ref->getDecl();
    if (const auto *Sub = dyn_cast<ArraySubscriptExpr>(E))
      E = Sub->getBase();
    else if (const auto *M = dyn_cast<MemberExpr>(E))
      E = M->getBase();
    else if (const auto *U = dyn_cast<UnaryOperator>(E);
             U && U->getOpcode() == UO_Deref)
      E = U->getSubExpr();
    else if (const auto *B = dyn_cast<BinaryOperator>(E);
             B && B->isAdditiveOp())
      E = B->getLHS()->getType()->isPointerType() ? B->getLHS() : B->getRHS();
    else
      return nullptr;
  }
}

/// The target of an assignment, `++` or `--`; null for other expressions.
const Expr *getUpdateTarget(const Stmt *St) {
  if (const auto *B = dyn_cast<BinaryOperator>(St))
    return B->isAssignmentOp() ? B->getLHS() : nullptr;
  if (const auto *U = dyn_cast<UnaryOperator>(St))
    return U->isIncrementDecrementOp() ? U->getSubExpr() : nullptr;
  if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(St))
    return OC->isAssignmentOp() ? OC->getArg(0) : nullptr;
  return nullptr;
}

bool contains(const Stmt *Outer, const Stmt *Inner) {
  if (Outer == Inner)
    return true;
  for (const Stmt *Child : Outer->children())
    if (Child && contains(Child, Inner))
      return true;
  return false;
}

/// The updates nested in a full expression, the variables it names, and
/// the operators whose first operand is evaluated before the others
/// (`,`, `&&`, `||`, `?:`): what the lowering runs first, too.
struct SideEffectScan {
  std::vector<const Expr *> Updates;
  std::vector<const DeclRefExpr *> Refs;
  std::vector<std::pair<const Expr *, const Expr *>> Sequenced;

  void scan(const Stmt *St, bool IsRoot) {
    if (!St || isa<LambdaExpr>(St))
      return;
    if (!IsRoot && getUpdateTarget(St))
      Updates.push_back(cast<Expr>(St));
    if (const auto *Ref = dyn_cast<DeclRefExpr>(St))
      Refs.push_back(Ref);
    if (const auto *B = dyn_cast<BinaryOperator>(St);
        B && (B->isCommaOp() || B->isLogicalOp()))
      Sequenced.push_back({B->getLHS(), B});
    if (const auto *C = dyn_cast<ConditionalOperator>(St))
      Sequenced.push_back({C->getCond(), C});
    for (const Stmt *Child : St->children())
      scan(Child, false);
  }

  /// True when \p Ref is evaluated after the update \p U is complete.
  bool after(const Expr *U, const DeclRefExpr *Ref) const {
    for (auto [First, Whole] : Sequenced)
      if (contains(First, U) && !contains(First, Ref) && contains(Whole, Ref))
        return true;
    return false;
  }

  /// True when \p Ref is evaluated before the update \p U starts (`t = x,
  /// t *= y`: the first `t` before `t *= y`).
  bool before(const Expr *U, const DeclRefExpr *Ref) const {
    for (auto [First, Whole] : Sequenced)
      if (contains(First, Ref) && !contains(First, U) && contains(Whole, U))
        return true;
    return false;
  }
};

/// A call that cannot write its caller's memory: a direct call of a library
/// function whose parameters are values or pointers and references to
/// const (isfinite(r) in an assert). User functions may write globals.
bool readsOnly(const CallExpr *C, const SourceManager &SM) {
  const FunctionDecl *FD = C->getDirectCallee();
  if (!FD || isa<CXXMethodDecl>(FD) ||
      !(FD->getBuiltinID() || SM.isInSystemHeader(FD->getLocation())))
    return false;
  for (const ParmVarDecl *P : FD->parameters()) {
    QualType T = P->getType();
    if ((T->isPointerType() || T->isReferenceType()) &&
        !T->getPointeeType().isConstQualified())
      return false;
  }
  return !FD->isVariadic();
}

} // namespace

bool meshad::isDiagnosticFunction(const FunctionDecl *FD) {
  // The functions a derivative never calls: they only report.
  static const llvm::StringSet<> Names = {
      "__assert_fail", "__assert_rtn", "__assert", "__assertfail", "_assert",
      "_wassert", "printf", "fprintf", "puts", "fputs", "putchar", "fflush",
      "__builtin_expect"};
  return FD && FD->getIdentifier() && Names.contains(FD->getName());
}

const Stmt *meshad::findLoopContinue(const Stmt *Body) {
  if (!Body || isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(Body))
    return nullptr;
  if (isa<ContinueStmt>(Body))
    return Body;
  for (const Stmt *Child : Body->children())
    if (const Stmt *C = findLoopContinue(Child))
      return C;
  return nullptr;
}

std::vector<const Expr *> meshad::splitCommas(const Expr *E) {
  if (!E)
    return {};
  const Expr *Inner = ExprLowering::skipWrappers(E);
  const auto *BO = dyn_cast<BinaryOperator>(Inner);
  if (!BO || !BO->isCommaOp())
    return {E};
  std::vector<const Expr *> Ops = splitCommas(BO->getLHS());
  Ops.push_back(BO->getRHS());
  return Ops;
}

//===----------------------------------------------------------------------===//
// Updates and commas inside expressions
//===----------------------------------------------------------------------===//

const ir::Expr *ExprLowering::lowerNestedUpdate(const Expr *E,
                                                const Expr *Target,
                                                bool Post) {
  SourceLocation Loc = E->getExprLoc();
  if (Scope.NoHoistContext)
    return S.fail(Loc, Twine("meshad: an assignment, '++' or '--' ") +
                           Scope.NoHoistContext + " is not supported");
  // The target is read again after the update: it must be the same lvalue.
  if (Target->HasSideEffects(S.Ctx))
    return S.fail(Target->getExprLoc(),
                  "meshad: side effects in the target of an assignment, '++' "
                  "or '--' inside an expression are not supported; write "
                  "them as separate statements");
  const ir::Expr *Old = nullptr;
  if (Post) {
    const ir::Expr *Value = lower(Target);
    if (!Value)
      return nullptr;
    ir::Var *Temp = S.M.createVar(Scope.Names.numbered("_t"),
                                  Value->getType()->getUnqualified());
    Scope.Hoisted.push_back(S.make<ir::DeclStmt>(Loc, Temp, Value));
    Old = S.make<ir::VarRefExpr>(Loc, Temp);
  }
  if (!HoistStatement(E))
    return nullptr;
  return Old ? Old : lower(Target);
}

const ir::Expr *ExprLowering::lowerComma(const BinaryOperator *E) {
  if (Scope.NoHoistContext)
    return S.fail(E->getOperatorLoc(), Twine("meshad: a comma operator ") +
                                           Scope.NoHoistContext +
                                           " is not supported");
  if (!HoistStatement(E->getLHS()))
    return nullptr;
  return lower(E->getRHS());
}

bool StmtLowering::hoistStatement(const Expr *E) {
  // lowerExprStmt emits what was hoisted so far, then E's statements.
  auto *Tmp = S.make<ir::BlockStmt>(E->getBeginLoc());
  bool Ok = lowerExprStmt(E, Tmp);
  std::vector<const ir::Stmt *> All = Tmp->getBody();
  for (const ir::Stmt *Left : Exprs.takeHoisted())
    All.push_back(Left);
  Exprs.restoreHoisted(std::move(All));
  return Ok;
}

bool StmtLowering::checkSequencing(const Expr *Full) {
  if (!Full)
    return true;
  SideEffectScan Scan;
  Scan.scan(ExprLowering::skipWrappers(Full), /*IsRoot=*/true);
  for (const Expr *U : Scan.Updates) {
    const ValueDecl *D = getModifiedDecl(getUpdateTarget(U));
    for (const DeclRefExpr *Ref : Scan.Refs) {
      if (D && (Ref->getDecl() != D || contains(U, Ref) || Scan.after(U, Ref) ||
                Scan.before(U, Ref)))
        continue;
      std::string Name = D ? D->getNameAsString() : "memory";
      S.fail(U->getExprLoc(),
             "meshad: '" + Name + "' is modified inside an expression that "
             "also reads or writes it elsewhere; write the update as a "
             "separate statement");
      return false;
    }
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Conditions and initializers
//===----------------------------------------------------------------------===//

const ir::Expr *
StmtLowering::lowerLoopCondition(const Expr *Cond, const VarDecl *CondVar,
                                 std::vector<const ir::Stmt *> &Pre) {
  std::vector<const ir::Stmt *> Outer = Exprs.takeHoisted();
  const ir::Expr *Value = lowerCondition(Cond, CondVar);
  Pre = Exprs.takeHoisted();
  Exprs.restoreHoisted(std::move(Outer));
  return Value;
}

const ir::BlockStmt *
StmtLowering::testInBody(const ir::Expr *Cond,
                         std::vector<const ir::Stmt *> Pre,
                         const ir::BlockStmt *Body, bool AtEnd) {
  SourceLocation Loc = Cond->getLoc();
  const ir::Type *Bool = S.M.getTypes().getBool();
  // `!n` rather than `!(bool)n`: the same for an integer.
  if (const auto *C = dyn_cast<ir::CastExpr>(Cond);
      C && C->getType() == Bool && C->getSub()->getType()->isIntegral())
    Cond = C->getSub();
  auto *Break = S.make<ir::BlockStmt>(Loc);
  Break->append(S.make<ir::BreakStmt>(Loc));
  const ir::Stmt *Test = S.make<ir::IfStmt>(
      Loc, S.make<ir::UnaryExpr>(Loc, Bool, ir::UnaryOp::Not, Cond), Break,
      nullptr);
  auto *Result = S.make<ir::BlockStmt>(Body->getLoc());
  auto AppendTest = [&] {
    for (const ir::Stmt *P : Pre)
      Result->append(P);
    Result->append(Test);
  };
  if (!AtEnd)
    AppendTest();
  for (const ir::Stmt *St : Body->getBody())
    Result->append(St);
  if (AtEnd)
    AppendTest();
  return Result;
}

const ir::Stmt *StmtLowering::withInitializer(
    const Stmt *Init, const VarDecl *CondVar, SourceLocation Loc,
    const std::function<const ir::Stmt *()> &Lower) {
  if (!Init && !CondVar)
    return Lower();
  // { init; [condition variable;] statement }: the names stay local.
  std::vector<const ir::Stmt *> Outer = Exprs.takeHoisted();
  auto *Block = S.make<ir::BlockStmt>(Loc);
  bool Ok = !Init || lowerInto(Init, Block);
  const ir::Stmt *Result = Ok ? Lower() : nullptr;
  for (const ir::Stmt *H : Exprs.takeHoisted())
    Block->append(H);
  Exprs.restoreHoisted(std::move(Outer));
  if (!Result)
    return nullptr;
  Block->append(Result);
  return Block;
}

//===----------------------------------------------------------------------===//
// assert and printf
//===----------------------------------------------------------------------===//

bool StmtLowering::isDiagnosticOnly(const Expr *E) const {
  bool Reports = false, Other = false;
  std::function<void(const Stmt *)> Visit = [&](const Stmt *St) {
    if (!St || Other)
      return;
    if (getUpdateTarget(St) || isa<CXXNewExpr, CXXDeleteExpr>(St)) {
      Other = true;
      return;
    }
    if (const auto *C = dyn_cast<CallExpr>(St)) {
      if (isDiagnosticFunction(C->getDirectCallee()))
        Reports |= C->getDirectCallee()->getName() != "__builtin_expect";
      else if (!readsOnly(C, S.Ctx.getSourceManager()))
        Other = true;
    }
    for (const Stmt *Child : St->children())
      Visit(Child);
  };
  Visit(E);
  return Reports && !Other;
}
