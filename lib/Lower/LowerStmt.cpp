//===- Lower/LowerStmt.cpp - Clang statements to IR statements ------------===//
//
// Part of meshad: source-to-source automatic differentiation of CUDA C++.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Statements: blocks, local declarations (including __shared__ arrays),
/// assignments, if/for/while/do, break/continue/return and calls. Side
/// effects become statements (an assignment or ++ nested in an expression
/// too, see LowerSideEffects.cpp; switch and range-based for are in
/// LowerSwitch.cpp); every construct the IR has no faithful form for is an
/// error.
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
  case Stmt::CaseStmtClass:
  case Stmt::DefaultStmtClass:
    return "'case' label outside the top level of its 'switch'";
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
  if (isa<NullStmt>(St) || St == SkippedBreak)
    return true;
  if (const auto *E = dyn_cast<Expr>(St))
    return lowerExprStmt(E, B);
  if (const auto *DS = dyn_cast<DeclStmt>(St))
    return lowerDeclStmt(DS, B);
  // Attributes ([[likely]], #pragma unroll) do not change the semantics.
  if (const auto *AS = dyn_cast<AttributedStmt>(St))
    return lowerIntoImpl(AS->getSubStmt(), B);
  if (isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(St))
    return lowerLoop(St, B);
  if (const auto *RS = dyn_cast<ReturnStmt>(St);
      RS && Returns.Depth > 0 && Returns.Returned)
    return lowerLoopReturn(RS, B);
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
  case Stmt::SwitchStmtClass:
    return lowerSwitch(cast<SwitchStmt>(St));
  case Stmt::CXXForRangeStmtClass:
    return lowerRangeFor(cast<CXXForRangeStmt>(St));
  default:
    return unsupported(St);
  }
}

const ir::Stmt *StmtLowering::unsupported(const Stmt *St) {
  if (const char *What = describeUnsupported(St))
    return S.fail(St->getBeginLoc(),
                  Twine("meshad: ") + What + " is not supported");
  return S.fail(St->getBeginLoc(), Twine("meshad: this kind of statement "
                                         "is not supported (Clang's '") +
                                       St->getStmtClassName() + "')");
}

//===----------------------------------------------------------------------===//
// Declarations
//===----------------------------------------------------------------------===//

bool StmtLowering::lowerDeclStmt(const DeclStmt *DS, ir::BlockStmt *B) {
  bool Ok = true;
  for (const Decl *D : DS->decls()) {
    if (const auto *VD = dyn_cast<VarDecl>(D);
        VD && isMutableReference(VD->getType())) {
      Ok &= lowerReferenceLocal(VD, DS, B);
      continue;
    }
    if (const auto *VD = dyn_cast<VarDecl>(D)) {
      if (const LambdaExpr *LE = getLambdaInit(VD)) {
        Ok &= lowerLambdaLocal(VD, LE, DS);
        continue;
      }
    }
    if (const auto *VD = dyn_cast<VarDecl>(D); VD && isStructCopy(VD)) {
      Ok &= lowerStructDecl(VD, B);
      continue;
    }
    if (const auto *VD = dyn_cast<VarDecl>(D); VD && isNewArray(VD)) {
      Ok &= lowerNewArray(VD, DS, B);
      continue;
    }
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

/// True for the kernel's dynamic shared memory: `extern __shared__ T a[];`,
/// or the CPU emulation's spelling of it (`MESHAD_DYNAMIC_SHARED(T, a)`,
/// `T *a = ::meshad::cpu::dynamicShared<T>()`).
static bool isDynamicShared(const VarDecl *VD) {
  if (isSharedVar(VD))
    return VD->hasExternalStorage() || VD->getType()->isIncompleteArrayType();
  const auto *Call = dyn_cast_or_null<CallExpr>(
      VD->hasInit() ? VD->getInit()->IgnoreParenImpCasts() : nullptr);
  const FunctionDecl *FD = Call ? Call->getDirectCallee() : nullptr;
  return FD && FD->getQualifiedNameAsString() == "meshad::cpu::dynamicShared";
}

ir::DeclStmt *StmtLowering::lowerVarDecl(const VarDecl *VD) {
  if (isDynamicShared(VD))
    return lowerDynamicShared(VD);
  std::optional<ir::Var::Storage> Storage = getLocalStorage(VD);
  if (!Storage)
    return nullptr;
  const ir::Type *Ty = Types.lowerDeclType(VD);
  if (!Ty)
    return nullptr;
  // Registered even if the initializer fails, to avoid follow-up errors.
  ir::Var *V = S.M.createVar(Exprs.localName(VD), Ty, *Storage);
  S.Vars[VD] = V;
  std::optional<const ir::Expr *> Init = lowerVarInit(VD);
  if (!Init)
    return nullptr;
  return S.make<ir::DeclStmt>(VD->getLocation(), V, *Init);
}

/// The dynamic shared memory of a kernel: a __shared__ variable of pointer
/// type without initializer (ir::isDynamicShared), which the emitter spells
/// `MESHAD_DYNAMIC_SHARED(T, a)`.
ir::DeclStmt *StmtLowering::lowerDynamicShared(const VarDecl *VD) {
  QualType Elem = VD->getType()->isPointerType()
                      ? VD->getType()->getPointeeType()
                      : S.Ctx.getAsArrayType(VD->getType())->getElementType();
  const ir::Type *ElemTy = Types.lowerType(Elem);
  if (!ElemTy)
    return nullptr;
  if (!ElemTy->isFloatingScalar() && !ElemTy->isIntegral() &&
      !ElemTy->isVector()) {
    S.fail(VD->getLocation(),
           "meshad: dynamic shared memory of type '" +
               Elem.getAsString(S.Policy) +
               "' is not supported; declare an array of double, float or "
               "integers (extern __shared__ double buf[];)");
    return nullptr;
  }
  ir::Var *V =
      S.M.createVar(Exprs.localName(VD), S.M.getTypes().getPointer(ElemTy),
                    ir::Var::Storage::Shared);
  S.Vars[VD] = V;
  return S.make<ir::DeclStmt>(VD->getLocation(), V, nullptr);
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
  if (!checkSequencing(Init))
    return std::nullopt;
  if (const auto *IL = dyn_cast<InitListExpr>(Init);
      IL && IL->getType()->isRecordType() &&
      Types.lowerType(IL->getType())->getKind() == ir::Type::Kind::Opaque) {
    // `Pair p{x * x, y};`: a user struct's brace list of computed values
    // has no derivative form yet (member assignments have).
    for (const Expr *E : IL->inits())
      if (E->getType()->isRealFloatingType() && !E->isEvaluatable(S.Ctx)) {
        S.fail(E->getExprLoc(),
               Twine("meshad: a brace list of computed values for struct '") +
                   IL->getType().getAsString(S.Policy) +
                   "' is not supported; declare it, then assign its "
                   "members (p.a = ...)");
        return std::nullopt;
      }
  }
  if (const auto *CE = dyn_cast<CXXConstructExpr>(Init)) {
    // `float3 v;` and `__shared__ float3 s[N];`: trivially uninitialized.
    if (CE->getNumArgs() == 0 &&
        isPlainDefaultConstructor(CE->getConstructor()) &&
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
  // (void)x, x; and other statements without effect are dropped, and so
  // are assert and printf (the derivative does not depend on them).
  if (!E->HasSideEffects(S.Ctx) || isDiagnosticOnly(E))
    return true;
  if (const auto *BO = dyn_cast<BinaryOperator>(E); BO && BO->isCommaOp())
    return lowerExprStmt(BO->getLHS(), B) & lowerExprStmt(BO->getRHS(), B);
  if (const auto *Del = dyn_cast<CXXDeleteExpr>(E))
    return lowerDelete(Del, B);
  if (getFreedBuffer(E))
    return lowerFree(E, B);
  if (!checkSequencing(E))
    return false;
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
  // An inlined call's statements did its work; its value is not read.
  if (!isa<ir::CallExpr>(Lowered)) {
    for (const ir::Stmt *Temp : Exprs.takeHoisted())
      B->append(Temp);
    return true;
  }
  emit(B, S.make<ir::ExprStmt>(E->getBeginLoc(), Lowered));
  return true;
}

const ir::Stmt *StmtLowering::lowerUpdate(const Expr *E, bool &IsUpdate) {
  E = ExprLowering::skipWrappers(E);
  SourceLocation Loc = E->getBeginLoc();
  IsUpdate = true;
  if (const auto *CA = dyn_cast<CompoundAssignOperator>(E))
    return lowerCompoundAssign(CA);
  // `a = b` of structs holding derivatives: member by member.
  auto IsStruct = [&](const Expr *LHS) {
    const CXXRecordDecl *RD = getUserStruct(S, LHS->getType());
    return RD && holdsDerivatives(S, RD);
  };
  if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(E);
      OC && isTrivialAssignment(OC) && IsStruct(OC->getArg(0)))
    return lowerStructAssign(OC->getArg(0), OC->getArg(1), Loc);
  if (const auto *BO = dyn_cast<BinaryOperator>(E);
      BO && BO->getOpcode() == BO_Assign && IsStruct(BO->getLHS()))
    return lowerStructAssign(BO->getLHS(), BO->getRHS(), Loc);
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
                                             const VarDecl *CondVar) {
  // `if (double t = f(x))`: the declaration runs first (withInitializer
  // makes the block it goes into), its hoisted calls before it.
  if (CondVar) {
    ir::DeclStmt *D = lowerVarDecl(CondVar);
    if (!D)
      return nullptr;
    std::vector<const ir::Stmt *> H = Exprs.takeHoisted();
    H.push_back(D);
    Exprs.restoreHoisted(std::move(H));
  }
  if (!checkSequencing(Cond))
    return nullptr;
  return Exprs.lower(Cond);
}

const ir::Stmt *StmtLowering::lowerIf(const IfStmt *IS) {
  SourceLocation Loc = IS->getBeginLoc();
  if (IS->isConsteval())
    return S.fail(Loc, "meshad: 'if consteval' is not supported");
  if (IS->isConstexpr()) {
    // Only the branch that was instantiated exists.
    std::optional<const Stmt *> Taken = IS->getNondiscardedCase(S.Ctx);
    if (Taken && *Taken)
      return lowerAsBlock(*Taken);
    return S.make<ir::BlockStmt>(Loc);
  }
  return withInitializer(
      IS->getInit(), IS->getConditionVariable(), Loc,
      [&]() -> const ir::Stmt * {
        const ir::Expr *Cond =
            lowerCondition(IS->getCond(), IS->getConditionVariable());
        std::vector<const ir::Stmt *> Pre = Exprs.takeHoisted();
        const ir::BlockStmt *Then = lowerAsBlock(IS->getThen());
        const ir::BlockStmt *Else =
            IS->getElse() ? lowerAsBlock(IS->getElse()) : nullptr;
        Exprs.restoreHoisted(std::move(Pre));
        if (!Cond || !Then || (IS->getElse() && !Else))
          return nullptr;
        return S.make<ir::IfStmt>(Loc, Cond, Then, Else);
      });
}

const ir::Stmt *StmtLowering::lowerFor(const ForStmt *FS) {
  // for (int i = 0, j = n - 1; ...): { int i = 0; int j = n - 1; for (; ...) }
  if (const auto *DS = dyn_cast_or_null<DeclStmt>(FS->getInit());
      DS && !DS->isSingleDecl())
    return withInitializer(FS->getInit(), nullptr, FS->getBeginLoc(),
                           [&]() { return lowerForRest(FS, nullptr); });
  bool Ok = true;
  const ir::Stmt *Init = nullptr;
  if (FS->getInit())
    Ok &= (Init = lowerForInit(FS->getInit())) != nullptr;
  const ir::Stmt *Result = lowerForRest(FS, Init);
  return Ok ? Result : nullptr;
}

const ir::Stmt *StmtLowering::lowerForRest(const ForStmt *FS,
                                           const ir::Stmt *Init) {
  bool Ok = true;
  const ir::Expr *Cond = nullptr;
  std::vector<const ir::Stmt *> Pre;
  if (FS->getCond())
    Ok &= (Cond = lowerLoopCondition(FS->getCond(), FS->getConditionVariable(),
                                     Pre)) != nullptr;
  // The increment: its last update stays the loop's; what comes before it
  // (other operands of a comma, hoisted calls) ends the body.
  std::vector<const ir::Stmt *> Incs;
  if (FS->getInc())
    Ok &= lowerForInc(FS->getInc(), Incs);
  const ir::Stmt *Inc = nullptr;
  if (!Incs.empty() && isa<ir::AssignStmt>(Incs.back()) &&
      llvm::none_of(Incs, [](const ir::Stmt *St) {
        return isa<ir::DeclStmt>(St);
      })) {
    Inc = Incs.back();
    Incs.pop_back();
  }
  const ir::BlockStmt *Body = lowerAsBlock(FS->getBody());
  if (!Ok || !Body)
    return nullptr;
  if (!Incs.empty()) {
    if (const Stmt *C = findLoopContinue(FS->getBody()))
      return S.fail(C->getBeginLoc(),
                    "meshad: 'continue' in a for loop whose increment calls "
                    "a function or has a comma operator is not supported; "
                    "move that part of the increment to the end of the body "
                    "(and before each 'continue')");
    auto *Ext = S.make<ir::BlockStmt>(Body->getLoc(), Body->getBody());
    for (const ir::Stmt *St : Incs)
      Ext->append(St);
    Body = Ext;
  }
  // A condition with side effects is tested first thing in the body, where
  // `continue` (through the increment) comes back to it.
  if (!Pre.empty()) {
    Body = testInBody(Cond, std::move(Pre), Body, /*AtEnd=*/false);
    Cond = nullptr;
  }
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

bool StmtLowering::lowerForInc(const Expr *Inc,
                               std::vector<const ir::Stmt *> &Out) {
  std::vector<const ir::Stmt *> Outer = Exprs.takeHoisted();
  bool Ok = true;
  for (const Expr *E : splitCommas(Inc)) {
    auto *Tmp = S.make<ir::BlockStmt>(E->getBeginLoc());
    Ok &= lowerInto(E, Tmp);
    Out.insert(Out.end(), Tmp->getBody().begin(), Tmp->getBody().end());
  }
  Exprs.restoreHoisted(std::move(Outer));
  return Ok;
}

const ir::Stmt *StmtLowering::lowerWhile(const WhileStmt *WS) {
  std::vector<const ir::Stmt *> Pre;
  const ir::Expr *Cond =
      lowerLoopCondition(WS->getCond(), WS->getConditionVariable(), Pre);
  const ir::BlockStmt *Body = lowerAsBlock(WS->getBody());
  if (!Cond || !Body)
    return nullptr;
  SourceLocation Loc = WS->getBeginLoc();
  if (Pre.empty())
    return S.make<ir::WhileStmt>(Loc, Cond, Body);
  // while (n--) body  is  while (true) { int _t0 = n; --n; if (!_t0) break;
  // body }: `continue` comes back to the test.
  Body = testInBody(Cond, std::move(Pre), Body, /*AtEnd=*/false);
  return S.make<ir::WhileStmt>(
      Loc, S.make<ir::BoolLitExpr>(Loc, S.M.getTypes().getBool(), true), Body);
}

const ir::Stmt *StmtLowering::lowerDo(const DoStmt *DS) {
  const ir::BlockStmt *Body = lowerAsBlock(DS->getBody());
  std::vector<const ir::Stmt *> Pre;
  const ir::Expr *Cond = lowerLoopCondition(DS->getCond(), nullptr, Pre);
  if (!Cond || !Body)
    return nullptr;
  SourceLocation Loc = DS->getBeginLoc();
  if (Pre.empty())
    return S.make<ir::DoStmt>(Loc, Body, Cond);
  // The test moves to the end of the body; a `continue` would skip it.
  if (const Stmt *C = findLoopContinue(DS->getBody()))
    return S.fail(C->getBeginLoc(),
                  "meshad: 'continue' in a do-while loop whose condition has "
                  "side effects (an assignment, '++', '--' or a call) is not "
                  "supported; compute the condition into a variable at the "
                  "end of the body and test that");
  Body = testInBody(Cond, std::move(Pre), Body, /*AtEnd=*/true);
  return S.make<ir::DoStmt>(
      Loc, Body, S.make<ir::BoolLitExpr>(Loc, S.M.getTypes().getBool(), true));
}

const ir::Stmt *StmtLowering::lowerReturn(const ReturnStmt *RS) {
  const ir::Expr *Value = nullptr;
  if (const Expr *E = RS->getRetValue())
    if (!checkSequencing(E) || !(Value = Exprs.lowerRoot(E)))
      return nullptr;
  return S.make<ir::ReturnStmt>(RS->getBeginLoc(), Value);
}
