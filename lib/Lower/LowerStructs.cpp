//===- Lower/LowerStructs.cpp - Struct values member by member ------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Values of the user's plain structs (`struct Particle { double x, v; }`,
/// a `Vec3` with its own operators) are kept as structs in the IR, whose
/// derivative code gives them a shadow struct of the same type. Only their
/// members are ever assigned: a copy of a struct value (`Vec3 c = a;`,
/// `c = a;`, a brace list of computed values, the result of an inlined call,
/// a struct passed by value to an inlined callee) becomes one assignment per
/// member, which every mode differentiates like any other assignment
/// (issue 13).
///
//===----------------------------------------------------------------------===//

#include "Lower/LoweringImpl.h"

#include "IR/Clone.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/StringSet.h"

using namespace meshad;
using namespace clang;

namespace {

/// Namespaces whose types are libraries', not the user's.
constexpr StringRef LibraryNamespaces[] = {"meshad", "std", "thrust", "cub",
                                           "cuda"};

bool isLibraryType(const CXXRecordDecl *RD) {
  const DeclContext *DC = RD->getDeclContext();
  const NamespaceDecl *Outer = nullptr;
  for (; DC; DC = DC->getParent())
    if (const auto *NS = dyn_cast<NamespaceDecl>(DC))
      Outer = NS;
  return Outer && llvm::is_contained(LibraryNamespaces, Outer->getName());
}

/// float1..float4 and double1..double4 (modelled as IR vector types).
bool isCudaVectorType(const CXXRecordDecl *RD) {
  if (!RD->getIdentifier() ||
      !RD->getDeclContext()->getRedeclContext()->isTranslationUnit())
    return false;
  StringRef Name = RD->getName();
  if (!Name.consume_front("double") && !Name.consume_front("float"))
    return false;
  return Name.size() == 1 && Name[0] >= '1' && Name[0] <= '4';
}

bool carriesDerivatives(const LoweringState &S, QualType T) {
  T = T.getNonReferenceType().getCanonicalType();
  if (T->isRealFloatingType())
    return true;
  if (const auto *PT = T->getAs<PointerType>())
    return carriesDerivatives(S, PT->getPointeeType());
  if (const ArrayType *AT = T->getAsArrayTypeUnsafe())
    return carriesDerivatives(S, AT->getElementType());
  const CXXRecordDecl *RD = T->getAsCXXRecordDecl();
  if (RD && isCudaVectorType(RD))
    return true;
  const CXXRecordDecl *User = getUserStruct(S, T);
  return User && holdsDerivatives(S, User);
}

} // namespace

/// A copy or move constructor that copies the data members and nothing
/// else: trivial, or the implicit one of a class whose virtual functions
/// or interface bases make it non-trivial (it also sets the virtual table
/// pointer, which the copy's own declaration sets).
static bool isMemberwiseCopy(const CXXConstructorDecl *Ctor) {
  if (!Ctor->isCopyOrMoveConstructor())
    return false;
  if (Ctor->isTrivial())
    return true;
  const CXXRecordDecl *RD = Ctor->getParent();
  return !Ctor->isUserProvided() && !Ctor->isDeleted() && hasPlainBases(RD) &&
         llvm::all_of(allFields(RD), [](const FieldDecl *F) {
           return F->getType().isTriviallyCopyableType(F->getASTContext());
         });
}

const Expr *meshad::stripCopies(const Expr *E) {
  while (true) {
    E = ExprLowering::skipWrappers(E);
    if (const auto *CE = dyn_cast<CXXConstructExpr>(E);
        CE && CE->getNumArgs() == 1 &&
        isMemberwiseCopy(CE->getConstructor()))
      E = CE->getArg(0);
    else if (const auto *IC = dyn_cast<ImplicitCastExpr>(E);
             IC && (IC->getCastKind() == CK_NoOp ||
                    IC->getCastKind() == CK_LValueToRValue))
      E = IC->getSubExpr();
    else if (const auto *FC = dyn_cast<CXXFunctionalCastExpr>(E);
             FC && FC->getCastKind() == CK_NoOp)
      E = FC->getSubExpr();
    else
      return E;
  }
}

namespace {

bool isLValue(const ir::Expr *E) {
  if (const auto *U = dyn_cast<ir::UnaryExpr>(E))
    return U->getOp() == ir::UnaryOp::Deref;
  return isa<ir::VarRefExpr, ir::MemberExpr, ir::IndexExpr>(E);
}

} // namespace

bool meshad::isPlainDefaultConstructor(const CXXConstructorDecl *Ctor) {
  if (Ctor->isTrivial())
    return true;
  const CXXRecordDecl *RD = Ctor->getParent();
  return Ctor->isDefaultConstructor() && Ctor->isImplicit() &&
         !Ctor->isDeleted() && hasPlainBases(RD) &&
         llvm::all_of(allFields(RD), [](const FieldDecl *F) {
           return !F->hasInClassInitializer() &&
                  F->getType().isTrivialType(F->getASTContext());
         });
}

/// The public, non-virtual base \p B's definition, else null.
static const CXXRecordDecl *getPlainBase(const CXXBaseSpecifier &B) {
  const CXXRecordDecl *Base = B.getType()->getAsCXXRecordDecl();
  if (B.isVirtual() || B.getAccessSpecifier() != AS_public || !Base ||
      !Base->hasDefinition())
    return nullptr;
  Base = Base->getDefinition();
  return Base->hasUserDeclaredConstructor() ? nullptr : Base;
}

std::vector<const FieldDecl *> meshad::allFields(const CXXRecordDecl *RD) {
  std::vector<const FieldDecl *> Fields;
  for (const CXXBaseSpecifier &B : RD->bases())
    if (const CXXRecordDecl *Base = getPlainBase(B))
      llvm::append_range(Fields, allFields(Base));
  llvm::append_range(Fields, RD->fields());
  return Fields;
}

bool meshad::hasPlainBases(const CXXRecordDecl *RD) {
  if (!llvm::all_of(RD->bases(), [](const CXXBaseSpecifier &B) {
        const CXXRecordDecl *Base = getPlainBase(B);
        return Base && hasPlainBases(Base);
      }))
    return false;
  // Generated code names members by name: none may hide another.
  llvm::StringSet<> Names;
  for (const FieldDecl *F : allFields(RD))
    if (!F->getName().empty() && !Names.insert(F->getName()).second)
      return false;
  return true;
}

const CXXRecordDecl *meshad::getUserStruct(const LoweringState &S,
                                           QualType T) {
  T = T.getNonReferenceType().getCanonicalType();
  return getUserStruct(S, T->getAsCXXRecordDecl());
}

const CXXRecordDecl *meshad::getUserStruct(const LoweringState &S,
                                           const CXXRecordDecl *RD) {
  if (!RD || !RD->hasDefinition())
    return nullptr;
  RD = RD->getDefinition();
  if (RD->isLambda() || RD->isUnion() || isCudaVectorType(RD) ||
      isLibraryType(RD) ||
      S.Ctx.getSourceManager().isInSystemHeader(RD->getLocation()))
    return nullptr;
  return RD;
}

bool meshad::holdsDerivatives(const LoweringState &S,
                              const CXXRecordDecl *RD) {
  return llvm::any_of(allFields(RD), [&](const FieldDecl *F) {
    return carriesDerivatives(S, F->getType());
  });
}

ir::Var *StmtLowering::declareStructTemp(QualType T, const std::string &Name,
                                         SourceLocation Loc,
                                         std::vector<const ir::Stmt *> &Out) {
  const ir::Type *Ty = Types.lowerType(T.getNonReferenceType())
                           ->getUnqualified();
  ir::Var *V = S.M.createVar(Name, Ty);
  Out.push_back(S.make<ir::DeclStmt>(Loc, V, nullptr));
  return V;
}

bool StmtLowering::copyMembers(const ir::Expr *Dest, const ir::Expr *Src,
                               const CXXRecordDecl *RD, SourceLocation Loc,
                               std::vector<const ir::Stmt *> &Out) {
  ir::IRCloner Clone(S.M);
  for (const FieldDecl *F : allFields(RD)) {
    const ir::Type *Ty = Types.lowerType(F->getType());
    std::string Name = F->getNameAsString();
    auto Member = [&](const ir::Expr *Base) -> const ir::Expr * {
      return S.make<ir::MemberExpr>(Loc, Ty, Clone.clone(Base), Name, false);
    };
    if (const CXXRecordDecl *Inner = getUserStruct(S, F->getType())) {
      if (!copyMembers(Member(Dest), Member(Src), Inner, Loc, Out))
        return false;
      continue;
    }
    if (!Ty->isArray()) {
      Out.push_back(S.make<ir::AssignStmt>(Loc, Member(Dest),
                                           ir::AssignOp::Assign, Member(Src)));
      continue;
    }
    if (Ty->getElement()->isArray() || Ty->getCount() > 64)
      return S.reject(Loc, Twine("meshad: copying the member '") + Name +
                             "' of struct '" + RD->getName() +
                             "' (an array of arrays or of more than 64 "
                             "values) is not supported; copy it in a loop");
    ir::TypeContext &TC = S.M.getTypes();
    for (unsigned K = 0; K < Ty->getCount(); ++K) {
      auto Elem = [&](const ir::Expr *Base) -> const ir::Expr * {
        return S.make<ir::IndexExpr>(Loc, Ty->getElement(), Member(Base),
                                     S.make<ir::IntLitExpr>(Loc, TC.getInt(),
                                                            K, ""));
      };
      Out.push_back(S.make<ir::AssignStmt>(Loc, Elem(Dest),
                                           ir::AssignOp::Assign, Elem(Src)));
    }
  }
  return true;
}

bool StmtLowering::assignInitList(const ir::Expr *Dest, const InitListExpr *IL,
                                  std::vector<const ir::Stmt *> &Out) {
  const CXXRecordDecl *RD = IL->getType()->getAsCXXRecordDecl();
  SourceLocation Loc = IL->getExprLoc();
  ir::IRCloner Clone(S.M);
  unsigned I = 0;
  // The bases' members first (`Ball b{{m}, r}`), on the object itself.
  for (const CXXBaseSpecifier &Base : RD->bases()) {
    const Expr *Init = I < IL->getNumInits() ? IL->getInit(I) : nullptr;
    ++I;
    const CXXRecordDecl *BaseRD = Base.getType()->getAsCXXRecordDecl();
    bool Ok = !Init || isa<ImplicitValueInitExpr>(Init)
                  ? copyZero(Dest, BaseRD, Loc, Out)
                  : assignStruct(Dest, Init, /*DestIsFresh=*/false, Out);
    if (!Ok)
      return false;
  }
  for (const FieldDecl *F : RD->fields()) {
    const Expr *Init = I < IL->getNumInits() ? IL->getInit(I) : nullptr;
    ++I;
    const ir::Type *Ty = Types.lowerType(F->getType());
    const ir::Expr *Member = S.make<ir::MemberExpr>(
        Loc, Ty, Clone.clone(Dest), F->getNameAsString(), false);
    if (getUserStruct(S, F->getType()) && Init &&
        !isa<ImplicitValueInitExpr>(Init)) {
      if (!assignStruct(Member, Init, /*DestIsFresh=*/true, Out))
        return false;
      continue;
    }
    if (Ty->isArray() || Ty->getKind() == ir::Type::Kind::Opaque)
      return S.reject(Init ? Init->getExprLoc() : Loc,
                    Twine("meshad: initializing the member '") +
                        F->getName() + "' of struct '" + RD->getName() +
                        "' in a brace list is not supported; assign it "
                        "after the declaration");
    const ir::Expr *Value = Init && !isa<ImplicitValueInitExpr>(Init)
                                ? Exprs.lowerAs(Init, Ty)
                                : Exprs.makeZero(Ty, Loc);
    if (!Value)
      return false;
    llvm::append_range(Out, Exprs.takeHoisted());
    Out.push_back(
        S.make<ir::AssignStmt>(Loc, Member, ir::AssignOp::Assign, Value));
  }
  return true;
}

bool StmtLowering::assignStruct(const ir::Expr *Dest, const Expr *Src,
                                bool DestIsFresh,
                                std::vector<const ir::Stmt *> &Out) {
  const CXXRecordDecl *RD = getUserStruct(S, Src->getType());
  SourceLocation Loc = Src->getExprLoc();
  Src = stripCopies(Src);
  if (const auto *IL = dyn_cast<InitListExpr>(Src))
    return assignInitList(Dest, IL, Out);
  if (const auto *CE = dyn_cast<CXXConstructExpr>(Src)) {
    if (CE->getNumArgs() == 0 && CE->getConstructor()->isTrivial())
      return copyZero(Dest, RD, Loc, Out);
    return S.reject(Loc, Twine("meshad: constructor call of '") +
                           RD->getName() +
                           "' is not supported; initialize it with a brace "
                           "list ({a, b, c}) or assign its members");
  }
  if (const auto *Call = dyn_cast<CallExpr>(Src);
      Call && DestIsFresh && isInlinedCall(S, Call)) {
    const ir::Expr *R = inlineCall(Call, Dest);
    llvm::append_range(Out, Exprs.takeHoisted());
    return R != nullptr;
  }
  const ir::Expr *Value = Exprs.lower(Src);
  llvm::append_range(Out, Exprs.takeHoisted());
  if (!Value)
    return false;
  if (!RD || !isLValue(Value))
    return S.reject(Loc, "meshad: this struct value is not supported; assign "
                       "it to a variable first, or assign the members");
  return copyMembers(Dest, Value, RD, Loc, Out);
}

bool StmtLowering::copyZero(const ir::Expr *Dest, const CXXRecordDecl *RD,
                            SourceLocation Loc,
                            std::vector<const ir::Stmt *> &Out) {
  ir::IRCloner Clone(S.M);
  for (const FieldDecl *F : allFields(RD)) {
    const ir::Type *Ty = Types.lowerType(F->getType());
    const ir::Expr *Member = S.make<ir::MemberExpr>(
        Loc, Ty, Clone.clone(Dest), F->getNameAsString(), false);
    if (const CXXRecordDecl *Inner = getUserStruct(S, F->getType())) {
      if (!copyZero(Member, Inner, Loc, Out))
        return false;
      continue;
    }
    if (Ty->isArray() || Ty->getKind() == ir::Type::Kind::Opaque)
      return S.reject(Loc, Twine("meshad: value-initializing the member '") +
                             F->getName() + "' of struct '" + RD->getName() +
                             "' is not supported; assign it");
    Out.push_back(S.make<ir::AssignStmt>(Loc, Member, ir::AssignOp::Assign,
                                         Exprs.makeZero(Ty, Loc)));
  }
  return true;
}

bool StmtLowering::isStructCopy(const VarDecl *VD) const {
  const CXXRecordDecl *RD = getUserStruct(S, VD->getType());
  if (!RD || !VD->hasInit() || VD->getType()->isReferenceType() ||
      !holdsDerivatives(S, RD))
    return false;
  const Expr *Init = ExprLowering::skipWrappers(VD->getInit());
  // `Vec3 v;`: uninitialized, as it was.
  if (const auto *CE = dyn_cast<CXXConstructExpr>(Init))
    return CE->getNumArgs() != 0 || CE->requiresZeroInitialization();
  return true;
}

bool StmtLowering::lowerStructDecl(const VarDecl *VD, ir::BlockStmt *B) {
  std::optional<ir::Var::Storage> Storage = getLocalStorage(VD);
  if (!Storage)
    return false;
  if (*Storage != ir::Var::Storage::Local)
    return S.reject(VD->getLocation(), "meshad: initialized __shared__ structs "
                                     "are not supported");
  // Not const: its members are assigned after the declaration.
  const ir::Type *Ty = Types.lowerType(VD->getType())->getUnqualified();
  ir::Var *V = S.M.createVar(Exprs.localName(VD), Ty, *Storage);
  S.Vars[VD] = V;
  emit(B, S.make<ir::DeclStmt>(VD->getLocation(), V, nullptr));
  std::vector<const ir::Stmt *> Out;
  bool Ok = checkSequencing(VD->getInit()) &&
            assignStruct(S.make<ir::VarRefExpr>(VD->getLocation(), V),
                         VD->getInit(), /*DestIsFresh=*/true, Out);
  llvm::append_range(Out, Exprs.takeHoisted());
  for (const ir::Stmt *St : Out)
    B->append(St);
  return Ok;
}

const ir::Stmt *StmtLowering::lowerStructAssign(const Expr *LHS,
                                                const Expr *RHS,
                                                SourceLocation Loc) {
  std::vector<const ir::Stmt *> Out;
  const ir::Expr *Src = nullptr;
  const Expr *Value = stripCopies(RHS);
  // A brace list or a call may read the target: built in a temporary first.
  if (isa<InitListExpr, CallExpr, CXXConstructExpr>(Value)) {
    ir::Var *T = declareStructTemp(RHS->getType(), Exprs.freshName("_t"),
                                   Loc, Out);
    Src = S.make<ir::VarRefExpr>(Loc, T);
    if (!assignStruct(Src, RHS, /*DestIsFresh=*/true, Out))
      return nullptr;
  }
  const ir::Expr *Target = Exprs.lower(LHS);
  llvm::append_range(Out, Exprs.takeHoisted());
  if (!Target)
    return nullptr;
  bool Ok = Src ? copyMembers(Target, Src, getUserStruct(S, LHS->getType()),
                              Loc, Out)
                : assignStruct(Target, RHS, /*DestIsFresh=*/false, Out);
  if (!Ok)
    return nullptr;
  if (Out.empty())
    return S.make<ir::BlockStmt>(Loc);
  for (size_t I = 0; I + 1 < Out.size(); ++I)
    Exprs.hoist(Out[I]);
  return Out.back();
}
