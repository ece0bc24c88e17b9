//===- Lower/LowerStmt.cpp - Clang statements to IR statements ------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Statements: blocks, local declarations (including __shared__ arrays),
/// assignments, if/for/while/do, break/continue/return and calls. Side
/// effects become statements: an assignment or ++ nested in an expression is
/// an error, as is every construct the IR has no faithful form for.
///
//===----------------------------------------------------------------------===//

#include "Lower/LoweringImpl.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclCXX.h"

using namespace meshad;
using namespace clang;

namespace {

/// The user-facing name of statements the IR cannot represent.
const char *describeUnsupported(const Stmt *St) {
  switch (St->getStmtClass()) {
  case Stmt::SwitchStmtClass:
  case Stmt::CaseStmtClass:
  case Stmt::DefaultStmtClass:
    return "'switch' statement";
  case Stmt::GotoStmtClass:
  case Stmt::IndirectGotoStmtClass:
    return "'goto' statement";
  case Stmt::LabelStmtClass:
    return "label";
  case Stmt::CXXTryStmtClass:
    return "'try' block";
  case Stmt::GCCAsmStmtClass:
  case Stmt::MSAsmStmtClass:
    return "inline assembly";
  case Stmt::CXXForRangeStmtClass:
    return "range-based for loop";
  case Stmt::CoroutineBodyStmtClass:
  case Stmt::CoreturnStmtClass:
    return "coroutine";
  default:
    return nullptr;
  }
}

bool isSharedVar(const VarDecl *VD) {
  if (VD->hasAttr<CUDASharedAttr>())
    return true;
  for (const auto *A : VD->specific_attrs<AnnotateAttr>())
    if (A->getAnnotation() == "meshad.cuda.shared")
      return true;
  return false;
}

/// The implicit copy/move assignment of a trivially copyable struct (float3).
bool isTrivialAssignment(const CXXOperatorCallExpr *E) {
  const auto *MD = dyn_cast_or_null<CXXMethodDecl>(E->getDirectCallee());
  return MD && E->getNumArgs() == 2 && MD->isTrivial() &&
         (MD->isCopyAssignmentOperator() || MD->isMoveAssignmentOperator());
}

std::optional<ir::AssignOp> getSimpleAssignOp(BinaryOperatorKind K) {
  switch (K) {
  case BO_Assign:
    return ir::AssignOp::Assign;
  case BO_AddAssign:
    return ir::AssignOp::AddAssign;
  case BO_SubAssign:
    return ir::AssignOp::SubAssign;
  case BO_MulAssign:
    return ir::AssignOp::MulAssign;
  case BO_DivAssign:
    return ir::AssignOp::DivAssign;
  default:
    return std::nullopt;
  }
}

} // namespace

//===----------------------------------------------------------------------===//
// Blocks
//===----------------------------------------------------------------------===//

ir::BlockStmt *StmtLowering::lowerBlock(const CompoundStmt *CS) {
  auto *B = S.make<ir::BlockStmt>(CS->getBeginLoc());
  bool Ok = true;
  for (const Stmt *St : CS->body())
    Ok &= lowerInto(St, B);
  return Ok ? B : nullptr;
}

const ir::BlockStmt *StmtLowering::lowerAsBlock(const Stmt *St) {
  if (const auto *CS = dyn_cast<CompoundStmt>(St))
    return lowerBlock(CS);
  auto *B = S.make<ir::BlockStmt>(St->getBeginLoc());
  return lowerInto(St, B) ? B : nullptr;
}

bool StmtLowering::lowerInto(const Stmt *St, ir::BlockStmt *B) {
  // Temporaries hoisted from an enclosing statement's condition belong
  // before that statement, not into this block.
  std::vector<const ir::Stmt *> Outer = Exprs.takeHoisted();
  bool Ok = lowerIntoImpl(St, B);
  Exprs.restoreHoisted(std::move(Outer));
  return Ok;
}

bool StmtLowering::lowerIntoImpl(const Stmt *St, ir::BlockStmt *B) {
  if (isa<NullStmt>(St))
    return true;
  if (const auto *E = dyn_cast<Expr>(St))
    return lowerExprStmt(E, B);
  if (const auto *DS = dyn_cast<DeclStmt>(St))
    return lowerDeclStmt(DS, B);
  // Attributes ([[likely]], #pragma unroll) do not change the semantics.
  if (const auto *AS = dyn_cast<AttributedStmt>(St))
    return lowerIntoImpl(AS->getSubStmt(), B);
  const ir::Stmt *Result = lowerControl(St);
  if (!Result)
    return false;
  emit(B, Result);
  return true;
}

void StmtLowering::emit(ir::BlockStmt *B, const ir::Stmt *St) {
  for (const ir::Stmt *Temp : Exprs.takeHoisted())
    B->append(Temp);
  B->append(St);
}

const ir::Stmt *StmtLowering::lowerControl(const Stmt *St) {
  SourceLocation Loc = St->getBeginLoc();
  switch (St->getStmtClass()) {
  case Stmt::CompoundStmtClass:
    return lowerBlock(cast<CompoundStmt>(St));
  case Stmt::IfStmtClass:
    return lowerIf(cast<IfStmt>(St));
  case Stmt::ForStmtClass:
    return lowerFor(cast<ForStmt>(St));
  case Stmt::WhileStmtClass:
    return lowerWhile(cast<WhileStmt>(St));
  case Stmt::DoStmtClass:
    return lowerDo(cast<DoStmt>(St));
  case Stmt::BreakStmtClass:
    return S.make<ir::BreakStmt>(Loc);
  case Stmt::ContinueStmtClass:
    return S.make<ir::ContinueStmt>(Loc);
  case Stmt::ReturnStmtClass:
    return lowerReturn(cast<ReturnStmt>(St));
  default:
    return unsupported(St);
  }
}

const ir::Stmt *StmtLowering::unsupported(const Stmt *St) {
  if (const char *What = describeUnsupported(St))
    return S.fail(St->getBeginLoc(),
                  Twine("meshad: ") + What + " is not supported");
  return S.fail(St->getBeginLoc(), Twine("meshad: statement '") +
                                       St->getStmtClassName() +
                                       "' is not supported");
}

//===----------------------------------------------------------------------===//
// Declarations
//===----------------------------------------------------------------------===//

bool StmtLowering::lowerDeclStmt(const DeclStmt *DS, ir::BlockStmt *B) {
  bool Ok = true;
  for (const Decl *D : DS->decls()) {
    if (const auto *VD = dyn_cast<VarDecl>(D)) {
      ir::DeclStmt *Lowered = lowerVarDecl(VD);
      if (Lowered)
        emit(B, Lowered);
      Ok &= Lowered != nullptr;
      continue;
    }
    // These only affect name lookup and types, which are lowered resolved.
    if (isa<TypedefNameDecl, StaticAssertDecl, UsingDecl, UsingDirectiveDecl,
            NamespaceAliasDecl>(D))
      continue;
    Ok = false;
    if (isa<TagDecl>(D))
      S.fail(D->getLocation(),
             "meshad: local type definitions are not supported");
    else
      S.fail(D->getLocation(), Twine("meshad: local '") +
                                   D->getDeclKindName() +
                                   "' declarations are not supported");
  }
  return Ok;
}

ir::DeclStmt *StmtLowering::lowerVarDecl(const VarDecl *VD) {
  std::optional<ir::Var::Storage> Storage = getLocalStorage(VD);
  if (!Storage)
    return nullptr;
  const ir::Type *Ty = Types.lowerDeclType(VD);
  if (!Ty)
    return nullptr;
  // Registered even if the initializer fails, to avoid follow-up errors.
  ir::Var *V = S.M.createVar(VD->getNameAsString(), Ty, *Storage);
  S.Vars[VD] = V;
  std::optional<const ir::Expr *> Init = lowerVarInit(VD);
  if (!Init)
    return nullptr;
  return S.make<ir::DeclStmt>(VD->getLocation(), V, *Init);
}

std::optional<ir::Var::Storage>
StmtLowering::getLocalStorage(const VarDecl *VD) {
  SourceLocation Loc = VD->getLocation();
  auto reject = [this](SourceLocation Loc, const char *Msg) {
    S.fail(Loc, Msg);
    return std::nullopt;
  };
  if (isSharedVar(VD)) {
    if (VD->hasExternalStorage() || VD->getType()->isIncompleteArrayType())
      return reject(Loc, "meshad: extern (dynamic) __shared__ memory is not "
                         "supported yet");
    return ir::Var::Storage::Shared;
  }
  if (VD->hasExternalStorage())
    return reject(Loc, "meshad: local extern declarations are not supported");
  if (VD->getTLSKind() != VarDecl::TLS_None)
    return reject(Loc, "meshad: thread_local variables are not supported");
  // An immutable static with a constant initializer behaves like a local.
  bool ImmutableConstant = VD->getType().isConstQualified() && VD->hasInit() &&
                           VD->hasConstantInitialization();
  if (VD->isStaticLocal() && !ImmutableConstant)
    return reject(Loc, "meshad: static local variables are not supported");
  return ir::Var::Storage::Local;
}

std::optional<const ir::Expr *> StmtLowering::lowerVarInit(const VarDecl *VD) {
  if (!VD->hasInit())
    return nullptr;
  const Expr *Init = ExprLowering::skipWrappers(VD->getInit());
  if (const auto *CE = dyn_cast<CXXConstructExpr>(Init)) {
    // `float3 v;` and `__shared__ float3 s[N];`: trivially uninitialized.
    if (CE->getNumArgs() == 0 && CE->getConstructor()->isTrivial() &&
        !CE->requiresZeroInitialization())
      return nullptr;
  }
  const ir::Expr *E = Exprs.lowerRoot(Init);
  if (!E)
    return std::nullopt;
  return E;
}

//===----------------------------------------------------------------------===//
// Expression statements and assignments
//===----------------------------------------------------------------------===//

bool StmtLowering::lowerExprStmt(const Expr *E, ir::BlockStmt *B) {
  E = ExprLowering::skipWrappers(E);
  if (const auto *CE = dyn_cast<CastExpr>(E);
      CE && CE->getCastKind() == CK_ToVoid)
    return lowerExprStmt(CE->getSubExpr(), B);
  // (void)x, x; and other statements without effect are dropped.
  if (!E->HasSideEffects(S.Ctx))
    return true;
  if (const auto *Call = dyn_cast<CXXOperatorCallExpr>(E)) {
    bool IsLaunch = false;
    const ir::Stmt *L = Exprs.lowerEmulatedLaunch(Call, IsLaunch);
    if (IsLaunch) {
      if (L)
        emit(B, L);
      return L != nullptr;
    }
  }
  if (const auto *Launch = dyn_cast<CUDAKernelCallExpr>(E)) {
    const ir::Stmt *L = Exprs.lowerLaunch(Launch);
    if (L)
      emit(B, L);
    return L != nullptr;
  }
  bool IsUpdate = false;
  const ir::Stmt *Update = lowerUpdate(E, IsUpdate);
  if (IsUpdate) {
    if (Update)
      emit(B, Update);
    return Update != nullptr;
  }
  const ir::Expr *Lowered = Exprs.lowerRoot(E);
  if (!Lowered)
    return false;
  emit(B, S.make<ir::ExprStmt>(E->getBeginLoc(), Lowered));
  return true;
}

const ir::Stmt *StmtLowering::lowerUpdate(const Expr *E, bool &IsUpdate) {
  E = ExprLowering::skipWrappers(E);
  SourceLocation Loc = E->getBeginLoc();
  IsUpdate = true;
  if (const auto *CA = dyn_cast<CompoundAssignOperator>(E))
    return lowerCompoundAssign(CA);
  if (const auto *BO = dyn_cast<BinaryOperator>(E);
      BO && BO->getOpcode() == BO_Assign)
    return makeAssign(BO->getLHS(), ir::AssignOp::Assign, BO->getRHS(), Loc);
  if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(E);
      OC && isTrivialAssignment(OC))
    return makeAssign(OC->getArg(0), ir::AssignOp::Assign, OC->getArg(1),
                      Loc);
  if (const auto *UO = dyn_cast<UnaryOperator>(E);
      UO && UO->isIncrementDecrementOp()) {
    const ir::Expr *Target = Exprs.lower(UO->getSubExpr());
    if (!Target)
      return nullptr;
    ir::AssignOp Op =
        UO->isIncrementOp() ? ir::AssignOp::Inc : ir::AssignOp::Dec;
    return S.make<ir::AssignStmt>(Loc, Target, Op, nullptr);
  }
  IsUpdate = false;
  return nullptr;
}

const ir::Stmt *StmtLowering::makeAssign(const Expr *LHS, ir::AssignOp Op,
                                         const Expr *RHS, SourceLocation Loc) {
  // C++17 sequences the right operand of an assignment before the left one:
  // lower it first so that hoisted calls keep that order.
  const ir::Expr *Value = Exprs.lowerRoot(RHS);
  const ir::Expr *Target = Exprs.lower(LHS);
  if (!Value || !Target)
    return nullptr;
  return S.make<ir::AssignStmt>(Loc, Target, Op, Value);
}

const ir::Stmt *
StmtLowering::lowerCompoundAssign(const CompoundAssignOperator *E) {
  SourceLocation Loc = E->getBeginLoc();
  if (std::optional<ir::AssignOp> Op = getSimpleAssignOp(E->getOpcode()))
    return makeAssign(E->getLHS(), *Op, E->getRHS(), Loc);
  // a %= b  becomes  a = a % b, with the conversions of the compound form.
  std::optional<ir::BinaryOp> Op = ExprLowering::getBinaryOp(
      BinaryOperator::getOpForCompoundAssignment(E->getOpcode()));
  const ir::Expr *RHS = Exprs.lower(E->getRHS());
  const ir::Expr *LHS = Exprs.lower(E->getLHS());
  if (!Op || !RHS || !LHS)
    return nullptr;
  SourceLocation OpLoc = E->getOperatorLoc();
  const ir::Expr *Left =
      Exprs.convert(LHS, Types.lowerType(E->getComputationLHSType()), OpLoc);
  const ir::Type *ResultTy = Types.lowerType(E->getComputationResultType());
  const ir::Expr *Value = S.make<ir::BinaryExpr>(OpLoc, ResultTy, *Op, Left,
                                                 RHS);
  Value = Exprs.convert(Value, LHS->getType(), OpLoc);
  return S.make<ir::AssignStmt>(Loc, LHS, ir::AssignOp::Assign, Value);
}

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

const ir::Expr *StmtLowering::lowerCondition(const Expr *Cond,
                                             const VarDecl *CondVar,
                                             bool InLoop) {
  if (CondVar)
    return S.fail(CondVar->getLocation(),
                  "meshad: condition variables are not supported");
  if (InLoop)
    return Exprs.lowerNoHoist(Cond, "in a loop condition");
  return Exprs.lower(Cond);
}

const ir::Stmt *StmtLowering::lowerIf(const IfStmt *IS) {
  SourceLocation Loc = IS->getBeginLoc();
  if (IS->isConsteval())
    return S.fail(Loc, "meshad: 'if consteval' is not supported");
  if (IS->getInit())
    return S.fail(IS->getInit()->getBeginLoc(),
                  "meshad: 'if' with an initializer is not supported");
  if (IS->isConstexpr()) {
    // Only the branch that was instantiated exists.
    std::optional<const Stmt *> Taken = IS->getNondiscardedCase(S.Ctx);
    if (Taken && *Taken)
      return lowerAsBlock(*Taken);
    return S.make<ir::BlockStmt>(Loc);
  }
  const ir::Expr *Cond =
      lowerCondition(IS->getCond(), IS->getConditionVariable(), false);
  const ir::BlockStmt *Then = lowerAsBlock(IS->getThen());
  const ir::BlockStmt *Else =
      IS->getElse() ? lowerAsBlock(IS->getElse()) : nullptr;
  if (!Cond || !Then || (IS->getElse() && !Else))
    return nullptr;
  return S.make<ir::IfStmt>(Loc, Cond, Then, Else);
}

const ir::Stmt *StmtLowering::lowerFor(const ForStmt *FS) {
  bool Ok = true;
  const ir::Stmt *Init = nullptr;
  if (FS->getInit())
    Ok &= (Init = lowerForInit(FS->getInit())) != nullptr;
  const ir::Expr *Cond = nullptr;
  if (FS->getCond())
    Ok &= (Cond = lowerCondition(FS->getCond(), FS->getConditionVariable(),
                                 true)) != nullptr;
  const ir::Stmt *Inc = nullptr;
  if (FS->getInc())
    Ok &= (Inc = lowerForInc(FS->getInc())) != nullptr;
  const ir::BlockStmt *Body = lowerAsBlock(FS->getBody());
  if (!Ok || !Body)
    return nullptr;
  return S.make<ir::ForStmt>(FS->getBeginLoc(), Init, Cond, Inc, Body);
}

const ir::Stmt *StmtLowering::lowerForInit(const Stmt *Init) {
  if (const auto *DS = dyn_cast<DeclStmt>(Init)) {
    const auto *VD = DS->isSingleDecl() ? dyn_cast<VarDecl>(DS->getSingleDecl())
                                        : nullptr;
    if (!VD)
      return S.fail(Init->getBeginLoc(),
                    "meshad: a for-loop initializer declaring several "
                    "variables is not supported");
    return lowerVarDecl(VD);
  }
  bool IsUpdate = false;
  if (const auto *E = dyn_cast<Expr>(Init))
    if (const ir::Stmt *Update = lowerUpdate(E, IsUpdate); IsUpdate)
      return Update;
  return S.fail(Init->getBeginLoc(),
                "meshad: this for-loop initializer is not supported (use a "
                "declaration or an assignment)");
}

const ir::Stmt *StmtLowering::lowerForInc(const Expr *Inc) {
  const Expr *E = ExprLowering::skipWrappers(Inc);
  if (const auto *BO = dyn_cast<BinaryOperator>(E); BO && BO->isCommaOp())
    return S.fail(BO->getOperatorLoc(),
                  "meshad: comma operator in a for-loop increment is not "
                  "supported");
  // The increment runs every iteration: nothing may be hoisted out of it.
  std::vector<const ir::Stmt *> Before = Exprs.takeHoisted();
  bool IsUpdate = false;
  const ir::Stmt *Update = lowerUpdate(E, IsUpdate);
  bool HoistedCall = !Exprs.takeHoisted().empty();
  Exprs.restoreHoisted(std::move(Before));
  if (!IsUpdate)
    return S.fail(E->getBeginLoc(),
                  "meshad: this for-loop increment is not supported (use an "
                  "assignment or an increment)");
  if (HoistedCall)
    return S.fail(E->getBeginLoc(), "meshad: a call with side effects in a "
                                    "for-loop increment is not supported");
  return Update;
}

const ir::Stmt *StmtLowering::lowerWhile(const WhileStmt *WS) {
  const ir::Expr *Cond =
      lowerCondition(WS->getCond(), WS->getConditionVariable(), true);
  const ir::BlockStmt *Body = lowerAsBlock(WS->getBody());
  if (!Cond || !Body)
    return nullptr;
  return S.make<ir::WhileStmt>(WS->getBeginLoc(), Cond, Body);
}

const ir::Stmt *StmtLowering::lowerDo(const DoStmt *DS) {
  const ir::BlockStmt *Body = lowerAsBlock(DS->getBody());
  const ir::Expr *Cond = lowerCondition(DS->getCond(), nullptr, true);
  if (!Cond || !Body)
    return nullptr;
  return S.make<ir::DoStmt>(DS->getBeginLoc(), Body, Cond);
}

const ir::Stmt *StmtLowering::lowerReturn(const ReturnStmt *RS) {
  const ir::Expr *Value = nullptr;
  if (const Expr *E = RS->getRetValue())
    if (!(Value = Exprs.lowerRoot(E)))
      return nullptr;
  return S.make<ir::ReturnStmt>(RS->getBeginLoc(), Value);
}
