//===- Lower/LowerInline.cpp - Member functions and struct calls ----------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Calls that the lowering inlines (issue 13): member functions of the
/// user's plain structs (`p.norm()`, `v.dot(w)`), operators written as
/// members (`a + b` with `Vec3 operator+(const Vec3 &) const`, `v[i]`), and
/// user functions that take or return such a struct holding
/// derivative-carrying values. The callee's body is lowered into the
/// caller, before the statement that contains the call, with
///  - `this` naming the object (`this->x`, `x` and `*this` are the
///    object's lvalue, so a method that assigns members updates it),
///  - reference parameters naming the argument's lvalue (a prvalue is
///    copied into a local first),
///  - value parameters copied into locals (named after the parameter),
///    unless the argument is a variable or a literal that the callee cannot
///    change (then the parameter names it),
///  - the callee's locals renamed where the caller uses their names,
///  - the value of its one `return`, which must end the body: the call's
///    value in place when the call is a statement's whole right-hand side
///    or the callee is one `return`, else a temporary (`_t0`); a struct
///    result is written member by member into the variable the call
///    initializes, or into a temporary.
/// Every mode then differentiates the caller's code: nothing is passed
/// across a function boundary, so struct values need no derivative form
/// of their own.
///
//===----------------------------------------------------------------------===//

#include "Lower/LoweringImpl.h"

#include "IR/Clone.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclCXX.h"
#include "clang/Basic/SourceManager.h"

using namespace meshad;
using namespace clang;

namespace {

/// A `return` inside \p St (not in a lambda); null when there is none.
const ReturnStmt *findReturn(const Stmt *St) {
  if (!St)
    return nullptr;
  if (const auto *R = dyn_cast<ReturnStmt>(St))
    return R;
  if (isa<LambdaExpr>(St))
    return nullptr;
  for (const Stmt *Child : St->children())
    if (const ReturnStmt *R = findReturn(Child))
      return R;
  return nullptr;
}

bool isInlinedMethod(const LoweringState &S, const CallExpr *E,
                     const CXXMethodDecl *MD) {
  if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(E);
      OC && OC->getOperator() == OO_Call)
    return false; // functors and lambdas: not here
  if (isa<CXXConstructorDecl, CXXDestructorDecl, CXXConversionDecl>(MD))
    return false;
  if (MD->isTrivial()) // trivial copies: lowered as struct assignments
    return false;
  return getUserStruct(S, MD->getParent()) != nullptr;
}

/// The class of the object of the member call \p E when meshad knows it
/// exactly, else null: a local or value parameter of a class (not a
/// reference, not through a pointer), a temporary, an object of a `final`
/// class, or `this` of an inlined member function whose object's class is
/// known (\p ThisClass).
const CXXRecordDecl *objectClass(const CallExpr *E,
                                 const CXXRecordDecl *ThisClass) {
  const Expr *Obj = nullptr;
  bool Arrow = false;
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E)) {
    const auto *ME = dyn_cast<MemberExpr>(MC->getCallee()->IgnoreParens());
    if (!ME)
      return nullptr;
    Arrow = ME->isArrow();
    Obj = MC->getImplicitObjectArgument();
  } else if (E->getNumArgs() > 0) {
    Obj = E->getArg(0);
  }
  if (!Obj)
    return nullptr;
  Obj = Obj->IgnoreParenImpCasts();
  QualType T = Arrow ? Obj->getType()->getPointeeType() : Obj->getType();
  const CXXRecordDecl *Static = T.isNull() ? nullptr : T->getAsCXXRecordDecl();
  if (Static && Static->hasAttr<FinalAttr>())
    return Static;
  if (isa<CXXThisExpr>(Obj))
    return ThisClass;
  if (Arrow)
    return nullptr;
  if (Obj->isPRValue() || isa<MaterializeTemporaryExpr>(Obj))
    return Static;
  const auto *DRE = dyn_cast<DeclRefExpr>(Obj);
  const auto *VD = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
  if (!VD || VD->getType()->isReferenceType())
    return nullptr;
  return VD->getType()->getAsCXXRecordDecl();
}

/// The class whose final overrider of \p MD the virtual call \p E runs
/// when meshad knows it (then inlined), else null: the object's class
/// (objectClass), or \p MD's for a `final` class or function.
const CXXRecordDecl *knownDynamicClass(const CallExpr *E,
                                       const CXXMethodDecl *MD,
                                       const CXXRecordDecl *ThisClass) {
  if (MD->hasAttr<FinalAttr>() || MD->getParent()->hasAttr<FinalAttr>())
    return MD->getParent();
  return objectClass(E, ThisClass);
}

/// The function the call \p E runs: for a virtual call on an object of
/// known class, that class's final overrider of the callee.
const FunctionDecl *getCalledFunction(const CallExpr *E,
                                      const CXXRecordDecl *ThisClass) {
  const FunctionDecl *FD = E->getDirectCallee();
  const auto *MD = dyn_cast<CXXMethodDecl>(FD);
  if (!MD || !MD->isVirtual())
    return FD;
  const CXXRecordDecl *RD = knownDynamicClass(E, MD, ThisClass);
  if (!RD || !RD->hasDefinition())
    return nullptr;
  return MD->getCorrespondingMethodInClass(RD->getDefinition());
}

/// Why \p RD cannot be copied member by member in generated code, or null.
/// Virtual functions are fine (the copies are of the data members).
const char *describeNonPlain(const CXXRecordDecl *RD, std::string &Member) {
  if (!hasPlainBases(RD))
    return "has base classes that are virtual, not public or have "
           "constructors, or a member that hides one of a base";
  for (const FieldDecl *F : RD->fields()) {
    Member = F->getNameAsString();
    if (F->getAccess() != AS_public)
      return "has the private or protected member";
    if (F->isBitField())
      return "has the bit-field";
    if (F->getType()->isReferenceType())
      return "has the reference member";
    if (Member.empty())
      return "has an unnamed member";
  }
  return nullptr;
}

bool isSimpleArgument(const ir::Expr *E) {
  if (isa<ir::FloatLitExpr, ir::IntLitExpr, ir::BoolLitExpr, ir::VarRefExpr>(
          E))
    return true;
  if (const auto *M = dyn_cast<ir::MemberExpr>(E))
    return !M->isArrow() && isSimpleArgument(M->getBase());
  if (const auto *I = dyn_cast<ir::IndexExpr>(E))
    return isa<ir::IntLitExpr, ir::VarRefExpr>(I->getIndex()) &&
           isSimpleArgument(I->getBase());
  return false;
}

bool isLValueExpr(const ir::Expr *E) {
  if (const auto *U = dyn_cast<ir::UnaryExpr>(E))
    return U->getOp() == ir::UnaryOp::Deref;
  return isa<ir::VarRefExpr, ir::MemberExpr, ir::IndexExpr>(E);
}

/// The variable whose storage the lvalue \p E designates (x for x, x.m,
/// x[i], x.m[i]); null otherwise.
const VarDecl *getStorageVar(const Expr *E) {
  while (true) {
    E = E->IgnoreParenImpCasts();
    if (const auto *Ref = dyn_cast<DeclRefExpr>(E))
      return dyn_cast<VarDecl>(Ref->getDecl());
    if (const auto *M = dyn_cast<MemberExpr>(E); M && !M->isArrow())
      E = M->getBase();
    else if (const auto *A = dyn_cast<ArraySubscriptExpr>(E);
             A && A->getBase()->IgnoreParenImpCasts()->getType()->isArrayType())
      E = A->getBase();
    else
      return nullptr;
  }
}

/// True when \p St may change \p VD (a value parameter): assigns it or a
/// member, takes its address, binds it to a non-const reference or calls a
/// non-const member function on it. Reads through members are reads.
bool mayAssign(const Stmt *St, const VarDecl *VD) {
  if (!St)
    return false;
  auto Names = [&](const Expr *E) { return E && getStorageVar(E) == VD; };
  if (const auto *B = dyn_cast<BinaryOperator>(St);
      B && B->isAssignmentOp() && Names(B->getLHS()))
    return true;
  if (const auto *U = dyn_cast<UnaryOperator>(St);
      U && (U->isIncrementDecrementOp() || U->getOpcode() == UO_AddrOf) &&
      Names(U->getSubExpr()))
    return true;
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(St);
      MC && !MC->getMethodDecl()->isConst() &&
      Names(MC->getImplicitObjectArgument()))
    return true;
  if (const auto *C = dyn_cast<CallExpr>(St)) {
    const FunctionDecl *FD = C->getDirectCallee();
    const auto *MD = dyn_cast_or_null<CXXMethodDecl>(FD);
    unsigned First = isa<CXXOperatorCallExpr>(C) && MD && !MD->isStatic();
    if (First && !MD->isConst() && Names(C->getArg(0)))
      return true;
    for (unsigned I = First; FD && I < C->getNumArgs(); ++I)
      if (I - First < FD->getNumParams() &&
          isMutableReference(FD->getParamDecl(I - First)->getType()) &&
          Names(C->getArg(I)))
        return true;
  }
  if (const auto *DS = dyn_cast<DeclStmt>(St))
    for (const Decl *D : DS->decls())
      if (const auto *Local = dyn_cast<VarDecl>(D);
          Local && isMutableReference(Local->getType()) &&
          Names(Local->getInit()))
        return true;
  for (const Stmt *Child : St->children())
    if (mayAssign(Child, VD))
      return true;
  return false;
}

/// True when the callee may write memory the caller owns (a non-const
/// member function, a non-const reference or a pointer parameter): value
/// parameters are then copied, not named.
bool mayWriteCallerMemory(const FunctionDecl *FD) {
  if (const auto *MD = dyn_cast<CXXMethodDecl>(FD);
      MD && !MD->isStatic() && !MD->isConst())
    return true;
  return llvm::any_of(FD->parameters(), [](const ParmVarDecl *P) {
    QualType T = P->getType();
    return isMutableReference(T) ||
           (T->isPointerType() && !T->getPointeeType().isConstQualified());
  });
}

} // namespace

bool meshad::isInlinedCall(const LoweringState &S, const CallExpr *E) {
  const FunctionDecl *FD = E->getDirectCallee();
  if (!FD || isa<CUDAKernelCallExpr>(E))
    return false;
  if (const auto *MD = dyn_cast<CXXMethodDecl>(FD))
    return isInlinedMethod(S, E, MD);
  const FunctionDecl *Def = FD->getDefinition();
  if (!Def || S.Ctx.getSourceManager().isInSystemHeader(Def->getLocation()))
    return false;
  auto HoldsDerivatives = [&](QualType T) {
    const CXXRecordDecl *RD = getUserStruct(S, T);
    return RD && holdsDerivatives(S, RD);
  };
  return HoldsDerivatives(FD->getReturnType()) ||
         llvm::any_of(FD->parameters(), [&](const ParmVarDecl *P) {
           return HoldsDerivatives(P->getType());
         });
}

const ir::Expr *ExprLowering::lowerThis(const Expr *E) {
  if (!S.ThisObject)
    return S.fail(E->getExprLoc(),
                  "meshad: 'this' is supported only inside a member function "
                  "that meshad inlines");
  return ir::IRCloner(S.M).clone(S.ThisObject);
}

bool StmtLowering::checkInlinable(const CallExpr *E, const FunctionDecl *FD) {
  SourceLocation Loc = E->getExprLoc();
  std::string Name = E->getDirectCallee()->getNameAsString();
  const auto *MD = dyn_cast<CXXMethodDecl>(E->getDirectCallee());
  if (MD && MD->isVirtual() && !knownDynamicClass(E, MD, S.ThisClass))
    return S.reject(Loc, Twine("meshad: the call of the virtual member "
                               "function '") +
                             Name +
                             "' goes through a reference or pointer whose "
                             "dynamic type meshad does not know; call it on "
                             "an object of the class (a local or value "
                             "parameter), mark the class 'final', or call a "
                             "non-virtual member function or a free function");
  if (!FD || !FD->doesThisDeclarationHaveABody() ||
      !isa<CompoundStmt>(FD->getBody()))
    return S.reject(Loc, Twine("meshad: the definition of '") + Name +
                           "' is not visible here; meshad lowers member "
                           "functions and functions taking or returning "
                           "structs into their callers, so define it in "
                           "this translation unit");
  if (llvm::is_contained(S.Inlining, FD))
    return S.reject(Loc, Twine("meshad: the recursive call of '") + Name +
                           "' is not supported (meshad lowers member "
                           "functions and functions taking or returning "
                           "structs into their callers); write a loop");
  if (FD->isVariadic())
    return S.reject(Loc, "meshad: variadic functions are not supported");
  std::vector<const CXXRecordDecl *> Records{
      getUserStruct(S, FD->getReturnType())};
  for (const ParmVarDecl *P : FD->parameters())
    Records.push_back(getUserStruct(S, P->getType()));
  if (MD)
    Records.push_back(getUserStruct(S, MD->getParent()));
  if (const auto *Run = dyn_cast<CXXMethodDecl>(FD); Run && Run != MD)
    Records.push_back(getUserStruct(S, Run->getParent())); // the overrider
  for (const CXXRecordDecl *RD : Records) {
    std::string Member;
    if (const char *Why = RD ? describeNonPlain(RD, Member) : nullptr)
      return S.reject(Loc, Twine("meshad: cannot lower the call of '") + Name +
                             "': struct '" + RD->getName() + "' " + Why +
                             (Member.empty() ? "" : " '" + Member + "'") +
                             "; meshad handles plain structs of public data "
                             "members (write a free function that takes "
                             "the values)");
  }
  return true;
}

namespace meshad {

/// What an inlined callee's names mean while its body is lowered; the
/// caller's meanings come back when it is destroyed.
class InlineBindings {
public:
  explicit InlineBindings(LoweringState &S) : S(S) {}
  InlineBindings(const InlineBindings &) = delete;
  ~InlineBindings() {
    for (auto &[VD, V, Alias] : Saved) {
      if (V)
        S.Vars[VD] = V;
      else
        S.Vars.erase(VD);
      if (Alias)
        S.Aliases[VD] = Alias;
      else
        S.Aliases.erase(VD);
    }
  }
  void bind(const VarDecl *VD, ir::Var *V, const ir::Expr *Alias) {
    Saved.emplace_back(VD, S.Vars.lookup(VD), S.Aliases.lookup(VD));
    S.Vars.erase(VD);
    S.Aliases.erase(VD);
    if (V)
      S.Vars[VD] = V;
    else
      S.Aliases[VD] = Alias;
  }

private:
  LoweringState &S;
  std::vector<std::tuple<const VarDecl *, ir::Var *, const ir::Expr *>> Saved;
};

} // namespace meshad

bool StmtLowering::bindThis(const CallExpr *E, const CXXMethodDecl *MD,
                            const ir::Expr *&Object) {
  Object = nullptr;
  if (!MD || MD->isStatic())
    return true;
  const Expr *Obj;
  bool Arrow = false;
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E)) {
    Obj = MC->getImplicitObjectArgument();
    if (const auto *ME = dyn_cast<MemberExpr>(MC->getCallee()->IgnoreParens()))
      Arrow = ME->isArrow();
  } else {
    Obj = E->getArg(0);
  }
  Obj = ExprLowering::skipWrappers(Obj);
  // A member function of a base runs on the derived object (its members
  // are named on it: hasPlainBases).
  while (const auto *IC = dyn_cast<ImplicitCastExpr>(Obj))
    if (IC->getCastKind() == CK_UncheckedDerivedToBase ||
        IC->getCastKind() == CK_DerivedToBase)
      Obj = ExprLowering::skipWrappers(IC->getSubExpr());
    else
      break;
  if (isa<CXXThisExpr>(Obj->IgnoreParenImpCasts())) {
    // A member function calling another on its own object.
    if (!S.ThisObject)
      return S.reject(Obj->getExprLoc(), "meshad: 'this' is supported only "
                                       "inside a member function that "
                                       "meshad inlines");
    Object = ir::IRCloner(S.M).clone(S.ThisObject);
    return true;
  }
  std::vector<const ir::Stmt *> Out;
  if (!Arrow && Obj->isPRValue()) {
    // `Vec3{1, 2, 3}.norm()`, `(a + b).norm()`: a temporary.
    ir::Var *T = declareStructTemp(Obj->getType(), Exprs.freshName("_t"),
                                   Obj->getExprLoc(), Out);
    Object = S.make<ir::VarRefExpr>(Obj->getExprLoc(), T);
    bool Ok = assignStruct(Object, Obj, /*DestIsFresh=*/true, Out);
    for (const ir::Stmt *St : Out)
      Exprs.hoist(St);
    return Ok;
  }
  const ir::Expr *Lowered = Exprs.lower(Obj);
  if (!Lowered)
    return false;
  if (Arrow) {
    const ir::Type *Ty = Lowered->getType();
    ir::TypeContext &TC = S.M.getTypes();
    Lowered = S.make<ir::IndexExpr>(
        Obj->getExprLoc(), Ty->getElement(), Lowered,
        S.make<ir::IntLitExpr>(Obj->getExprLoc(), TC.getInt(), 0, ""));
  }
  if (!isLValueExpr(Lowered))
    return S.reject(Obj->getExprLoc(), "meshad: calling a member function on "
                                     "this value is not supported; assign "
                                     "it to a variable first");
  // A parameter the method writes may change the object's index.
  bool WritesParams = llvm::any_of(MD->parameters(), [](const ParmVarDecl *P) {
    return isMutableReference(P->getType()) || P->getType()->isPointerType();
  });
  Object = WritesParams ? pinIndices(Lowered) : Lowered;
  return true;
}

const ir::Expr *StmtLowering::pinIndices(const ir::Expr *E) {
  if (const auto *M = dyn_cast<ir::MemberExpr>(E)) {
    const ir::Expr *Base = pinIndices(M->getBase());
    return S.make<ir::MemberExpr>(M->getLoc(), M->getType(), Base,
                                  M->getField(), M->isArrow());
  }
  const auto *I = dyn_cast<ir::IndexExpr>(E);
  if (!I)
    return E;
  const ir::Expr *Base = pinIndices(I->getBase());
  const ir::Expr *Idx = I->getIndex();
  if (!isa<ir::IntLitExpr>(Idx)) {
    // The callee may change what the index reads (`f(a[i], i)` with an
    // `int &` parameter): the element is the one of the call.
    ir::TypeContext &TC = S.M.getTypes();
    ir::Var *Copy = S.M.createVar(
        Exprs.freshName("_i"), TC.getConst(Idx->getType()->getUnqualified()));
    Exprs.hoist(S.make<ir::DeclStmt>(I->getLoc(), Copy, Idx));
    Idx = S.make<ir::VarRefExpr>(I->getLoc(), Copy);
  }
  return S.make<ir::IndexExpr>(I->getLoc(), I->getType(), Base, Idx);
}

bool StmtLowering::bindParam(const ParmVarDecl *P, const Expr *Arg,
                             bool MayAlias, ir::Var *&Copy,
                             const ir::Expr *&Alias) {
  Copy = nullptr;
  Alias = nullptr;
  SourceLocation Loc = Arg->getExprLoc();
  const Expr *Stripped = ExprLowering::skipWrappers(Arg);
  bool ByRef = P->getType()->isReferenceType();
  bool IsStruct = getUserStruct(S, P->getType()) != nullptr;
  if (ByRef && Stripped->isGLValue()) {
    Alias = Exprs.lower(Stripped);
    if (Alias && !isLValueExpr(Alias))
      return S.reject(Loc, "meshad: this argument of a reference parameter is "
                         "not supported; pass a variable");
    if (Alias && !MayAlias)
      Alias = pinIndices(Alias);
    return Alias != nullptr;
  }
  std::string Name = P->getName().empty() ? Exprs.freshName("_p")
                                          : Exprs.uniqueName(P->getName().str());
  if (IsStruct) {
    const Expr *Object = stripCopies(Arg);
    const ir::Expr *Lowered = nullptr;
    if (!ByRef && Object->isGLValue()) {
      if (!(Lowered = Exprs.lower(Object)))
        return false;
      if (MayAlias && isSimpleArgument(Lowered)) {
        Alias = Lowered;
        return true;
      }
    }
    std::vector<const ir::Stmt *> Out;
    Copy = declareStructTemp(P->getType(), Name, Loc, Out);
    const ir::Expr *Dest = S.make<ir::VarRefExpr>(Loc, Copy);
    bool Ok = Lowered ? copyMembers(Dest, Lowered,
                                    getUserStruct(S, P->getType()), Loc, Out)
                      : assignStruct(Dest, Arg, /*DestIsFresh=*/true, Out);
    for (const ir::Stmt *St : Out)
      Exprs.hoist(St);
    return Ok;
  }
  const ir::Type *Ty = Types.lowerType(P->getType())->getUnqualified();
  const ir::Expr *Value = Exprs.lowerAs(Arg, Ty);
  if (!Value)
    return false;
  if (isa<ir::FloatLitExpr, ir::IntLitExpr, ir::BoolLitExpr>(Value) ||
      (MayAlias && isSimpleArgument(Value))) {
    Alias = Value;
    return true;
  }
  Copy = S.M.createVar(Name, Ty);
  Exprs.hoist(S.make<ir::DeclStmt>(Loc, Copy, Value));
  return true;
}

const ir::Expr *StmtLowering::lowerInlinedBody(
    const FunctionDecl *FD, const ir::Expr *Dest,
    std::vector<const ir::Stmt *> &Out) {
  const auto *Body = cast<CompoundStmt>(FD->getBody());
  SourceLocation Loc = Body->getBeginLoc();
  QualType RetTy = FD->getReturnType();
  bool StructResult = getUserStruct(S, RetTy) && !RetTy->isReferenceType();
  if (StructResult && !Dest)
    Dest = S.make<ir::VarRefExpr>(
        Loc, declareStructTemp(RetTy, Exprs.freshName("_t"), Loc, Out));
  const auto *Last = Body->body_empty()
                         ? nullptr
                         : dyn_cast<ReturnStmt>(Body->body_back());
  auto *Block = S.make<ir::BlockStmt>(Loc);
  bool Ok = true;
  for (const Stmt *St : Body->body()) {
    if (St == Last)
      break;
    if (const ReturnStmt *R = findReturn(St))
      return S.fail(R->getBeginLoc(),
                    Twine("meshad: a 'return' before the end of '") +
                        FD->getName() +
                        "' is not supported (meshad lowers it into its "
                        "callers); set a result variable and return it at "
                        "the end");
    Ok &= lowerInto(St, Block);
  }
  llvm::append_range(Out, Block->getBody());
  if (!Ok)
    return nullptr;
  const Expr *Value = Last ? Last->getRetValue() : nullptr;
  if (!Value) {
    if (!RetTy->isVoidType())
      return S.fail(FD->getLocation(), "meshad: a function that does not end "
                                       "in a 'return' is not supported");
    // The value of a void call is never read (an expression statement).
    return S.make<ir::IntLitExpr>(Loc, S.M.getTypes().getInt(), 0, "");
  }
  if (!checkSequencing(Value))
    return nullptr;
  if (StructResult) {
    bool Assigned = assignStruct(Dest, Value, /*DestIsFresh=*/true, Out);
    return Assigned ? ir::IRCloner(S.M).clone(Dest) : nullptr;
  }
  const ir::Expr *Result = Exprs.lowerRoot(Value);
  llvm::append_range(Out, Exprs.takeHoisted());
  if (Result && !RetTy->isReferenceType())
    Result = Exprs.convert(Result, Types.lowerType(RetTy), Value->getExprLoc());
  if (Result && RetTy->isReferenceType() && !isLValueExpr(Result))
    return S.fail(Value->getExprLoc(),
                  "meshad: a returned reference that is not a variable, "
                  "member or element is not supported");
  return Result;
}

bool StmtLowering::bindParams(const CallExpr *E, const FunctionDecl *FD,
                              InlineBindings &Bindings) {
  const auto *MD = dyn_cast<CXXMethodDecl>(FD);
  // An operator written as a member takes the object as its first operand.
  unsigned First = isa<CXXOperatorCallExpr>(E) && MD && !MD->isStatic();
  if (E->getNumArgs() != First + FD->getNumParams())
    return S.reject(E->getExprLoc(), "meshad: this call's arguments are not "
                                   "supported");
  bool MayAlias = !mayWriteCallerMemory(FD);
  for (unsigned I = 0; I < FD->getNumParams(); ++I) {
    ir::Var *Copy = nullptr;
    const ir::Expr *Alias = nullptr;
    const ParmVarDecl *P = FD->getParamDecl(I);
    // A parameter the callee assigns is a copy of its own.
    bool Unchanged = !mayAssign(FD->getBody(), P);
    if (!bindParam(P, E->getArg(First + I), MayAlias && Unchanged, Copy,
                   Alias))
      return false;
    Bindings.bind(P, Copy, Alias);
  }
  return true;
}

const ir::Expr *StmtLowering::inlineCall(const CallExpr *E,
                                         const ir::Expr *Dest) {
  const FunctionDecl *FD = getCalledFunction(E, S.ThisClass);
  if (FD)
    FD = FD->getDefinition();
  // Virtual calls on `this` in the body run the overriders of the object's
  // class, where meshad knows it.
  const CXXRecordDecl *Class = isa_and_nonnull<CXXMethodDecl>(FD)
                                   ? objectClass(E, S.ThisClass)
                                   : nullptr;
  if (!checkInlinable(E, FD))
    return nullptr;
  // The object and the arguments are evaluated in the caller.
  const ir::Expr *Object = nullptr;
  InlineBindings Bindings(S);
  if (!bindThis(E, dyn_cast<CXXMethodDecl>(FD), Object) ||
      !bindParams(E, FD, Bindings))
    return nullptr;
  std::vector<const ir::Stmt *> Caller = Exprs.takeHoisted();
  const ir::Expr *OuterThis = std::exchange(S.ThisObject, Object);
  const CXXRecordDecl *OuterClass = std::exchange(S.ThisClass, Class);
  LoopReturns OuterReturns = std::exchange(Returns, LoopReturns());
  const Stmt *OuterBreak = std::exchange(SkippedBreak, nullptr);
  S.Inlining.push_back(FD);
  std::vector<const ir::Stmt *> Out;
  const ir::Expr *Result = Exprs.asNewStatement(
      [&] { return lowerInlinedBody(FD, Dest, Out); });
  S.Inlining.pop_back();
  SkippedBreak = OuterBreak;
  Returns = OuterReturns;
  S.ThisObject = OuterThis;
  S.ThisClass = OuterClass;
  Exprs.restoreHoisted(std::move(Caller));
  if (!Result)
    return nullptr;
  return finishInlinedCall(E, Result, Out);
}

const ir::Expr *
StmtLowering::finishInlinedCall(const CallExpr *E, const ir::Expr *Result,
                                const std::vector<const ir::Stmt *> &Out) {
  SourceLocation Loc = E->getExprLoc();
  if (const char *Context = Exprs.getNoHoistContext()) {
    if (!Out.empty())
      return S.fail(Loc, Twine("meshad: a call of '") +
                             E->getDirectCallee()->getName() + "' " +
                             Context +
                             " is not supported (meshad lowers it into "
                             "statements); assign its value to a variable "
                             "before");
    return Result;
  }
  for (const ir::Stmt *St : Out)
    Exprs.hoist(St);
  // Read where the call was, as a call's value: copied unless the call is
  // the statement's whole value, or its result is a variable already.
  bool Keep = Exprs.isRoot(E) || E->getType()->isVoidType() ||
              E->isGLValue() || isa<ir::VarRefExpr>(Result) ||
              isa<ir::FloatLitExpr, ir::IntLitExpr>(Result);
  if (Keep)
    return Result;
  ir::Var *Temp = S.M.createVar(Exprs.freshName("_t"),
                                Result->getType()->getUnqualified());
  Exprs.hoist(S.make<ir::DeclStmt>(Loc, Temp, Result));
  return S.make<ir::VarRefExpr>(Loc, Temp);
}
