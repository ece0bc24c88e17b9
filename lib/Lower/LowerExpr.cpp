//===- Lower/LowerExpr.cpp - Clang expressions to IR expressions ----------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Expressions: literals, variables (locals, parameters, globals), CUDA
/// built-in indices, operators, casts, memory accesses, members,
/// constructors and initializer lists. Calls are lowered in LowerCalls.cpp,
/// kernel launches in LowerLaunches.cpp.
///
//===----------------------------------------------------------------------===//

#include "Lower/LoweringImpl.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/Basic/CharInfo.h"
#include "llvm/ADT/StringSwitch.h"

using namespace meshad;
using namespace clang;

using IRBuiltin = ir::BuiltinExpr::Builtin;

namespace {

/// Conversions between arithmetic types, booleans and pointers-to-bool.
bool isArithmeticConversion(CastKind K) {
  switch (K) {
  case CK_IntegralCast:
  case CK_IntegralToFloating:
  case CK_FloatingToIntegral:
  case CK_FloatingCast:
  case CK_IntegralToBoolean:
  case CK_FloatingToBoolean:
  case CK_BooleanToSignedIntegral:
  case CK_PointerToBoolean:
    return true;
  default:
    return false;
  }
}

/// Source text is only kept as a literal's spelling if it is one (a literal
/// substituted for a template parameter is spelled as the parameter).
bool looksLikeLiteral(StringRef Text) {
  return !Text.empty() &&
         (isDigit(Text[0]) || Text[0] == '.' || Text[0] == '\'');
}

/// The CUDA index variable \p Base names: the CUDA header's threadIdx
/// (a __cuda_builtin_threadIdx_t) or the CPU emulation's global uint3.
std::optional<IRBuiltin> getBuiltinVar(const Expr *Base) {
  Base = Base->IgnoreParenImpCasts();
  if (const auto *OVE = dyn_cast<OpaqueValueExpr>(Base))
    Base = OVE->getSourceExpr()->IgnoreParenImpCasts();
  const auto *Ref = dyn_cast<DeclRefExpr>(Base);
  const auto *VD = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  if (!VD || !VD->hasGlobalStorage() ||
      !VD->getDeclContext()->getRedeclContext()->isTranslationUnit())
    return std::nullopt;
  return llvm::StringSwitch<std::optional<IRBuiltin>>(VD->getName())
      .Case("threadIdx", IRBuiltin::ThreadIdx)
      .Case("blockIdx", IRBuiltin::BlockIdx)
      .Case("blockDim", IRBuiltin::BlockDim)
      .Case("gridDim", IRBuiltin::GridDim)
      .Default(std::nullopt);
}

bool isTopLevelGlobal(const VarDecl *VD) {
  return VD->hasGlobalStorage() && !VD->isStaticLocal() &&
         VD->getDeclContext()->getRedeclContext()->isTranslationUnit();
}

std::optional<ir::UnaryOp> getUnaryOp(UnaryOperatorKind K) {
  switch (K) {
  case UO_Minus:
    return ir::UnaryOp::Neg;
  case UO_Plus:
    return ir::UnaryOp::Plus;
  case UO_LNot:
    return ir::UnaryOp::Not;
  case UO_Not:
    return ir::UnaryOp::BitNot;
  case UO_AddrOf:
    return ir::UnaryOp::AddrOf;
  case UO_Deref:
    return ir::UnaryOp::Deref;
  default:
    return std::nullopt;
  }
}

} // namespace

std::optional<ir::BinaryOp> ExprLowering::getBinaryOp(BinaryOperatorKind K) {
  using ir::BinaryOp;
  switch (K) {
  case BO_Add: return BinaryOp::Add;
  case BO_Sub: return BinaryOp::Sub;
  case BO_Mul: return BinaryOp::Mul;
  case BO_Div: return BinaryOp::Div;
  case BO_Rem: return BinaryOp::Rem;
  case BO_LT: return BinaryOp::Lt;
  case BO_GT: return BinaryOp::Gt;
  case BO_LE: return BinaryOp::Le;
  case BO_GE: return BinaryOp::Ge;
  case BO_EQ: return BinaryOp::Eq;
  case BO_NE: return BinaryOp::Ne;
  case BO_LAnd: return BinaryOp::LAnd;
  case BO_LOr: return BinaryOp::LOr;
  case BO_And: return BinaryOp::BitAnd;
  case BO_Or: return BinaryOp::BitOr;
  case BO_Xor: return BinaryOp::BitXor;
  case BO_Shl: return BinaryOp::Shl;
  case BO_Shr: return BinaryOp::Shr;
  default: return std::nullopt;
  }
}

//===----------------------------------------------------------------------===//
// Entry points and helpers
//===----------------------------------------------------------------------===//

const Expr *ExprLowering::skipWrappers(const Expr *E) {
  while (true) {
    if (const auto *PE = dyn_cast<ParenExpr>(E))
      E = PE->getSubExpr();
    else if (const auto *FE = dyn_cast<FullExpr>(E)) // ExprWithCleanups...
      E = FE->getSubExpr();
    else if (const auto *MT = dyn_cast<MaterializeTemporaryExpr>(E))
      E = MT->getSubExpr();
    else if (const auto *BT = dyn_cast<CXXBindTemporaryExpr>(E))
      E = BT->getSubExpr();
    else if (const auto *ST = dyn_cast<SubstNonTypeTemplateParmExpr>(E))
      E = ST->getReplacement();
    else if (const auto *DA = dyn_cast<CXXDefaultArgExpr>(E))
      E = DA->getExpr();
    else
      return E;
  }
}

const ir::Expr *ExprLowering::lowerRoot(const Expr *E) {
  const Expr *Outer = std::exchange(Scope.Root, skipWrappers(E));
  const ir::Expr *Result = lower(E);
  Scope.Root = Outer;
  return Result;
}

const ir::Expr *ExprLowering::lowerNoHoist(const Expr *E,
                                           const char *Context) {
  const char *Outer = std::exchange(Scope.NoHoistContext, Context);
  const ir::Expr *Result = lower(E);
  Scope.NoHoistContext = Outer;
  return Result;
}

ExprLowering::FunctionScope
ExprLowering::enterFunction(const FunctionDecl *FD) {
  FunctionScope Caller = std::exchange(Scope, FunctionScope());
  reserveUserNames(FD, Scope.Names);
  return Caller;
}

void ExprLowering::leaveFunction(FunctionScope Saved) {
  Scope = std::move(Saved);
}

const ir::Expr *ExprLowering::lowerAs(const Expr *E, const ir::Type *To) {
  const ir::Expr *Sub = lower(E);
  return Sub ? convert(Sub, To, skipWrappers(E)->getExprLoc()) : nullptr;
}

const ir::Expr *ExprLowering::convert(const ir::Expr *E, const ir::Type *To,
                                      SourceLocation Loc) {
  To = To->getUnqualified();
  if (E->getType()->getUnqualified() == To)
    return E;
  // An integer literal used as a floating value reads best as written: `3`
  // in `3 - 2 * t` (its value is exact in the floating type).
  if (const auto *I = dyn_cast<ir::IntLitExpr>(E))
    if (To->isFloatingScalar() && I->getValue() > -(1LL << 24) &&
        I->getValue() < (1LL << 24))
      return S.make<ir::FloatLitExpr>(Loc, To,
                                      static_cast<double>(I->getValue()),
                                      I->getSpelling());
  if (const auto *C = dyn_cast<ir::CastExpr>(E))
    if (C->getType() == To)
      return E;
  return S.make<ir::CastExpr>(Loc, To, E);
}

const ir::Expr *ExprLowering::makeZero(const ir::Type *Ty,
                                       SourceLocation Loc) {
  if (Ty->isFloatingScalar())
    return S.make<ir::FloatLitExpr>(Loc, Ty, 0.0, "");
  if (Ty->getKind() == ir::Type::Kind::Int)
    return S.make<ir::IntLitExpr>(Loc, Ty, 0, "");
  if (Ty->getKind() == ir::Type::Kind::Bool)
    return S.make<ir::BoolLitExpr>(Loc, Ty, false);
  if (Ty->isPointer())
    return S.make<ir::IntLitExpr>(Loc, Ty, 0, "nullptr");
  return S.make<ir::InitListExpr>(Loc, Ty, std::vector<const ir::Expr *>());
}

const ir::Expr *ExprLowering::unsupported(const Expr *E) {
  return S.fail(E->getExprLoc(), describeUnsupportedExpr(E));
}

//===----------------------------------------------------------------------===//
// Dispatch
//===----------------------------------------------------------------------===//

const ir::Expr *ExprLowering::lower(const Expr *E) {
  E = skipWrappers(E);
  switch (E->getStmtClass()) {
  case Stmt::ImplicitCastExprClass:
    return lowerImplicitCast(cast<ImplicitCastExpr>(E));
  case Stmt::CStyleCastExprClass:
  case Stmt::CXXStaticCastExprClass:
  case Stmt::CXXFunctionalCastExprClass:
    return lowerExplicitCast(cast<ExplicitCastExpr>(E));
  case Stmt::DeclRefExprClass:
    return lowerDeclRef(cast<DeclRefExpr>(E));
  case Stmt::UnaryOperatorClass:
    if (const auto *U = cast<UnaryOperator>(E);
        U->getOpcode() == UO_Deref &&
        isa<CXXThisExpr>(U->getSubExpr()->IgnoreParenImpCasts()))
      return lowerThis(U); // *this in an inlined member function
    return lowerUnary(cast<UnaryOperator>(E));
  case Stmt::CXXThisExprClass:
    return S.fail(E->getExprLoc(), "meshad: 'this' as a pointer is not "
                                   "supported; use the members or *this");
  case Stmt::BinaryOperatorClass:
  case Stmt::CompoundAssignOperatorClass:
    return lowerBinary(cast<BinaryOperator>(E));
  case Stmt::ConditionalOperatorClass:
    return lowerConditional(cast<ConditionalOperator>(E));
  case Stmt::ArraySubscriptExprClass:
    return lowerSubscript(cast<ArraySubscriptExpr>(E));
  case Stmt::MemberExprClass:
    return lowerMember(cast<MemberExpr>(E));
  case Stmt::PseudoObjectExprClass:
    return lowerPseudoObject(cast<PseudoObjectExpr>(E));
  case Stmt::CallExprClass:
  case Stmt::CXXMemberCallExprClass:
  case Stmt::CXXOperatorCallExprClass:
  case Stmt::CUDAKernelCallExprClass:
    return lowerCall(cast<CallExpr>(E));
  case Stmt::CXXConstructExprClass:
  case Stmt::CXXTemporaryObjectExprClass:
    return lowerConstruct(cast<CXXConstructExpr>(E));
  case Stmt::InitListExprClass:
    return lowerInitList(cast<InitListExpr>(E));
  default:
    return lowerLeaf(E);
  }
}

const ir::Expr *ExprLowering::lowerLeaf(const Expr *E) {
  SourceLocation Loc = E->getExprLoc();
  switch (E->getStmtClass()) {
  case Stmt::FloatingLiteralClass:
    return lowerFloatLit(cast<FloatingLiteral>(E));
  case Stmt::IntegerLiteralClass:
    return lowerIntLit(
        E, cast<IntegerLiteral>(E)->getValue().getLimitedValue());
  case Stmt::CharacterLiteralClass:
    return lowerIntLit(E, cast<CharacterLiteral>(E)->getValue());
  case Stmt::CXXBoolLiteralExprClass:
    return S.make<ir::BoolLitExpr>(Loc, Types.lowerType(E->getType()),
                                   cast<CXXBoolLiteralExpr>(E)->getValue());
  case Stmt::CXXNullPtrLiteralExprClass:
    return S.make<ir::IntLitExpr>(Loc, Types.lowerType(E->getType()), 0,
                                  "nullptr");
  case Stmt::ImplicitValueInitExprClass:
  case Stmt::CXXScalarValueInitExprClass:
    return makeZero(Types.lowerType(E->getType()), Loc);
  case Stmt::UnaryExprOrTypeTraitExprClass:
    return lowerTypeTrait(cast<UnaryExprOrTypeTraitExpr>(E));
  default:
    return unsupported(E);
  }
}

//===----------------------------------------------------------------------===//
// Casts and literals
//===----------------------------------------------------------------------===//

const ir::Expr *ExprLowering::lowerImplicitCast(const ImplicitCastExpr *E) {
  CastKind K = E->getCastKind();
  switch (K) {
  case CK_LValueToRValue:
  case CK_NoOp:
  case CK_ArrayToPointerDecay:
  case CK_FunctionToPointerDecay:
  case CK_BuiltinFnToFnPtr:
    return lower(E->getSubExpr());
  case CK_NullToPointer: {
    bool IsNullptr = isa<CXXNullPtrLiteralExpr>(skipWrappers(E->getSubExpr()));
    return S.make<ir::IntLitExpr>(E->getExprLoc(),
                                  Types.lowerType(E->getType()), 0,
                                  IsNullptr ? "nullptr" : "");
  }
  default:
    break;
  }
  if (isArithmeticConversion(K))
    return lowerAs(E->getSubExpr(), Types.lowerType(E->getType()));
  // A derived object as its base (`kinetic(ball)` of `kinetic(const Body
  // &)`, `Body c = ball;`): the object itself, whose members the base's
  // are by name (hasPlainBases); copies take the base's members.
  if ((K == CK_DerivedToBase || K == CK_UncheckedDerivedToBase) &&
      E->isGLValue())
    if (const CXXRecordDecl *RD = getUserStruct(S, E->getSubExpr()->getType());
        RD && hasPlainBases(RD))
      return lower(E->getSubExpr());
  // Pointer conversions such as double ** to void ** (cudaMalloc(&p, n)).
  if (K == CK_BitCast && E->getType()->isPointerType()) {
    const ir::Expr *Sub = lower(E->getSubExpr());
    return Sub ? S.make<ir::CastExpr>(E->getExprLoc(),
                                      Types.lowerType(E->getType()), Sub)
               : nullptr;
  }
  return S.fail(E->getExprLoc(), "meshad: the implicit conversion " +
                                     describeConversion(E, S.Policy) +
                                     " is not supported; convert explicitly "
                                     "between arithmetic types or members");
}

const ir::Expr *ExprLowering::lowerExplicitCast(const ExplicitCastExpr *E) {
  CastKind K = E->getCastKind();
  // float3(v) and similar: the constructor call says what happens.
  if (K == CK_ConstructorConversion)
    return lower(E->getSubExpr());
  if (K == CK_ToVoid)
    return S.fail(E->getExprLoc(), "meshad: a cast to void inside an "
                                   "expression is not supported; write the "
                                   "operand as a statement of its own");
  if (K != CK_NoOp && !isArithmeticConversion(K))
    return S.fail(E->getExprLoc(), "meshad: the cast " +
                                       describeConversion(E, S.Policy) +
                                       " is not supported; differentiated "
                                       "code keeps one type per value and "
                                       "array (casts between arithmetic "
                                       "types are fine)");
  // The conversions Clang spells as implicit casts inside the explicit one
  // are all performed by the single IR cast.
  const Expr *Operand = E->getSubExpr();
  while (const auto *ICE = dyn_cast<ImplicitCastExpr>(Operand)) {
    if (!ICE->isPartOfExplicitCast())
      break;
    Operand = ICE->getSubExpr();
  }
  const ir::Expr *Sub = lower(Operand);
  if (!Sub)
    return nullptr;
  const ir::Type *Ty = Types.lowerType(E->getType())->getUnqualified();
  const ir::Expr *Result = convert(Sub, Ty, E->getExprLoc());
  // The cast's type is kept: (double)3 as "3.", not as "3", which changes
  // template deduction (std::max(y, 3)) and division (1 / 3).
  if (const auto *F = dyn_cast<ir::FloatLitExpr>(Result))
    if (isa<ir::IntLitExpr>(Sub))
      return S.make<ir::FloatLitExpr>(F->getLoc(), Ty, F->getValue(), "");
  return Result;
}

const ir::Expr *ExprLowering::lowerFloatLit(const FloatingLiteral *E) {
  std::string Spelling = S.getSourceText(E->getSourceRange());
  if (!looksLikeLiteral(Spelling))
    Spelling.clear();
  return S.make<ir::FloatLitExpr>(E->getExprLoc(),
                                  Types.lowerType(E->getType()),
                                  E->getValueAsApproximateDouble(), Spelling);
}

const ir::Expr *ExprLowering::lowerIntLit(const Expr *E, long long Value) {
  std::string Spelling = S.getSourceText(E->getSourceRange());
  if (!looksLikeLiteral(Spelling))
    Spelling.clear();
  return S.make<ir::IntLitExpr>(E->getExprLoc(), Types.lowerType(E->getType()),
                                Value, Spelling);
}

const ir::Expr *
ExprLowering::lowerTypeTrait(const UnaryExprOrTypeTraitExpr *E) {
  UnaryExprOrTypeTrait K = E->getKind();
  Expr::EvalResult Result;
  if ((K != UETT_SizeOf && K != UETT_AlignOf && K != UETT_PreferredAlignOf) ||
      !E->EvaluateAsInt(Result, S.Ctx))
    return unsupported(E);
  return S.make<ir::IntLitExpr>(E->getExprLoc(), Types.lowerType(E->getType()),
                                Result.Val.getInt().getExtValue(), "");
}

//===----------------------------------------------------------------------===//
// Variables and CUDA built-ins
//===----------------------------------------------------------------------===//

const ir::Expr *ExprLowering::lowerDeclRef(const DeclRefExpr *E) {
  const ValueDecl *D = E->getDecl();
  SourceLocation Loc = E->getExprLoc();
  if (const auto *ECD = dyn_cast<EnumConstantDecl>(D))
    return S.make<ir::IntLitExpr>(Loc, Types.lowerType(E->getType()),
                                  ECD->getInitVal().getExtValue(),
                                  S.getQualifiedName(ECD));
  if (const auto *VD = dyn_cast<VarDecl>(D))
    return lowerVarRef(VD, Loc);
  if (isa<FunctionDecl>(D))
    return S.fail(Loc, "meshad: function pointers are not supported");
  return S.fail(Loc, Twine("meshad: reference to '") + D->getName() +
                         "' (a " + D->getDeclKindName() +
                         ") is not supported");
}

const ir::Expr *ExprLowering::lowerVarRef(const VarDecl *VD,
                                          SourceLocation Loc) {
  if (ir::Var *V = S.Vars.lookup(VD); V && !V->isReferenceParam())
    return S.make<ir::VarRefExpr>(Loc, V);
  if (S.Vars.count(VD) || S.Aliases.count(VD))
    return lowerAliasUse(VD, Loc);
  if (S.Lambdas.count(VD))
    return S.fail(Loc, Twine("meshad: the lambda '") + VD->getName() +
                           "' can only be called here (" + VD->getName() +
                           "(x)); passing it on is not supported");
  if (VD->getName() == "warpSize" && isTopLevelGlobal(VD))
    return S.make<ir::BuiltinExpr>(
        Loc, Types.lowerType(VD->getType())->getUnqualified(),
        IRBuiltin::WarpSize, 0);
  if (VD->hasGlobalStorage() && !VD->isStaticLocal())
    return S.make<ir::VarRefExpr>(Loc, getGlobal(VD));
  return S.fail(Loc, Twine("meshad: use of unsupported variable '") +
                         VD->getName() + "'");
}

ir::Var *ExprLowering::getGlobal(const VarDecl *VD) {
  const VarDecl *Key = VD->getCanonicalDecl();
  ir::Var *&V = S.Vars[Key];
  if (!V)
    V = S.M.createVar(S.getQualifiedName(VD), Types.lowerType(VD->getType()),
                      ir::Var::Storage::Global);
  return V;
}

const ir::Expr *ExprLowering::lowerBuiltinIndex(IRBuiltin B, StringRef Field,
                                                SourceLocation Loc) {
  unsigned Dim = llvm::StringSwitch<unsigned>(Field)
                     .Case("x", 0)
                     .Case("y", 1)
                     .Case("z", 2)
                     .Default(3);
  if (Dim == 3)
    return S.fail(Loc, Twine("meshad: unknown component '") + Field +
                           "' of a CUDA index variable");
  return S.make<ir::BuiltinExpr>(Loc, S.M.getTypes().getInt("unsigned int"),
                                 B, Dim);
}

const ir::Expr *ExprLowering::lowerPseudoObject(const PseudoObjectExpr *E) {
  // CUDA's threadIdx.x is a property access on __cuda_builtin_threadIdx_t.
  const auto *Prop = dyn_cast<MSPropertyRefExpr>(
      E->getSyntacticForm()->IgnoreParens());
  if (Prop)
    if (std::optional<IRBuiltin> B = getBuiltinVar(Prop->getBaseExpr()))
      return lowerBuiltinIndex(*B, Prop->getPropertyDecl()->getName(),
                               E->getExprLoc());
  return S.fail(E->getExprLoc(), "meshad: property accesses are not supported");
}

//===----------------------------------------------------------------------===//
// Operators, memory accesses and members
//===----------------------------------------------------------------------===//

const ir::Expr *ExprLowering::lowerUnary(const UnaryOperator *E) {
  SourceLocation Loc = E->getExprLoc();
  if (E->isIncrementDecrementOp())
    return lowerNestedUpdate(E, E->getSubExpr(), E->isPostfix());
  if (E->getOpcode() == UO_Extension)
    return lower(E->getSubExpr());
  std::optional<ir::UnaryOp> Op = getUnaryOp(E->getOpcode());
  if (!Op)
    return S.fail(Loc, Twine("meshad: unary operator '") +
                           UnaryOperator::getOpcodeStr(E->getOpcode()) +
                           "' is not supported");
  const ir::Expr *Sub = lower(E->getSubExpr());
  if (!Sub)
    return nullptr;
  return S.make<ir::UnaryExpr>(Loc, Types.lowerType(E->getType()), *Op, Sub);
}

const ir::Expr *ExprLowering::lowerBinary(const BinaryOperator *E) {
  SourceLocation Loc = E->getOperatorLoc();
  if (E->isAssignmentOp())
    return lowerNestedUpdate(E, E->getLHS(), /*Post=*/false);
  if (E->isCommaOp())
    return lowerComma(E);
  std::optional<ir::BinaryOp> Op = getBinaryOp(E->getOpcode());
  if (!Op)
    return S.fail(Loc, Twine("meshad: binary operator '") +
                           E->getOpcodeStr() + "' is not supported");
  // The right operand of && and || is evaluated conditionally.
  if (E->isLogicalOp())
    return lowerShortCircuit(E, *Op);
  const ir::Expr *LHS = lower(E->getLHS());
  const ir::Expr *RHS = lower(E->getRHS());
  if (!LHS || !RHS)
    return nullptr;
  return S.make<ir::BinaryExpr>(Loc, Types.lowerType(E->getType()), *Op, LHS,
                                RHS);
}

const ir::Expr *ExprLowering::lowerSubscript(const ArraySubscriptExpr *E) {
  const ir::Expr *Base = lower(E->getBase());
  const ir::Expr *Index = lower(E->getIdx());
  if (!Base || !Index)
    return nullptr;
  return S.make<ir::IndexExpr>(E->getExprLoc(), Types.lowerType(E->getType()),
                               Base, Index);
}

const ir::Expr *ExprLowering::lowerMember(const MemberExpr *E) {
  SourceLocation Loc = E->getExprLoc();
  const auto *Field = dyn_cast<FieldDecl>(E->getMemberDecl());
  if (!Field || Field->getName().empty())
    return S.fail(Loc, "meshad: only named data members are supported");
  // The CPU emulation's threadIdx is a global uint3.
  if (!E->isArrow())
    if (std::optional<IRBuiltin> B = getBuiltinVar(E->getBase()))
      return lowerBuiltinIndex(*B, Field->getName(), Loc);
  // `x` and `this->x` in an inlined member function: the object's member;
  // in a functor's operator() lowered on its own: a member of `self`.
  bool OfThis = isa<CXXThisExpr>(E->getBase()->IgnoreParenImpCasts());
  if (OfThis && !S.ThisObject)
    return lowerThisMember(E, Field);
  // A member of a base named on a derived object (`b.m`): on the object
  // itself (hasPlainBases: no member hides another).
  const Expr *Object = E->getBase();
  while (const auto *IC = dyn_cast<ImplicitCastExpr>(Object->IgnoreParens()))
    if (IC->getCastKind() == CK_UncheckedDerivedToBase ||
        IC->getCastKind() == CK_DerivedToBase)
      Object = IC->getSubExpr();
    else
      break;
  const ir::Expr *Base = OfThis ? lowerThis(E->getBase()) : lower(Object);
  if (!Base)
    return nullptr;
  bool Arrow = E->isArrow() && !OfThis;
  const ir::Type *Ty = Types.lowerType(E->getType());
  // A member read through a const reference or a const member function
  // that meshad inlined is as const as the object it names.
  if (!Arrow && !Base->getType()->isConst() && !Field->getType().isConstQualified())
    Ty = Ty->getUnqualified();
  return S.make<ir::MemberExpr>(Loc, Ty, Base, Field->getNameAsString(),
                                Arrow);
}

//===----------------------------------------------------------------------===//
// Constructors and initializer lists
//===----------------------------------------------------------------------===//

/// Whether \p RD is a class of the standard library, Thrust, CUB or CUDA's
/// own headers (its constructor gets the constructor message, not the
/// advice for user classes with bases).
static bool isLibraryClass(const CXXRecordDecl *RD) {
  for (const DeclContext *DC = RD->getDeclContext(); DC; DC = DC->getParent())
    if (const auto *NS = dyn_cast<NamespaceDecl>(DC);
        NS && DC->getParent()->isTranslationUnit())
      return llvm::is_contained({"std", "thrust", "cub", "cuda"},
                                NS->getName());
  return false;
}

const ir::Expr *ExprLowering::lowerConstruct(const CXXConstructExpr *E) {
  const CXXConstructorDecl *Ctor = E->getConstructor();
  if (Ctor->isCopyOrMoveConstructor() && E->getNumArgs() == 1 &&
      stripCopies(E) != E) // member by member
    return lower(stripCopies(E));
  if (E->getNumArgs() == 0 && Ctor->isTrivial() &&
      E->requiresZeroInitialization())
    return makeZero(Types.lowerType(E->getType()), E->getExprLoc());
  if (std::string Container = thrustContainerProblem(E->getType());
      !Container.empty())
    return S.fail(E->getExprLoc(), Container);
  if (const CXXRecordDecl *RD = Ctor->getParent();
      !hasPlainBases(RD) && !isLibraryClass(RD))
    return S.fail(E->getExprLoc(),
                  Twine("meshad: objects of '") + RD->getName() +
                      "', a class with base classes that are virtual, not "
                      "public or have constructors, or with a member that "
                      "hides one of a base, are not supported; meshad "
                      "handles structs of public data members whose bases "
                      "are such structs or interfaces (their virtual "
                      "functions too): move the members into the class, or "
                      "write a free function that takes the values");
  return S.fail(E->getExprLoc(), Twine("meshad: constructor call of '") +
                                     E->getType().getAsString(S.Policy) +
                                     "' is not supported; initialize it with "
                                     "a brace list ({a, b, c}) or a make_ "
                                     "function");
}

const ir::Expr *ExprLowering::lowerInitList(const InitListExpr *E) {
  QualType T = E->getType();
  const ir::Type *Ty = Types.lowerType(T);
  if (!T->isArrayType() && !T->isRecordType()) {
    // double x{1.0}: a scalar initialised from a braced list.
    if (E->getNumInits() == 1)
      return lower(E->getInit(0));
    return makeZero(Ty, E->getExprLoc());
  }
  if (E->isStringLiteralInit())
    return unsupported(E->getInit(0));
  std::vector<const ir::Expr *> Elems;
  bool Ok = true;
  for (const Expr *Init : E->inits()) {
    const ir::Expr *Lowered = lower(Init);
    Ok &= Lowered != nullptr;
    Elems.push_back(Lowered);
  }
  if (!Ok)
    return nullptr;
  return S.make<ir::InitListExpr>(E->getExprLoc(), Ty, std::move(Elems));
}
