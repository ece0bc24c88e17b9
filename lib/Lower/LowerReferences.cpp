//===- Lower/LowerReferences.cpp - Non-const references -------------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Non-const references (issue 13), rewritten into what the IR has:
/// - a reference parameter `double &acc` of a callee is a pointer parameter
///   (`ir::Var::isReferenceParam`) whose uses are `acc[0]`; a call passes
///   the address of its argument (`update(&acc, x)`, which the emitter
///   spells `update(acc, x)` for the user's own function), so derivatives
///   see a callee that writes memory, as for `h(x, out)`;
/// - a reference local `double &r = a[i];` is an alias: every use of r is
///   a copy of `a[i]` (LoweringState::Aliases); an index that the
///   statements after the declaration may change is copied first
///   (`const int _i0 = i;`), a pointer they may move is an error.
///
//===----------------------------------------------------------------------===//

#include "IR/Clone.h"
#include "Lower/LoweringImpl.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ParentMapContext.h"

using namespace meshad;
using namespace clang;

bool meshad::isMutableReference(QualType T) {
  const auto *RT = T->getAs<ReferenceType>();
  return RT && !RT->getPointeeType().isConstQualified();
}

bool meshad::mayChange(const Stmt *St, const VarDecl *VD,
                       const Stmt *Parent) {
  if (!St)
    return false;
  if (const auto *DRE = dyn_cast<DeclRefExpr>(St);
      DRE && DRE->getDecl() == VD) {
    const auto *Cast = dyn_cast_or_null<ImplicitCastExpr>(Parent);
    return !Cast || Cast->getCastKind() != CK_LValueToRValue;
  }
  for (const Stmt *Child : St->children())
    if (mayChange(Child, VD, St))
      return true;
  return false;
}

namespace {

bool mayChangeIn(llvm::ArrayRef<const Stmt *> Scope, const VarDecl *VD) {
  return llvm::any_of(
      Scope, [&](const Stmt *St) { return mayChange(St, VD, nullptr); });
}

/// The variable \p E names, through parentheses and implicit casts.
const VarDecl *getNamedVar(const Expr *E) {
  const auto *DRE = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
  return DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
}

} // namespace

//===----------------------------------------------------------------------===//
// Uses and call arguments
//===----------------------------------------------------------------------===//

const ir::Expr *ExprLowering::lowerAliasUse(const VarDecl *VD,
                                            SourceLocation Loc) {
  if (const ir::Expr *Target = S.Aliases.lookup(VD))
    return ir::IRCloner(S.M).clone(Target);
  // A reference parameter: the object its pointer points to.
  ir::Var *V = S.Vars.lookup(VD);
  ir::TypeContext &TC = S.M.getTypes();
  return S.make<ir::IndexExpr>(Loc, V->getType()->getElement(),
                               S.make<ir::VarRefExpr>(Loc, V),
                               S.make<ir::IntLitExpr>(Loc, TC.getInt(), 0, ""));
}

const ir::Expr *ExprLowering::lowerReferenceArg(const Expr *Arg,
                                                const FunctionDecl *FD) {
  SourceLocation Loc = Arg->getExprLoc();
  if (!isUserFunction(FD))
    return S.fail(Loc, Twine("meshad: '") + FD->getName() +
                           "' takes this argument by non-const reference "
                           "and meshad cannot see its definition; call a "
                           "function of your own that returns the value");
  const Expr *E = Arg->IgnoreParens();
  if (const VarDecl *VD = getNamedVar(E)) {
    if (ir::Var *V = S.Vars.lookup(VD); V && V->isReferenceParam())
      return S.make<ir::VarRefExpr>(Loc, V); // passed on: the same pointer
    if (VD->hasGlobalStorage() && !S.Aliases.count(VD))
      return S.fail(Loc, Twine("meshad: global variable '") + VD->getName() +
                             "' passed by non-const reference; globals are "
                             "constants to derivatives: pass a local");
  } else if (!isa<ArraySubscriptExpr>(E)) {
    return S.fail(Loc, "meshad: only a variable or an array element can be "
                       "passed by non-const reference; copy this into a "
                       "local, pass the local and copy it back");
  }
  const ir::Expr *Object = lower(E);
  if (!Object)
    return nullptr;
  if (isa<ir::MemberExpr>(Object))
    return S.fail(Loc, "meshad: a vector component passed by non-const "
                       "reference is not supported; copy it into a local, "
                       "pass the local and copy it back");
  ir::TypeContext &TC = S.M.getTypes();
  return S.make<ir::UnaryExpr>(Loc, TC.getPointer(Object->getType()),
                               ir::UnaryOp::AddrOf, Object);
}

//===----------------------------------------------------------------------===//
// Reference locals
//===----------------------------------------------------------------------===//

std::vector<const Stmt *> StmtLowering::getScopeAfter(const DeclStmt *DS) {
  DynTypedNodeList Parents = S.Ctx.getParents(*DS);
  const Stmt *Parent = Parents.empty() ? nullptr : Parents[0].get<Stmt>();
  const auto *CS = dyn_cast_or_null<CompoundStmt>(Parent);
  if (!CS) // a for-init or a condition: the whole statement, to be safe
    return {Parent};
  std::vector<const Stmt *> After;
  bool Seen = false;
  for (const Stmt *St : CS->body()) {
    if (Seen)
      After.push_back(St);
    Seen |= St == DS;
  }
  return After;
}

bool StmtLowering::lowerReferenceLocal(const VarDecl *VD, const DeclStmt *DS,
                                       ir::BlockStmt *B) {
  const Expr *Init = VD->getInit();
  if (!Init) {
    S.fail(VD->getLocation(), "meshad: reference without initializer");
    return false;
  }
  std::vector<const Stmt *> Scope = getScopeAfter(DS);
  const ir::Expr *Target = lowerAliasTarget(Init, VD, Scope, B);
  if (!Target) {
    // Registered all the same, to avoid follow-up errors at its uses.
    S.Vars[VD] = S.M.createVar(Exprs.localName(VD),
                               Types.lowerType(VD->getType()));
    return false;
  }
  S.Aliases[VD] = Target;
  return true;
}

const ir::Expr *
StmtLowering::lowerAliasTarget(const Expr *E, const VarDecl *Ref,
                               llvm::ArrayRef<const Stmt *> Scope,
                               ir::BlockStmt *B) {
  E = E->IgnoreParens();
  SourceLocation Loc = E->getExprLoc();
  if (getNamedVar(E) && !isa<ImplicitCastExpr>(E))
    return Exprs.lower(E); // another name for a variable
  if (const auto *ME = dyn_cast<MemberExpr>(E);
      ME && !ME->isArrow() && getNamedVar(ME->getBase()))
    return Exprs.lower(E); // a component of a vector variable
  const auto *ASE = dyn_cast<ArraySubscriptExpr>(E);
  if (!ASE)
    return S.fail(Loc, Twine("meshad: reference '") + Ref->getName() +
                           "' must name a variable, an array element or a "
                           "vector component; take a copy (double " +
                           Ref->getName() + " = ...) and store it back");
  const Expr *Base = ASE->getBase()->IgnoreParenImpCasts();
  const ir::Expr *LoweredBase = nullptr;
  if (isa<ArraySubscriptExpr>(Base)) {
    LoweredBase = lowerAliasTarget(Base, Ref, Scope, B); // a[i][j]
  } else if (const VarDecl *Array = getNamedVar(Base)) {
    if (Array->getType()->isPointerType() && mayChangeIn(Scope, Array))
      return S.fail(Loc, Twine("meshad: reference '") + Ref->getName() +
                             "' names an element of pointer '" +
                             Array->getName() +
                             "', which the code after it moves; index the "
                             "element where it is used");
    LoweredBase = Exprs.lower(ASE->getBase());
  } else {
    return S.fail(Loc, Twine("meshad: reference '") + Ref->getName() +
                           "' names an element of an array that is not a "
                           "variable; name the array in a local first");
  }
  const ir::Expr *Idx = lowerAliasIndex(ASE->getIdx(), Scope, B);
  if (!LoweredBase || !Idx)
    return nullptr;
  return S.make<ir::IndexExpr>(Loc, Types.lowerType(E->getType()),
                               LoweredBase, Idx);
}

const ir::Expr *
StmtLowering::lowerAliasIndex(const Expr *Idx,
                              llvm::ArrayRef<const Stmt *> Scope,
                              ir::BlockStmt *B) {
  const VarDecl *Counter = getNamedVar(Idx);
  if (Idx->isIntegerConstantExpr(S.Ctx) ||
      (Counter && !mayChangeIn(Scope, Counter)))
    return Exprs.lower(Idx);
  // The index may change while the reference lives: the element it names
  // is the one of the declaration.
  const ir::Expr *Value = Exprs.lower(Idx);
  if (!Value)
    return nullptr;
  ir::TypeContext &TC = S.M.getTypes();
  const ir::Type *Ty = TC.getConst(Value->getType()->getUnqualified());
  ir::Var *Copy = S.M.createVar(Exprs.freshName("_i"), Ty);
  SourceLocation Loc = Idx->getExprLoc();
  emit(B, S.make<ir::DeclStmt>(Loc, Copy, Value));
  return S.make<ir::VarRefExpr>(Loc, Copy);
}
